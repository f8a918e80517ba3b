#!/usr/bin/env python3
"""Drip connections against one of rtc-h264's HTTP endpoints (issue 20, item 3), and what a legitimate client sees.

Opens --connections TCP connections to 127.0.0.1:PORT from the loopback addresses --sources (127.0.0.2-127.0.0.5
by default: an attacker's few hosts), each sending a request head one byte every --interval seconds and, when the
server closes it, connecting again after --interval (as a patient attacker would). Meanwhile, every --probe-every
seconds, a legitimate client on 127.0.0.1 sends one whole request on a fresh connection and times the reply; the
server's CPU (utime + stime from /proc/PID/stat) and RSS (VmRSS) are sampled over each probe period. The same is
measured --settle seconds before the drip starts and after every drip connection has closed.

Only loopback addresses are ever connected to; the run is bounded by --duration and --max-connects.
Prints a summary and writes it as JSON to --out when given.
"""
import argparse
import errno
import json
import os
import selectors
import socket
import sys
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime (fields 14 and 15)


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def open_fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def legit_request(port, request, source="127.0.0.1", timeout=10.0):
    """One whole request on a fresh connection: (seconds to the whole reply or to the failure, status or an error)."""
    start = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0)) as s:
            s.sendall(request)
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/") else "no reply"
    except OSError as e:
        status = errno.errorcode.get(e.errno, type(e).__name__) if e.errno else type(e).__name__
    return time.monotonic() - start, status


class Dripper:
    """The drip connections, driven by one selector."""

    def __init__(self, port, sources, count, interval, head, max_connects, prefill):
        self.port, self.sources, self.count, self.interval, self.head = port, sources, count, interval, head
        self.prefill = prefill
        self.max_connects = max_connects
        self.selector = selectors.DefaultSelector()
        self.slots = [None] * count  # per slot: [socket, next byte index, next send time] or None
        self.reconnect_at = [0.0] * count
        self.connects = 0
        self.closed_by_server = 0
        self.refusals = 0  # replies that were a 503
        self.lifetimes = []

    def open(self, i, now):
        if self.connects >= self.max_connects:
            return
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind((self.sources[i % len(self.sources)], 0))
            s.connect_ex(("127.0.0.1", self.port))
        except OSError:
            s.close()
            self.reconnect_at[i] = now + self.interval
            return
        self.connects += 1
        self.slots[i] = [s, 0, now + (0.05 if self.prefill else self.interval), now]
        self.selector.register(s, selectors.EVENT_READ, i)

    def drop(self, i, now, by_server):
        s = self.slots[i][0]
        self.lifetimes.append(now - self.slots[i][3])
        self.selector.unregister(s)
        s.close()
        self.slots[i] = None
        self.reconnect_at[i] = now + self.interval
        if by_server:
            self.closed_by_server += 1

    def open_count(self):
        return sum(1 for slot in self.slots if slot is not None)

    def start(self):
        now = time.monotonic()
        for i in range(self.count):
            self.open(i, now)

    def run_for(self, seconds, reconnect=True):
        end = time.monotonic() + seconds
        while True:
            now = time.monotonic()
            if now >= end:
                return
            for key, _ in self.selector.select(timeout=min(0.05, end - now)):
                i = key.data
                try:
                    data = key.fileobj.recv(65536)
                except OSError:
                    data = b""
                if data.startswith(b"HTTP/1.1 503"):
                    self.refusals += 1
                if not data:
                    self.drop(i, time.monotonic(), True)
            now = time.monotonic()
            for i in range(self.count):
                slot = self.slots[i]
                if slot is None:
                    if reconnect and now >= self.reconnect_at[i]:
                        self.open(i, now)
                    continue
                if now >= slot[2]:
                    start = slot[1] % len(self.head)
                    size = self.prefill - slot[1] if slot[1] < self.prefill else 1
                    try:
                        slot[1] += slot[0].send(self.head[start:start + size])
                    except BlockingIOError:
                        pass
                    except OSError:
                        self.drop(i, now, True)
                        continue
                    slot[2] = now + (0.05 if slot[1] < self.prefill else self.interval)

    def close_all(self):
        now = time.monotonic()
        for i in range(self.count):
            if self.slots[i] is not None:
                self.drop(i, now, False)


def measure(pid, port, request, seconds, probe_every, dripper=None, label=""):
    """Probes every probe_every seconds for `seconds`; returns the probes (latency, status, cpu %, rss, fds)."""
    probes = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        cpu0, t0 = cpu_seconds(pid), time.monotonic()
        if dripper:
            dripper.run_for(probe_every)
        else:
            time.sleep(probe_every)
        latency, status = legit_request(port, request)
        cpu1, t1 = cpu_seconds(pid), time.monotonic()
        probe = {
            "latency_ms": round(latency * 1000, 1), "status": status,
            "cpu_percent": round(100 * (cpu1 - cpu0) / (t1 - t0), 1), "rss_mb": round(rss_mb(pid), 1),
            "server_fds": open_fds(pid),
        }
        if dripper:
            probe["drip_open"] = dripper.open_count()
        probes.append(probe)
        print(f"  {label:6s} {probe}", flush=True)
    return probes


def summary(probes):
    latencies = sorted(p["latency_ms"] for p in probes)
    statuses = {}
    for p in probes:
        statuses[p["status"]] = statuses.get(p["status"], 0) + 1
    return {
        "probes": len(probes), "statuses": statuses,
        "latency_ms_median": latencies[len(latencies) // 2], "latency_ms_max": latencies[-1],
        "cpu_percent_mean": round(sum(p["cpu_percent"] for p in probes) / len(probes), 1),
        "cpu_percent_max": max(p["cpu_percent"] for p in probes),
        "rss_mb_max": max(p["rss_mb"] for p in probes), "rss_mb_last": probes[-1]["rss_mb"],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pid", type=int, required=True, help="the server's process id")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--endpoint", choices=["whep", "control"], default="whep")
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--sources", default="127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between a drip's bytes")
    parser.add_argument("--duration", type=float, default=40.0, help="seconds of drip")
    parser.add_argument("--settle", type=float, default=6.0, help="seconds measured before and after")
    parser.add_argument("--probe-every", type=float, default=2.0)
    parser.add_argument("--max-connects", type=int, default=20000)
    parser.add_argument("--prefill", type=int, default=0,
                        help="bytes of the head each connection sends at once before it drips (the issue's 75000)")
    parser.add_argument("--out")
    args = parser.parse_args()

    if args.endpoint == "whep":
        request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        head = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: " + b"a" * 200000
    else:
        body = b'{"bitrate":"800k"}'
        request = (b"POST /bitrate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
        head = b"POST /bitrate HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: " + b"a" * 200000
    sources = [s.strip() for s in args.sources.split(",") if s.strip()]
    assert all(s.startswith("127.") for s in sources), "loopback sources only"

    print(f"before ({args.settle:.0f} s)", flush=True)
    before = measure(args.pid, args.port, request, args.settle, args.probe_every, label="before")
    dripper = Dripper(args.port, sources, args.connections, args.interval, head, args.max_connects, args.prefill)
    print(f"drip: {args.connections} connections from {', '.join(sources)}, {args.prefill} bytes then 1 byte / {args.interval:g} s, "
          f"{args.duration:.0f} s", flush=True)
    dripper.start()
    during = measure(args.pid, args.port, request, args.duration, args.probe_every, dripper, label="drip")
    same_address = [legit_request(args.port, request, source=sources[0]) for _ in range(3)]
    dripper.close_all()
    print(f"after ({args.settle:.0f} s)", flush=True)
    after = measure(args.pid, args.port, request, args.settle, args.probe_every, label="after")
    result = {
        "endpoint": args.endpoint, "connections": args.connections, "prefill": args.prefill, "sources": sources, "interval_s": args.interval,
        "duration_s": args.duration,
        "before": summary(before), "during": summary(during), "after": summary(after),
        "from_a_dripping_address": [{"latency_ms": round(l * 1000, 1), "status": s} for l, s in same_address],
        "drip": {
            "connects": dripper.connects, "closed_by_server": dripper.closed_by_server,
            "refused_503": dripper.refusals,
            "median_lifetime_s": round(sorted(dripper.lifetimes)[len(dripper.lifetimes) // 2], 1)
            if dripper.lifetimes else None,
        },
    }
    print(json.dumps(result, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
