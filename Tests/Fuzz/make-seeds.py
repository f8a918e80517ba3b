#!/usr/bin/env python3
"""Regenerates Tests/Fuzz/Seeds/<target>/ from the test fixtures: the hex packets written out in the RTP tests
(captured from ffmpeg and GStreamer), the x264 bitstreams in Tests/H264Tests/Fixtures, and a few SDP, Y4M and JSON
texts in the forms the tests use, over what is there (hand-written seeds stay). Run from anywhere; the output is
committed, so CI does not need this script."""
import os
import re
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEEDS = os.path.join(ROOT, "Tests", "Fuzz", "Seeds")
RTCP_TYPES = range(200, 208)


def write(target, name, data):
    os.makedirs(os.path.join(SEEDS, target), exist_ok=True)
    with open(os.path.join(SEEDS, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def hex_literals(path):
    """Every hex("...") / hex(\"\"\"...\"\"\") literal in a Swift test file, as bytes."""
    text = open(path).read()
    out = []
    for m in re.finditer(r'hex\(\s*"""(.*?)"""\s*\)|hex\("([0-9A-Fa-f ]+)"\)', text, re.S):
        digits = re.sub(r"\s", "", m.group(1) or m.group(2))
        if digits and len(digits) % 2 == 0 and re.fullmatch(r"[0-9A-Fa-f]+", digits):
            out.append(bytes.fromhex(digits))
    return out


def nal_units(stream):
    """Splits an Annex-B stream on 3- and 4-byte start codes."""
    parts = re.split(b"\x00\x00\x00\x01|\x00\x00\x01", stream)
    return [p for p in parts if p]


def turn_seeds():
    """What a TURN server sends: ChannelData (padded, as over TCP), a Data indication from the fuzz client's peer
    (203.0.113.7:5000), an error response, and all of them as one stream."""
    def attribute(kind, value):
        return struct.pack(">HH", kind, len(value)) + value + b"\0" * ((4 - len(value) % 4) % 4)

    def stun(kind, transaction, attributes):
        body = b"".join(attributes)
        return struct.pack(">HHI", kind, len(body), 0x2112A442) + transaction + body

    peer = bytes([0, 1]) + struct.pack(">H", 5000 ^ 0x2112) + bytes(
        a ^ b for a, b in zip(bytes([203, 0, 113, 7]), struct.pack(">I", 0x2112A442)))
    channel = struct.pack(">HH", 0x4000, 5) + b"hello" + b"\0\0\0"
    data = stun(0x0017, b"\x01" * 12, [attribute(0x0012, peer), attribute(0x0013, b"payload")])
    error = stun(0x0113, b"\x02" * 12, [attribute(0x0009, bytes([0, 0, 4, 38]) + b"Stale Nonce"),
                                        attribute(0x0015, b"nonce")])
    write("turn", "channel-data", channel)
    write("turn", "data-indication", data)
    write("turn", "stale-nonce", error)
    write("turn", "stream", channel + data + error + channel)


def main():
    # Seeds are written over, never cleared: some folders also hold seeds written by hand (link-header,
    # jsep-formats, sdpfrag), which a cleared folder would lose. Remove a stale generated seed by hand.
    turn_seeds()
    rtp_tests = os.path.join(ROOT, "Tests", "RTPTests")
    rtp_packets = []
    for name in sorted(os.listdir(rtp_tests)):
        for i, data in enumerate(hex_literals(os.path.join(rtp_tests, name))):
            if len(data) >= 4 and data[0] >> 6 == 2 and data[1] in RTCP_TYPES:
                write("rtcp", f"{name[:-6]}-{i}", data)
            elif len(data) >= 12 and data[0] >> 6 == 2:
                write("rtp", f"{name[:-6]}-{i}", data)
                rtp_packets.append(data)
    # The depacketizer target: window byte, then 16-bit length-prefixed packets (the GStreamer capture in order).
    framed = b"\x3f" + b"".join(struct.pack(">H", len(p)) + p for p in rtp_packets)
    write("depacketizer", "fixture-packets", framed[:4096])
    write("depacketizer", "one-stap", b"\x07" + struct.pack(">H", len(rtp_packets[0])) + rtp_packets[0])

    # rtp-extensions: an ID byte (capture time's ID << 4 | playout delay's), then a packet with both elements next to
    # the transport-wide number (the layout of FrameHeaderExtensionTests), one with the long form, one malformed.
    header = bytes.fromhex("90600007 00015f90 01020304")
    write("rtp-extensions", "both", b"\x45" + header + bytes.fromhex(
        "bede0004 310001 47e8754700 80000001 52000000") + b"\x7c\x01")
    write("rtp-extensions", "long-form", b"\x40" + header + bytes.fromhex(
        "bede0005 4fe8754700 80000001 fffffffffffffffe 000000") + b"\x7c\x01")
    write("rtp-extensions", "overrun", b"\x45" + header + bytes.fromhex("bede0001 5fffffff"))

    fixtures = os.path.join(ROOT, "Tests", "H264Tests", "Fixtures")
    for name in sorted(os.listdir(fixtures)):
        if not name.endswith(".h264"):
            continue
        stream = open(os.path.join(fixtures, name), "rb").read()
        write("annexb", name, stream[:4096])
        avcc = b"".join(struct.pack(">I", len(n)) + n for n in nal_units(stream))
        write("annexb", name + ".avcc", avcc[:4096])
        for j, nal in enumerate(nal_units(stream)[:6]):
            kind = nal[0] & 0x1F
            selector = {7: 0, 8: 1, 1: 3, 5: 3}.get(kind)
            if selector is not None:
                write("parametersets", f"{name}-{j}-type{kind}", bytes([selector]) + nal[:4095])
    write("parametersets", "plid", b"\x05" + b"42e01f")
    write("parametersets", "epb", b"\x04" + b"\x00\x00\x03\x01\x00\x00\x00")
    # An avcC record for baseline 3.1 with one SPS and one PPS (the layout in AVCDecoderConfigurationRecordTests).
    sps = bytes.fromhex("6742c01fda014016e8")
    pps = bytes.fromhex("68ce3c80")
    avcc_record = bytes([1, 0x42, 0xC0, 0x1F, 0xFF, 0xE1]) + struct.pack(">H", len(sps)) + sps + b"\x01" \
        + struct.pack(">H", len(pps)) + pps
    write("annexb", "avcC", avcc_record)

    write("sdp", "ours-srtp", "\r\n".join([
        "v=0", "o=- 305419896 1 IN IP4 127.0.0.1", "s=rtc-h264", "c=IN IP4 127.0.0.1", "t=0 0",
        "m=video 5004 RTP/SAVP 96", "a=rtpmap:96 H264/90000",
        "a=fmtp:96 packetization-mode=1;profile-level-id=42e01f;sprop-parameter-sets=Z0LAH9oBQBbo,aM48gA==",
        "a=rtcp-mux", "a=framerate:30",
        "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz",
        "a=ssrc:305419896 cname:me", "a=recvonly"]) + "\r\n")
    write("sdp", "foreign-lf", "\n".join([
        "v=0", "o=- 0 0 IN IP4 127.0.0.1", "s=No Name", "c=IN IP4 127.0.0.1", "t=0 0", "m=audio 4000 RTP/AVP 0",
        "a=rtpmap:0 PCMU/8000", "m=video 5006 RTP/AVP 97 96", "a=rtpmap:97 VP8/90000", "a=rtpmap:96 H264/90000",
        "a=fmtp:96 packetization-mode=1; profile-level-id=42e01f", "a=rtcp:5007"]) + "\n")
    write("sdp", "ipv6-plain", "v=0\r\nc=IN IP6 ::1\r\nm=video 6000 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n"
          "a=fmtp:96 packetization-mode=0;profile-level-id=64001f\r\n")

    header = b"YUV4MPEG2 W4 H2 F30:1 Ip A1:1 C420jpeg\n"
    write("y4m", "two-frames", header + (b"FRAME\n" + bytes(range(12))) * 2)
    write("y4m", "frame-params", b"YUV4MPEG2 W2 H2 F25:1 C420\nFRAME Ixyz\n" + b"\x10" * 6)
    write("y4m", "no-colorspace", b"YUV4MPEG2 H3 W3 F30000:1001 XYSCSS=420JPEG\n")

    # STUN: the RFC 5769 test vectors written out in the STUN tests.
    stun_tests = os.path.join(ROOT, "Tests", "STUNTests", "RFC5769VectorTests.swift")
    if os.path.exists(stun_tests):
        text = open(stun_tests).read()
        for m in re.finditer(r"static let (\w+): \[UInt8\] = \[(.*?)\]", text, re.S):
            values = re.findall(r"0x([0-9A-Fa-f]{2})", m.group(2))
            if len(values) >= 20:
                write("stun", m.group(1), bytes(int(v, 16) for v in values))

    # JSEP: the browser offers (and our answers) written out as multi-line literals in the WebRTC tests.
    webrtc_tests = os.path.join(ROOT, "Tests", "WebRTCTests")
    for name in ["ChromiumOffer.swift", "Chromium156Offer.swift", "FirefoxStyleOfferTests.swift",
                 "JSEPNegotiationTests.swift", "VideoOffererTests.swift"]:
        path = os.path.join(webrtc_tests, name)
        if not os.path.exists(path):
            continue
        text = open(path).read()
        for i, m in enumerate(re.finditer(r'"""\n(.*?)\n([ ]*)"""', text, re.S)):
            indent = len(m.group(2))
            lines = [line[indent:] for line in m.group(1).split("\n")]
            body = "\n".join(lines).replace("\\r\n", "\r\n")
            fingerprint = ("sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:3C:A5:87:1A:93:4A:9C:4F:"
                           "EE:5E:2D:2C")
            body = body.replace("\\(fingerprint)", fingerprint)
            body = re.sub(r"\\\(.*?\)", "x", body)  # other interpolations: any value will do
            write("jsep", f"{name[:-6]}-{i}", body + "\r\n")

    for name, body in [("bitrate", '{"bitrate": 1500000}'), ("bitrate-string", '{"bitrate": "800k"}'),
                       ("fps", '{"fps": 29.97}'), ("both", '{"bitrate": 2.5e6, "fps": 30}'),
                       ("negative", '{"bitrate": -1e30}')]:
        write("json", name, body)


if __name__ == "__main__":
    main()
