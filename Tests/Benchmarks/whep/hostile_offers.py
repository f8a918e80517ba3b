#!/usr/bin/env python3
"""Issue 20, item 1: how long `serve --whep` takes to answer offers of at most 64 KiB built to cost payload types x
lines (a payload type repeated on the m= line, one a=fmtp with thousands of parameters, thousands of a=rtcp-fb:*
lines), and how much its RSS grows. Target: every offer answered in under 50 ms, RSS growth under 2 MB.
The cases are those of Tests/TestSupport/HostileOffers.swift, built from a minimal recvonly WHEP offer."""
import argparse
import http.client
import os
import socket
import subprocess
import sys
import time

LIMIT = 64 * 1024
PT = 35
FINGERPRINT = "sha-256 " + ":".join("%02X" % b for b in range(16, 48))


def base_offer():
    return "\r\n".join([
        "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0",
        "m=video 9 UDP/TLS/RTP/SAVPF 96 97", "c=IN IP4 0.0.0.0", "a=mid:0",
        "a=ice-ufrag:abcd", "a=ice-pwd:0123456789abcdefghijklmn", "a=fingerprint:" + FINGERPRINT,
        "a=setup:actpass", "a=recvonly", "a=rtcp-mux", "a=rtpmap:96 H264/90000",
        "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
        "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
        "a=candidate:1 1 udp 2122260223 127.0.0.1 9 typ host", ""])


def rewrite(offer, formats, extra):
    lines = offer.split("\r\n")
    i = next(n for n, line in enumerate(lines) if line.startswith("m=video "))
    lines[i] = " ".join(lines[i].split(" ")[:3] + formats) + "\r\n" + extra.rstrip("\r\n")
    return "\r\n".join(lines)


def make(offer, repeats, parameters, feedback, length):
    extra = "a=rtpmap:%d H264/90000\r\n" % PT
    extra += "a=fmtp:%d " % PT + "a;" * parameters + "packetization-mode=1;profile-level-id=42e01f\r\n"
    for i in range(feedback):
        v = str(i)
        extra += "a=rtcp-fb:* " + v + "x" * max(0, length - len(v)) + "\r\n"
    return rewrite(offer, [str(PT)] * repeats, extra)


def cases():
    offer = base_offer()
    base = make(offer, 10_500, 0, 0, 0)
    filled = make(offer, 10_500, (LIMIT - len(base.encode())) // 2, 0, 0)
    distinct = "".join("a=rtpmap:%d H264/90000\r\na=fmtp:%d packetization-mode=1;profile-level-id=42e01f\r\n" % (t, t)
                       for t in range(127)) + "".join("a=rtcp-fb:* f%d\r\n" % i for i in range(2000))
    return [
        ("a normal offer", offer),
        ("3,000 x PT, a=fmtp of 3,000 parameters", make(offer, 3000, 3000, 0, 0)),
        ("10,500 x PT, a=fmtp filling 64 KiB", filled),
        ("1,000 x PT, 3,000 a=rtcp-fb:*", make(offer, 1000, 0, 3000, 1)),
        ("2,000 x PT, 20 a=rtcp-fb:* of 2,000 bytes", make(offer, 2000, 0, 20, 2000)),
        ("127 distinct H.264 types, 2,000 a=rtcp-fb:*", rewrite(offer, [str(t) for t in range(127)], distinct)),
    ]


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def post(port, body):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    started = time.monotonic()
    conn.request("POST", "/whep", body=body.encode(), headers={"Content-Type": "application/sdp"})
    reply = conn.getresponse()
    data = reply.read()
    elapsed = (time.monotonic() - started) * 1000
    location = reply.getheader("Location")
    conn.close()
    if location:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("DELETE", location)
        conn.getresponse().read()
        conn.close()
    return reply.status, elapsed, len(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtc-h264", required=True)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([args.rtc_h264, "serve", "--whep", "127.0.0.1:%d" % port, "--size", "320x240", "--quiet"],
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        post(port, base_offer())  # warm up
        time.sleep(1)
        rss_before = rss_kb(server.pid)
        worst_ok = True
        all_cases = cases()
        times = {name: [] for name, _ in all_cases}
        statuses = {}
        rss_first = None
        for round_number in range(args.rounds):
            for name, sdp in all_cases:
                assert len(sdp.encode()) <= LIMIT, name
                statuses[name], ms, _ = post(port, sdp)
                times[name].append(ms)
            if round_number == 0:
                time.sleep(1)
                rss_first = rss_kb(server.pid)
        print("| offer | bytes | status | median ms | max ms |")
        print("|---|---|---|---|---|")
        for name, sdp in all_cases:
            t = sorted(times[name])
            if name != "a normal offer" and t[-1] >= 50:
                worst_ok = False
            print("| %s | %d | %s | %.1f | %.1f |" % (name, len(sdp.encode()), statuses[name], t[len(t) // 2], t[-1]))
        time.sleep(1)
        rss_after = rss_kb(server.pid)
        growth = (rss_first - rss_before) / 1024
        print("RSS %.1f MB before, %.1f MB after one of each offer (growth %.1f MB; target < 2 MB), %.1f MB after %d rounds"
              % (rss_before / 1024, rss_first / 1024, growth, rss_after / 1024, args.rounds))
        print("every hostile offer answered in under 50 ms: %s" % ("yes" if worst_ok else "NO"))
        return 0 if worst_ok and growth < 2 else 1
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
