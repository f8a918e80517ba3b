"""RTP/RTCP probing helpers shared by the sender benchmarks (bench.py, latency.py)."""
import struct

RTCP_RR, RTCP_PSFB, PLI_FMT, RTP_VERSION = 201, 206, 1, 2
NAL_IDR, NAL_SPS, NAL_PPS, STAP_A, FU_A = 5, 7, 8, 24, 28
RTCP_PT_RANGE = range(192, 224)


def pli_packet(sender_ssrc, media_ssrc):
    """RR (no report blocks) + PLI, RFC 3550 6.4.2 and RFC 4585 6.3.1: 8 + 12 bytes."""
    rr = struct.pack("!BBHI", RTP_VERSION << 6, RTCP_RR, 1, sender_ssrc)
    pli = struct.pack("!BBHII", (RTP_VERSION << 6) | PLI_FMT, RTCP_PSFB, 2, sender_ssrc, media_ssrc)
    return rr + pli


def starts_idr(payload):
    """Whether an RTP payload begins an IDR access unit: SPS, PPS or IDR, a STAP-A starting with one, or the FU-A
    start of an IDR."""
    if not payload:
        return False
    t = payload[0] & 0x1F
    if t in (NAL_SPS, NAL_PPS, NAL_IDR):
        return True
    if t == STAP_A and len(payload) >= 4:
        return payload[3] & 0x1F in (NAL_SPS, NAL_PPS, NAL_IDR)
    if t == FU_A and len(payload) >= 2:
        return bool(payload[1] & 0x80) and payload[1] & 0x1F == NAL_IDR
    return False
