#!/usr/bin/env python3
"""Soak benchmark (issue 11 item 10): `rtc-h264 send` at 1280x720 30 fps for a long time (30 min by default) while a
hostile peer sends, every second, a PLI, a REMB, a TMMBR and junk (random bytes, truncated RTCP, RTP to a send-only
port, oversized datagrams), and the control endpoint gets a valid request and a malformed one. Samples the sender's
RSS and open file descriptors every 10 s. Passes when the sender never crashes and, after a warm-up, RSS and the fd
count stay flat (RSS growth under 1 MB, no fd growth beyond a control connection in flight).

Usage: soak.py RTC_H264_BINARY [seconds]     (plain RTP, loopback only)
"""
import json
import os
import random
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

binary = sys.argv[1]
duration = float(sys.argv[2]) if len(sys.argv) > 2 else 1800.0
warmup = min(120.0, duration / 4)
rng = random.Random(1234)

sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sink.bind(("127.0.0.1", 0))
sink.setblocking(False)
sink_port = sink.getsockname()[1]
control = socket.socket()
control.bind(("127.0.0.1", 0))
control_port = control.getsockname()[1]
control.close()
workdir = tempfile.mkdtemp(prefix="rtc-h264-soak-")
stats_path = os.path.join(workdir, "stats.jsonl")

sender = subprocess.Popen(
    [binary, "send", "--to", f"127.0.0.1:{sink_port}", "--no-srtp", "--size", "1280x720", "--fps", "30",
     "--bitrate", "1.5M", "--duration", str(int(duration)), "--control", f"127.0.0.1:{control_port}",
     "--stats", stats_path, "--quiet"],
    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def rtcp(pt, fmt, body):
    length = (4 + len(body)) // 4 - 1
    return struct.pack("!BBH", 0x80 | fmt, pt, length) + body


sender_addr = None
media_ssrc = 0
samples = []
start = time.monotonic()
next_attack = start + 1
next_sample = start + 1
received = 0
crashed = None
while True:
    now = time.monotonic()
    if sender.poll() is not None:
        if now - start < duration - 2:
            crashed = f"exited with {sender.returncode} after {now - start:.0f} s: {sender.stderr.read().decode()[-2000:]}"
        break
    try:
        while True:
            data, addr = sink.recvfrom(2048)
            received += 1
            sender_addr = addr
            if len(data) >= 12 and not (192 <= data[1] <= 223):
                media_ssrc = struct.unpack("!I", data[8:12])[0]
    except BlockingIOError:
        pass
    if sender_addr and now >= next_attack:
        next_attack += 1
        ours = 0x5EED
        rr = rtcp(201, 0, struct.pack("!I", ours))
        pli = rtcp(206, 1, struct.pack("!II", ours, media_ssrc))
        remb_bitrate = rng.choice([300_000, 800_000, 1_500_000, 5_000_000])
        exp = 0
        mantissa = remb_bitrate
        while mantissa >= (1 << 18):
            mantissa >>= 1
            exp += 1
        remb = rtcp(206, 15, struct.pack("!II", ours, 0) + b"REMB" + struct.pack("!I", (1 << 24) | (exp << 18) | mantissa) + struct.pack("!I", media_ssrc))
        tmmbr_rate = rng.choice([400_000, 1_000_000, 2_000_000])
        exp = 0
        mantissa = tmmbr_rate
        while mantissa >= (1 << 17):
            mantissa >>= 1
            exp += 1
        tmmbr = rtcp(205, 3, struct.pack("!II", ours, 0) + struct.pack("!II", media_ssrc, (exp << 26) | (mantissa << 9) | 40))
        for packet in [rr + pli, rr + remb, rr + tmmbr]:
            sink.sendto(packet, sender_addr)
        junk = [bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 1400))),
                rr[:5], bytes([0x80, 0xC9, 0xFF, 0xFF]) + bytes(12),
                bytes([0x80, 0x60]) + bytes(rng.getrandbits(8) for _ in range(200)),
                bytes(rng.getrandbits(8) for _ in range(1500)), b""]
        for j in junk:
            sink.sendto(j, sender_addr)
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{control_port}/stats", timeout=2).read()
            req = urllib.request.Request(f"http://127.0.0.1:{control_port}/bitrate", data=b'{"bitrate":-1e30}', method="POST")
            try:
                urllib.request.urlopen(req, timeout=2)
            except urllib.error.HTTPError as e:
                assert e.code == 400, e.code
        except Exception as e:  # the endpoint must keep answering
            crashed = f"control endpoint failed after {now - start:.0f} s: {e!r}"
            sender.kill()
            break
    if now >= next_sample:
        next_sample += 10
        try:
            samples.append((now - start, rss_kb(sender.pid), fds(sender.pid)))
        except FileNotFoundError:
            pass
    time.sleep(0.002)

sender.wait()
after = [s for s in samples if s[0] >= warmup]
result = {"seconds": round(time.monotonic() - start), "packetsReceived": received, "crashed": crashed,
          "samples": len(samples)}
if after:
    rss = [s[1] for s in after]
    fd = [s[2] for s in after]
    result.update({"rssAfterWarmupKB": [min(rss), max(rss)], "rssGrowthKB": rss[-1] - rss[0],
                   "fdsAfterWarmup": [min(fd), max(fd)]})
final = None
try:
    with open(stats_path) as f:
        lines = f.read().strip().splitlines()
        final = json.loads(lines[-1]) if lines else None
except FileNotFoundError:
    pass
if final:
    result.update({k: final.get(k) for k in ["framesSent", "framesDropped", "framesSkipped", "pliCount",
                                               "keyFramesEncoded", "rtcpMalformed", "packetsFromStrangers",
                                               "bitrateChangeFailures", "frameFailures"]})
print(json.dumps(result, indent=1))
# A control connection may be open at a sample: fds may move by one or two, but must not grow.
ok = (crashed is None and after and result["rssGrowthKB"] < 1024
      and result["fdsAfterWarmup"][1] - result["fdsAfterWarmup"][0] <= 2 and after[-1][2] <= after[0][2] + 1)
print("soak:", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
