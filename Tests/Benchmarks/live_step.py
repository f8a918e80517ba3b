#!/usr/bin/env python3
"""The live bitrate step of issue 13, timed: 2.5M -> 300k -> 2.5M through the control endpoint of a running sender.

`rtc-h264 send` runs in real time (1280x720 at 30 fps, the built-in test pattern or --input Y4M, plain RTP to this
script on 127.0.0.1, the default degradation preference maintain-framerate, control endpoint on 127.0.0.1). This
script is the receiving peer and the operator, so every time below is on one clock (time.monotonic):
- it reads every RTP packet, and takes a frame as delivered when its last packet (marker bit) arrives;
- it reads the SPS that leads each IDR (RFC 6184 single NAL, STAP-A or the first FU-A fragment) for the frame size;
- after LOW_AT seconds it sets the bitrate to LOW (`POST /bitrate`), after HIGH_AT seconds back to HIGH.
Printed: the time from each command to the first frame at another size ("down", "up to 1280x720"), the longest gap
between delivered frames within 2 s of each switch and over the whole run (wall clock), the longest gap in RTP time
between consecutive frames (a skipped frame shows there), frames received against the sender's framesSent, and the
bitrate of each second. The targets (issue 13): down within 2 s, back to 720p within 15 s, no freeze over 100 ms.
That every frame decodes is checked by the interop scenario (Interop/resolution-switch.sh), not here.

Usage: live_step.py RTC_H264 [--input Y4M] [--high 2.5M] [--low 300k] [--low-at 5] [--high-at 12] [--duration 32]
                   [--port 47600]
"""
import argparse
import json
import os
import select
import socket
import subprocess
import sys
import time
import urllib.request


def rate(text):
    scale = {"k": 1e3, "M": 1e6}.get(text[-1], 1)
    return int(float(text.rstrip("kM")) * scale)


class BitReader:
    """Exp-Golomb reader over an RBSP (emulation prevention bytes removed)."""

    def __init__(self, data):
        self.data, self.bit = data, 0

    def u(self, n):
        value = 0
        for _ in range(n):
            if self.bit >= len(self.data) * 8:
                raise ValueError("SPS ends early")
            value = (value << 1) | ((self.data[self.bit // 8] >> (7 - self.bit % 8)) & 1)
            self.bit += 1
        return value

    def ue(self):
        zeros = 0
        while self.u(1) == 0:
            zeros += 1
            if zeros > 31:
                raise ValueError("bad Exp-Golomb code")
        return (1 << zeros) - 1 + self.u(zeros)

    def se(self):
        k = self.ue()
        return (k + 1) // 2 if k % 2 else -(k // 2)


def sps_size(nal):
    """Width and height of an SPS NAL unit (H.264 7.3.2.1.1, cropping included)."""
    rbsp = bytearray()
    zeros = 0
    for byte in nal[1:]:
        if zeros >= 2 and byte == 3:
            zeros = 0
            continue
        rbsp.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    r = BitReader(bytes(rbsp))
    profile = r.u(8)
    r.u(16)  # constraint flags, level
    r.ue()  # seq_parameter_set_id
    chroma_format = 1
    if profile in (100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135):
        chroma_format = r.ue()
        if chroma_format == 3:
            r.u(1)
        r.ue(); r.ue(); r.u(1)  # bit depths, qpprime_y_zero_transform_bypass_flag
        if r.u(1):  # seq_scaling_matrix_present_flag
            for i in range(8 if chroma_format != 3 else 12):
                if r.u(1):
                    last, nxt = 8, 8
                    for _ in range(16 if i < 6 else 64):
                        if nxt:
                            nxt = (last + r.se() + 256) % 256
                        last = nxt or last
    r.ue()  # log2_max_frame_num_minus4
    poc_type = r.ue()
    if poc_type == 0:
        r.ue()
    elif poc_type == 1:
        r.u(1); r.se(); r.se()
        for _ in range(r.ue()):
            r.se()
    r.ue(); r.u(1)  # max_num_ref_frames, gaps_in_frame_num_value_allowed_flag
    width_mbs, height_units = r.ue() + 1, r.ue() + 1
    frame_mbs_only = r.u(1)
    if not frame_mbs_only:
        r.u(1)
    r.u(1)  # direct_8x8_inference_flag
    crop = [0, 0, 0, 0]
    if r.u(1):
        crop = [r.ue() for _ in range(4)]
    unit_x = 2 if chroma_format in (1, 2) else 1
    unit_y = (2 if chroma_format == 1 else 1) * (2 - frame_mbs_only)
    width = width_mbs * 16 - unit_x * (crop[0] + crop[1])
    height = height_units * 16 * (2 - frame_mbs_only) - unit_y * (crop[2] + crop[3])
    return width, height


def sps_in(payload):
    """The SPS NAL unit an RTP payload carries (single NAL, STAP-A, first FU-A fragment), or None."""
    if not payload:
        return None
    kind = payload[0] & 0x1F
    if kind == 7:
        return payload
    if kind == 24:  # STAP-A: 16-bit sizes
        at = 1
        while at + 2 <= len(payload):
            size = int.from_bytes(payload[at:at + 2], "big")
            nal = payload[at + 2:at + 2 + size]
            if nal and nal[0] & 0x1F == 7:
                return nal
            at += 2 + size
    if kind == 28 and len(payload) > 2 and payload[1] & 0x80 and payload[1] & 0x1F == 7:
        return bytes([(payload[0] & 0xE0) | 7]) + payload[2:]  # a fragmented SPS (never seen; kept for safety)
    return None


def control(port, path, body=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body.encode() if body else None,
                                     method="POST" if body is not None else "GET")
    with urllib.request.urlopen(request, timeout=5) as reply:
        return json.loads(reply.read())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rtc_h264")
    parser.add_argument("--input", help="a 1280x720 Y4M to send in a loop-free real-time run (default: the pattern)")
    parser.add_argument("--high", default="2.5M")
    parser.add_argument("--low", default="300k")
    parser.add_argument("--low-at", type=float, default=5)
    parser.add_argument("--high-at", type=float, default=12)
    parser.add_argument("--duration", type=float, default=32)
    parser.add_argument("--port", type=int, default=47600)
    args = parser.parse_args()
    if not (0 < args.low_at < args.high_at < args.duration <= 600):
        sys.exit("live_step.py: need 0 < --low-at < --high-at < --duration <= 600")
    high, low = rate(args.high), rate(args.low)

    rtp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rtp.bind(("127.0.0.1", args.port))
    rtp.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    ctl = args.port + 2
    command = [args.rtc_h264, "send", "--to", f"127.0.0.1:{args.port}", "--no-srtp", "--size", "1280x720",
               "--fps", "30", "--bitrate", args.high, "--duration", str(args.duration),
               "--control", f"127.0.0.1:{ctl}", "--quiet"]
    if args.input:
        command += ["--input", args.input]
    sender = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    start = time.monotonic()
    frames = []  # (arrival, rtp timestamp, bytes, size)
    size = None
    frame_bytes = 0
    marks = {}
    stats = None
    last_packet = None
    while True:
        now = time.monotonic()
        if "low" not in marks and now - start >= args.low_at:
            marks["low"] = time.monotonic()
            control(ctl, "/bitrate", json.dumps({"bitrate": low}))
        if "high" not in marks and now - start >= args.high_at:
            marks["high"] = time.monotonic()
            control(ctl, "/bitrate", json.dumps({"bitrate": high}))
        if "stats" not in marks and now - start >= args.duration - 1.5:
            marks["stats"] = now
            stats = control(ctl, "/stats")
        ready, _, _ = select.select([rtp], [], [], 0.01)
        if ready:
            data = rtp.recv(65536)
            arrival = time.monotonic()
            last_packet = arrival
            if len(data) < 12 or data[1] & 0x7F in range(72, 77) or data[0] >> 6 != 2:
                continue  # RTCP (RFC 5761: payload types 72-76 are RTCP's 200-204) or not RTP
            header = 12 + 4 * (data[0] & 0x0F)
            if data[0] & 0x10:
                header += 4 + 4 * int.from_bytes(data[header + 2:header + 4], "big")
            payload = data[header:]
            sps = sps_in(payload)
            if sps:
                size = sps_size(sps)
            frame_bytes += len(payload)
            if data[1] & 0x80:
                frames.append((arrival, int.from_bytes(data[4:8], "big"), frame_bytes, size))
                frame_bytes = 0
        elif sender.poll() is not None and (last_packet is None or time.monotonic() - last_packet > 0.5):
            break
    if sender.wait() != 0:
        sys.exit(f"live_step.py: rtc-h264 send failed: {sender.stderr.read()[-400:]}")
    if not frames or "high" not in marks:
        sys.exit("live_step.py: the sender stopped before the step up")

    def first_after(mark, test):
        return next(((t, s) for t, _, _, s in frames if t >= marks[mark] and test(s)), None)

    down = first_after("low", lambda s: s and s != (1280, 720))
    up = first_after("high", lambda s: s == (1280, 720))

    def longest_gap(around, window=2.0):
        times = [t for t, _, _, _ in frames if around is None or abs(t - around) <= window]
        return max((b - a for a, b in zip(times, times[1:])), default=float("nan")) * 1000

    ts = [stamp for _, stamp, _, _ in frames]
    rtp_gap = max(((b - a) % (1 << 32) for a, b in zip(ts, ts[1:])), default=0) / 90
    print(f"live step {args.high} -> {args.low} at {args.low_at:g} s -> {args.high} at {args.high_at:g} s, "
          f"1280x720 30 fps, {'input ' + args.input if args.input else 'test pattern'}, {args.duration:g} s")
    if down:
        print(f"  down: {(down[0] - marks['low']) * 1000:.0f} ms from the command to the first {down[1][0]}x{down[1][1]} "
              f"frame (target <= 2000 ms); longest gap between frames within 2 s of it {longest_gap(down[0]):.0f} ms")
    else:
        print("  down: NO smaller frame after the command")
    if up:
        print(f"  up: {(up[0] - marks['high']) * 1000:.0f} ms from the command to the first 1280x720 frame "
              f"(target <= 15000 ms); longest gap between frames within 2 s of it {longest_gap(up[0]):.0f} ms")
    else:
        print("  up: NO 1280x720 frame after the command")
    print(f"  whole run: longest gap between delivered frames {longest_gap(None):.0f} ms (wall clock), "
          f"{rtp_gap:.0f} ms of RTP time (target: no freeze over 100 ms)")
    sent = stats.get("framesSent") if stats else None
    print(f"  frames received {len(frames)}; the sender's framesSent 1.5 s before the end {sent}, "
          f"framesSkipped {stats.get('framesSkipped') if stats else None}, "
          f"resolutionChanges {stats.get('resolutionChanges') if stats else None}")
    seconds = {}
    for t, _, n, s in frames:
        second = int(t - frames[0][0])
        bits, _ = seconds.get(second, (0, s))
        seconds[second] = (bits + n * 8, s)
    print("  per second (kbit/s, size at its end): " + ", ".join(
        f"{k}: {v[0] / 1000:.0f} {v[1][0]}x{v[1][1]}" if v[1] else f"{k}: {v[0] / 1000:.0f}"
        for k, v in sorted(seconds.items())))


if __name__ == "__main__":
    main()
