#!/usr/bin/env python3
"""WHEP viewer churn (issue 20, item 2): memory given back when viewers leave.

Starts `rtc-h264 serve --whep 127.0.0.1:PORT` (the built-in pattern, 640x360) and runs CYCLES join/leave cycles, one
viewer at a time: POST /whep with a valid recvonly H.264 offer (a Chromium-style video section with fresh ICE
credentials; its candidate is the discard port, so the viewer is answered and its socket opened, but never connects),
then DELETE of the answer's Location. Reads the server's RSS (VmRSS in /proc/PID/status) and its open file
descriptors after the first WARMUP cycles and at the end (after a 2 s pause, so that closes queued on the event loops
have run). Target: RSS after CYCLES within 5 MB of RSS after WARMUP; the fd count back where it was.

Usage: churn.py RTC_H264_BINARY [CYCLES] [WARMUP]     (loopback only, no root; default 1000 and 10)
Prints one JSON line.
"""
import http.client
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time

# The RSS growth allowed between the warm-up and the last cycle (issue 20, item 2).
TARGET_GROWTH_KB = 5 * 1024
# Time for closes queued on the server's event loops to run before the last sample.
SETTLE_SECONDS = 2.0
# A sha-256 fingerprint (any: the viewer never runs DTLS).
FINGERPRINT = ("sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:3C:A5:87:1A:93:4A:9C:4F:EE:"
               "5E:2D:2C")


def offer():
    """A recvonly offer as a WHEP player writes it: H.264 42e01f mode 1 with RTX, NACK, PLI, FIR, REMB."""
    ufrag = secrets.token_hex(4)
    pwd = secrets.token_hex(12)
    lines = [
        "v=0", f"o=- {secrets.randbelow(1 << 62)} 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0",
        "a=msid-semantic: WMS",
        "m=video 9 UDP/TLS/RTP/SAVPF 102 103", "c=IN IP4 0.0.0.0", "a=rtcp:9 IN IP4 0.0.0.0",
        "a=candidate:1 1 udp 2122260223 127.0.0.1 9 typ host generation 0",
        f"a=ice-ufrag:{ufrag}", f"a=ice-pwd:{pwd}", f"a=fingerprint:{FINGERPRINT}", "a=setup:actpass", "a=mid:0",
        "a=recvonly", "a=rtcp-mux", "a=rtcp-rsize",
        "a=rtpmap:102 H264/90000", "a=rtcp-fb:102 goog-remb", "a=rtcp-fb:102 nack", "a=rtcp-fb:102 nack pli",
        "a=rtcp-fb:102 ccm fir",
        "a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
        "a=rtpmap:103 rtx/90000", "a=fmtp:103 apt=102",
    ]
    return "\r\n".join(lines) + "\r\n"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def request(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        reply = connection.getresponse()
        return reply.status, reply.getheader("Location"), reply.read()
    finally:
        connection.close()


def wait_listening(port, server, log, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            log.seek(0)
            raise SystemExit(f"rtc-h264 exited with {server.returncode}: {log.read().decode()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("rtc-h264 serve did not listen")


def join(port):
    """Answers one viewer (POST /whep with a fresh offer); returns its Location."""
    status, location, body = request(port, "POST", "/whep", offer(), {"Content-Type": "application/sdp"})
    if status != 201 or not location:
        raise SystemExit(f"POST /whep answered {status}: {body[:200]!r}")
    return location


def stop(server):
    """Ends `rtc-h264 serve` with SIGTERM, or SIGKILL when it has not ended 10 s later."""
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()


def cycle(port):
    location = join(port)
    status, _, body = request(port, "DELETE", location)
    if status != 200:
        raise SystemExit(f"DELETE {location} answered {status}: {body[:200]!r}")


def main():
    binary = sys.argv[1]
    cycles = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    warmup = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    port = free_port()
    log = tempfile.TemporaryFile()
    server = subprocess.Popen(
        [binary, "serve", "--whep", f"127.0.0.1:{port}", "--size", "640x360", "--fps", "30", "--bitrate", "800k",
         "--quiet"],
        stdout=subprocess.DEVNULL, stderr=log)
    try:
        wait_listening(port, server, log)
        time.sleep(1)
        start = {"rss_kb": rss_kb(server.pid), "fds": fds(server.pid)}
        started = time.monotonic()
        for _ in range(warmup):
            cycle(port)
        time.sleep(SETTLE_SECONDS)
        after_warmup = {"rss_kb": rss_kb(server.pid), "fds": fds(server.pid)}
        for done in range(warmup, cycles):
            cycle(port)
            if (done + 1) % 100 == 0:
                print(f"{done + 1} cycles: RSS {rss_kb(server.pid) / 1024:.1f} MB", file=sys.stderr)
        time.sleep(SETTLE_SECONDS)
        end = {"rss_kb": rss_kb(server.pid), "fds": fds(server.pid)}
        growth = end["rss_kb"] - after_warmup["rss_kb"]
        print(json.dumps({
            "cycles": cycles, "warmup": warmup, "seconds": round(time.monotonic() - started, 1),
            "start": start, "after_warmup": after_warmup, "end": end,
            "growth_kb": growth, "growth_per_cycle_kb": round(growth / max(1, cycles - warmup), 2),
            "target_kb": TARGET_GROWTH_KB, "met": growth <= TARGET_GROWTH_KB and end["fds"] <= after_warmup["fds"],
        }))
    finally:
        stop(server)


if __name__ == "__main__":
    main()
