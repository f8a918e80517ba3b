#!/usr/bin/env python3
"""The CPU one Prometheus scrape costs a WHEP server with VIEWERS viewers (issue 26's target: at most 2 ms).

Starts `rtc-h264 serve --whep 127.0.0.1:PORT --control 127.0.0.1:CPORT` (the built-in pattern, 640x360 at 30 fps),
answers VIEWERS viewers (POST /whep with a recvonly offer whose candidate is the discard port: each viewer has its
session, its socket and its statistics, and never connects), then measures the server's CPU time (utime + stime in
/proc/PID/stat) over SECONDS without scrapes and over SECONDS of back-to-back `GET /metrics` on one keep-alive
connection, as Prometheus scrapes; three such rounds (a viewer that never connects lasts 15 s). The cost of a scrape is the difference divided by the scrapes made. Every scrape
is checked: status 200, one `rtc_h264_whep_viewers VIEWERS` sample and per-viewer samples for every viewer.

Usage: scrape.py RTC_H264_BINARY [VIEWERS] [SECONDS]     (loopback only, no root; default 8 and 5)
Prints one JSON line.
"""
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from churn import free_port, join, request, stop, wait_listening  # noqa: E402

TARGET_MS = 2.0
ROUNDS = 3
TICKS = os.sysconf("SC_CLK_TCK")


def user_system_seconds(pid):
    """utime and stime (fields 14 and 15 of /proc/PID/stat), seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICKS, int(fields[12]) / TICKS


def cpu_seconds(pid):
    return sum(user_system_seconds(pid))


def main():
    binary = sys.argv[1]
    viewers = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
    port, control = free_port(), free_port()
    log = tempfile.TemporaryFile()
    server = subprocess.Popen(
        [binary, "serve", "--whep", f"127.0.0.1:{port}", "--control", f"127.0.0.1:{control}", "--size", "640x360",
         "--fps", "30", "--bitrate", "800k", "--max-viewers", str(max(viewers, 1)), "--quiet"],
        stdout=subprocess.DEVNULL, stderr=log)
    try:
        wait_listening(port, server, log)
        wait_listening(control, server, log)
        idle = busy = elapsed = 0.0
        scrapes, size, text = 0, 0, ""
        # A viewer that never connects is dropped after the server's connect timeout (15 s): each round answers
        # VIEWERS new ones, measures within that time, then ends them with DELETE.
        for _ in range(ROUNDS):
            locations = [join(port) for _ in range(viewers)]
            time.sleep(0.5)
            idle_start = cpu_seconds(server.pid)
            time.sleep(seconds)
            idle += cpu_seconds(server.pid) - idle_start
            connection = http.client.HTTPConnection("127.0.0.1", control, timeout=10)
            busy_start, started = cpu_seconds(server.pid), time.monotonic()
            while time.monotonic() - started < seconds:
                connection.request("GET", "/metrics")
                reply = connection.getresponse()
                text = reply.read().decode()
                if reply.status != 200:
                    raise SystemExit(f"GET /metrics answered {reply.status}: {text[:200]!r}")
                if f"rtc_h264_whep_viewers {viewers}" not in text:
                    raise SystemExit(f"the scrape does not count {viewers} viewers: {text[:400]!r}")
                labelled = set(re.findall(r'viewer="([0-9a-f]+)"', text))
                if len(labelled) != viewers:
                    raise SystemExit(f"the scrape labels {len(labelled)} viewers, not {viewers}")
                scrapes, size = scrapes + 1, len(text)
            elapsed += time.monotonic() - started
            busy += cpu_seconds(server.pid) - busy_start
            connection.close()
            for location in locations:
                request(port, "DELETE", location)
        extra = busy - idle * elapsed / (seconds * ROUNDS)
        per_scrape_ms = 1000 * extra / max(1, scrapes)
        print(json.dumps({
            "viewers": viewers, "scrapes": scrapes, "rounds": ROUNDS, "scraping_seconds": round(elapsed, 1),
            "scrape_bytes": size, "samples": sum(1 for line in text.splitlines() if line and line[0] != "#"),
            "idle_cpu_s": round(idle, 2), "busy_cpu_s": round(busy, 2),
            "cpu_ms_per_scrape": round(per_scrape_ms, 3), "target_ms": TARGET_MS, "met": per_scrape_ms <= TARGET_MS,
        }))
    finally:
        stop(server)


if __name__ == "__main__":
    main()
