#!/usr/bin/env python3
"""A UDP relay between `rtc-h264 send` and a Janus streaming mountpoint, for the janus-chromium scenario.

Sits on the sender's path so the scenario can (1) see the stream on the wire with wall-clock times, in the same
clock the browser's Date.now() uses, and (2) cut the forward path on demand (the "loss burst") without touching the
sender or Janus. No netem/tc on this kernel, so this relay is the impairment.

Ports (RTCP on a separate port, as `rtc-h264 send --no-rtcp-mux` and a Janus `rtcpport` need):
  LISTEN:P    RTP from the sender -> Janus RTP port     (dropped while the burst is on)
  LISTEN:P+1  RTCP from the sender -> Janus rtcpport; RTCP from Janus (PLI, FIR, REMB, ...) -> the sender.
Each socket both receives and forwards, so Janus learns LISTEN:P+1 as the source's RTCP address (from our Sender
Reports) and the sender sees its feedback coming from the address it sends to (--to LISTEN:P, RTCP at P+1).

Signals: SIGUSR1 starts dropping the sender's RTP, SIGUSR2 stops; SIGTERM/SIGINT end the relay.
Log (JSON lines, one per event, flushed; times are wall-clock seconds, time.time()):
  {"ev":"frame","t0":first packet,"t":marker packet,"ts":RTP timestamp,"idr":bool|null,"dropped":bool,"packets":n}
      for every access unit (closed by the RTP marker bit; "idr" is null when the payload is SRTP, so unreadable);
  {"ev":"rtcp","t":..,"dir":"fb","pli":n,"fir":n,"remb":bit/s|null,"len":n} for RTCP from Janus to the sender;
  {"ev":"rtcp","t":..,"dir":"sr","sr":n,"len":n} for RTCP from the sender to Janus;
  {"ev":"drop","t":..,"on":bool} for the burst switch; {"ev":"end",...} with totals at exit.
"""
import argparse
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time

RTP_MARKER_MASK = 0x80          # RFC 3550 5.1: M bit, top bit of the second byte
NAL_TYPE_MASK = 0x1F            # RFC 6184 1.3: nal_unit_type, low five bits
NAL_IDR = 5                     # H.264 Table 7-1: coded slice of an IDR picture
NAL_SPS = 7
NAL_STAP_A = 24                 # RFC 6184 5.7.1
NAL_FU_A = 28                   # RFC 6184 5.8
RTCP_PT_SR = 200                # RFC 3550 6.4.1
RTCP_PT_RTPFB = 205             # RFC 4585 6.2
RTCP_PT_PSFB = 206              # RFC 4585 6.3
PSFB_FMT_PLI = 1                # RFC 4585 6.3.1
PSFB_FMT_FIR = 4                # RFC 5104 4.3.1
PSFB_FMT_AFB = 15               # RFC 4585 6.4, REMB is an AFB with "REMB" (draft-alvestrand-rmcat-remb 2.2)


def rtp_payload(data):
    """Returns (marker, timestamp, payload) of an RTP packet, or None if it is not one (RFC 3550 5.1)."""
    if len(data) < 12 or data[0] >> 6 != 2:
        return None
    cc = data[0] & 0x0F
    offset = 12 + 4 * cc
    if data[0] & 0x10:                       # header extension (RFC 3550 5.3.1)
        if len(data) < offset + 4:
            return None
        offset += 4 + 4 * struct.unpack_from("!H", data, offset + 2)[0]
    end = len(data)
    if data[0] & 0x20:                       # padding
        end -= data[-1]
    if offset > end:
        return None
    return bool(data[1] & RTP_MARKER_MASK), struct.unpack_from("!I", data, 4)[0], data[offset:end]


def carries_idr(payload):
    """True if an RFC 6184 payload holds (part of) an IDR slice or an SPS (which precedes every IDR)."""
    if not payload:
        return False
    kind = payload[0] & NAL_TYPE_MASK
    if kind in (NAL_IDR, NAL_SPS):
        return True
    if kind == NAL_FU_A and len(payload) >= 2:
        return (payload[1] & NAL_TYPE_MASK) == NAL_IDR
    if kind == NAL_STAP_A:
        i = 1
        while i + 2 < len(payload):
            size = struct.unpack_from("!H", payload, i)[0]
            if i + 2 < len(payload) and (payload[i + 2] & NAL_TYPE_MASK) in (NAL_IDR, NAL_SPS):
                return True
            i += 2 + size
    return False


def parse_rtcp(data):
    """Counts PLI, FIR and Sender Reports in a compound RTCP packet and returns the last REMB bitrate (bit/s)."""
    pli = fir = sr = 0
    remb = None
    i = 0
    while i + 4 <= len(data):
        first, pt, length = data[i], data[i + 1], struct.unpack_from("!H", data, i + 2)[0]
        if first >> 6 != 2:
            break                            # not RTCP (or SRTCP whose trailer we reached)
        fmt = first & 0x1F
        size = 4 * (length + 1)
        if pt == RTCP_PT_SR:
            sr += 1
        elif pt == RTCP_PT_PSFB and fmt == PSFB_FMT_PLI:
            pli += 1
        elif pt == RTCP_PT_PSFB and fmt == PSFB_FMT_FIR:
            fir += 1
        elif pt == RTCP_PT_PSFB and fmt == PSFB_FMT_AFB and i + 20 <= len(data) and data[i + 12:i + 16] == b"REMB":
            exp = data[i + 17] >> 2
            mantissa = ((data[i + 17] & 0x03) << 16) | (data[i + 18] << 8) | data[i + 19]
            remb = mantissa << exp
        i += size
    return pli, fir, sr, remb


class Relay:
    def __init__(self, args):
        self.janus_host, janus_port = args.janus.rsplit(":", 1)
        self.janus_rtp = (self.janus_host, int(janus_port))
        self.janus_rtcp = (self.janus_host, int(janus_port) + 1)
        self.rtp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rtp.bind((args.listen, args.port))
        self.rtcp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rtcp.bind((args.listen, args.port + 1))
        self.sender_rtp = None
        self.sender_rtcp = None
        self.dropping = False
        self.running = True
        self.log = open(args.log, "a", buffering=1)
        self.frame = None                    # the access unit being collected: [timestamp, idr, dropped, packets, t0]
        self.totals = {"rtpForwarded": 0, "rtpDropped": 0, "framesForwarded": 0, "framesDropped": 0,
                       "rtcpToJanus": 0, "rtcpToSender": 0, "pliToSender": 0, "firToSender": 0, "rembToSender": 0}
        self.encrypted = args.srtp

    def emit(self, record):
        self.log.write(json.dumps(record, separators=(",", ":")) + "\n")

    def set_dropping(self, on):
        if self.dropping != on:
            self.dropping = on
            self.emit({"ev": "drop", "t": time.time(), "on": on})

    def close_frame(self, now):
        ts, idr, dropped, packets, first = self.frame
        self.frame = None
        self.totals["framesDropped" if dropped else "framesForwarded"] += 1
        self.emit({"ev": "frame", "t0": first, "t": now, "ts": ts, "idr": None if self.encrypted else idr,
                   "dropped": dropped, "packets": packets})

    def on_rtp(self, data, source, now):
        if source[0] == self.janus_host and source[1] == self.janus_rtp[1]:
            if self.sender_rtp:
                self.rtp.sendto(data, self.sender_rtp)
            return
        self.sender_rtp = source
        parsed = rtp_payload(data)
        if parsed is None:
            return
        marker, ts, payload = parsed
        if self.frame is not None and self.frame[0] != ts:
            self.close_frame(now)            # a frame without its marker (never expected from our sender)
        if self.frame is None:
            self.frame = [ts, False, False, 0, now]
        self.frame[3] += 1
        if not self.encrypted and carries_idr(payload):
            self.frame[1] = True
        if self.dropping:
            self.frame[2] = True
            self.totals["rtpDropped"] += 1
        else:
            self.rtp.sendto(data, self.janus_rtp)
            self.totals["rtpForwarded"] += 1
        if marker:
            self.close_frame(now)

    def on_rtcp(self, data, source, now):
        if source == self.janus_rtcp:
            pli, fir, _, remb = parse_rtcp(data)
            self.totals["rtcpToSender"] += 1
            self.totals["pliToSender"] += pli
            self.totals["firToSender"] += fir
            if remb is not None:
                self.totals["rembToSender"] += 1
            self.emit({"ev": "rtcp", "t": now, "dir": "fb", "pli": pli, "fir": fir, "remb": remb, "len": len(data)})
            if self.sender_rtcp:
                self.rtcp.sendto(data, self.sender_rtcp)
            return
        self.sender_rtcp = source
        self.totals["rtcpToJanus"] += 1
        self.emit({"ev": "rtcp", "t": now, "dir": "sr", "sr": parse_rtcp(data)[2], "len": len(data)})
        self.rtcp.sendto(data, self.janus_rtcp)

    def run(self):
        signal.signal(signal.SIGUSR1, lambda *_: self.set_dropping(True))
        signal.signal(signal.SIGUSR2, lambda *_: self.set_dropping(False))

        def stop(*_):
            self.running = False
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        selector = selectors.DefaultSelector()
        selector.register(self.rtp, selectors.EVENT_READ, self.on_rtp)
        selector.register(self.rtcp, selectors.EVENT_READ, self.on_rtcp)
        self.emit({"ev": "start", "t": time.time(), "pid": os.getpid()})
        while self.running:
            try:
                events = selector.select(timeout=0.2)
            except InterruptedError:
                continue
            for key, _ in events:
                try:
                    data, source = key.fileobj.recvfrom(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except ConnectionRefusedError:
                    continue                 # ICMP port unreachable from an earlier send; nothing to do
                try:
                    key.data(data, source, time.time())
                except ConnectionRefusedError:
                    pass
        record = {"ev": "end", "t": time.time()}
        record.update(self.totals)
        self.emit(record)
        self.log.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", required=True, help="address to bind (the server namespace's veth address)")
    parser.add_argument("--port", type=int, required=True, help="RTP port; RTCP is port+1")
    parser.add_argument("--janus", required=True, help="Janus mountpoint RTP HOST:PORT (its rtcpport is PORT+1)")
    parser.add_argument("--log", required=True, help="JSON lines event log")
    parser.add_argument("--srtp", action="store_true", help="the media is SRTP: do not look inside payloads")
    Relay(parser.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
