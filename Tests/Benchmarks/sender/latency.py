#!/usr/bin/env python3
"""Latency benchmark of issue 10 (item 3), driven by Tests/Benchmarks/run-sender.sh latency (or run directly).

While `rtc-h264 send` sends the built-in pattern at 1280x720, 30 fps in real time (plain RTP, RTCP multiplexed) to a
UDP socket this script owns, with `--control 127.0.0.1:PORT` and `--stats FILE`, it measures two things in one
single-threaded select loop (no thread of this script competes with another for the GIL):

  control   ~10 `GET /stats` requests a second (every 100 +- 30 ms, uniform), each on a fresh TCP connection
            (`Connection: close`): time from connect() to the last byte of the body (Content-Length), in ms.
  PLI       every 1000 +- 100 ms (uniform: the jitter is wider than a frame interval, so PLIs land at every phase of
            the 30 fps grid) an RR + PLI compound (RFC 3550 6.4.2, RFC 4585 6.3.1; media SSRC taken from the RTP
            packets) to the sender's RTP source port (RTCP is multiplexed): time from sendto() to the arrival of the
            first packet of the next frame that starts an IDR (SPS/PPS/IDR NAL, STAP-A holding one, or FU-A start of
            an IDR). Arrival is the kernel's receive timestamp (SO_TIMESTAMPNS, CLOCK_REALTIME), so the script's own
            scheduling delay on a loaded machine does not count; the PLI's send time is taken on the same clock just
            before sendto().

The sender's own figure, `keyframeRequestLatency` (PLI received -> first packet of the IDR handed to the socket), is
read from every `GET /stats` reply (one new value per keyframe: the replies come 10 times a second, the keyframes once
a second) and, as the issue asks, from the `--stats` lines (once a second, so only the latest keyframe of each second).

Several binaries can be given (`--bin LABEL=PATH`); rounds alternate them, the order reversed every other round
(ABBA), and a side-by-side table (Markdown) ends the output. Raw samples go to OUT/latency-LABEL-ROUND.json.
No SRTP (nothing secret on the command line); traffic only on 127.0.0.1.
"""
import argparse
import errno
import json
import os
import random
import selectors
import socket
import statistics
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rtp_probe import RTCP_PT_RANGE, pli_packet, starts_idr  # noqa: E402
PROBE_SSRC = 0x5EC0FFEE
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
CONTROL_TIMEOUT = 5.0




def free_tcp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def realtime_now():
    return time.clock_gettime(time.CLOCK_REALTIME)


class ControlRequest:
    """One `GET /stats` on its own non-blocking connection."""

    def __init__(self, port):
        self.port = port
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setblocking(False)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.request = (f"GET /stats HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n").encode()
        self.buffer = b""
        self.sent = False
        self.start = time.monotonic()
        self.start_realtime = realtime_now()
        code = self.sock.connect_ex(("127.0.0.1", port))
        if code not in (0, errno.EINPROGRESS):
            raise OSError(code, os.strerror(code))

    def on_writable(self):
        err = self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err:
            raise OSError(err, os.strerror(err))
        self.sock.send(self.request)
        self.sent = True

    def on_readable(self):
        """Returns (status, body) when the reply is complete, None while it is not; raises on a closed connection."""
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed after {len(self.buffer)} bytes")
        self.buffer += chunk
        head, sep, body = self.buffer.partition(b"\r\n\r\n")
        if not sep:
            return None
        lines = head.decode(errors="replace").split("\r\n")
        status = int(lines[0].split()[1])
        length = None
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if length is None or len(body) < length:
            return None
        return status, body[:length]

    def close(self):
        self.sock.close()


def percentile(values, q):
    """Linear interpolation between closest ranks (numpy's default)."""
    if not values:
        return float("nan")
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def describe(values):
    if not values:
        return "n=0"
    return (f"n={len(values)} p50 {percentile(values, 50):.2f} / p99 {percentile(values, 99):.2f} / "
            f"max {max(values):.2f} ms (min {min(values):.2f}, mean {statistics.fmean(values):.2f})")


def run_once(label, binary, a, round_index):
    stats_path = os.path.join(a.out, f"latency-{label}-{round_index}-stats.jsonl")
    if os.path.exists(stats_path):
        os.remove(stats_path)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    udp.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    rtp_port = udp.getsockname()[1]
    control_port = free_tcp_port()
    cmd = [binary, "send", "--to", f"127.0.0.1:{rtp_port}", "--no-srtp", "--duration", str(a.duration),
           "--control", f"127.0.0.1:{control_port}", "--stats", stats_path, "--quiet",
           "--bitrate", "1.5M", "--profile", "baseline", "--threads", "1"]
    load = open("/proc/loadavg").read().split()[:3]
    print(f"-- {label} round {round_index} (load {' '.join(load)}): {' '.join(cmd)}", flush=True)
    t_start = time.monotonic()
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE)

    sel = selectors.DefaultSelector()
    sel.register(udp, selectors.EVENT_READ, "udp")
    media_ssrc = sender_addr = None
    first_packet = None
    last_ts = None
    next_pli = next_control = None
    pending_pli = None  # [sent realtime, non-IDR frames started since]
    pli_ms, frames_between = [], []
    plis_sent = 0
    request = None
    control_ms, control_failures, control_statuses = [], [], {}
    control_starts = []  # CLOCK_REALTIME of each successful request's connect(), beside control_ms
    seen_keyframes = None
    reply_kf_ms = []
    packets = frames = 0
    frame_starts = []  # (arrival realtime, RTP timestamp unwrapped, starts an IDR) of each frame's first packet
    ts_unwrapped = None
    stop_control_at = t_start + a.duration - 0.3

    usage = None
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid != 0:
            proc.returncode = os.waitstatus_to_exitcode(status)
            usage = ru
            break
        now = time.monotonic()
        deadlines = [d for d in (next_pli, next_control) if d is not None]
        if request is not None:
            deadlines.append(request.start + CONTROL_TIMEOUT)
        timeout = 0.2 if not deadlines else max(0.0, min(deadlines) - now)
        for key, mask in sel.select(min(timeout, 0.2)):
            if key.data == "udp":
                while True:
                    try:
                        data, anc, _, addr = udp.recvmsg(2048, socket.CMSG_SPACE(16))
                    except BlockingIOError:
                        break
                    arrival = None
                    for level, kind, cdata in anc:
                        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(cdata) >= 16:
                            sec, nsec = struct.unpack("qq", cdata[:16])
                            arrival = sec + nsec / 1e9
                    if arrival is None:
                        arrival = realtime_now()
                    if len(data) < 12 or data[1] in RTCP_PT_RANGE:
                        continue  # the sender's SR/SDES/BYE
                    packets += 1
                    if media_ssrc is None:
                        media_ssrc = struct.unpack_from("!I", data, 8)[0]
                        sender_addr = addr
                        first_packet = time.monotonic()
                        next_pli = first_packet + a.warmup + random.uniform(0, a.pli_interval)
                        next_control = first_packet + a.warmup / 2
                    cc = data[0] & 0x0F
                    x = (data[0] >> 4) & 1
                    offset = 12 + 4 * cc
                    if x and len(data) >= offset + 4:
                        offset += 4 + 4 * struct.unpack_from("!H", data, offset + 2)[0]
                    ts = struct.unpack_from("!I", data, 4)[0]
                    if ts == last_ts:
                        continue
                    if ts_unwrapped is None:
                        ts_unwrapped = ts
                    else:
                        step = (ts - ts_unwrapped) & 0xFFFFFFFF  # forward distance modulo 2^32
                        ts_unwrapped += step if step < 1 << 31 else step - (1 << 32)
                    last_ts = ts
                    frames += 1
                    frame_starts.append((arrival, ts_unwrapped, starts_idr(data[offset:])))
                    if pending_pli is not None:
                        if starts_idr(data[offset:]):
                            pli_ms.append(1000 * (arrival - pending_pli[0]))
                            frames_between.append(pending_pli[1])
                            pending_pli = None
                        else:
                            pending_pli[1] += 1
            else:
                try:
                    if mask & selectors.EVENT_WRITE and not request.sent:
                        request.on_writable()
                        sel.modify(request.sock, selectors.EVENT_READ, "http")
                    elif mask & selectors.EVENT_READ:
                        reply = request.on_readable()
                        if reply is not None:
                            elapsed = 1000 * (time.monotonic() - request.start)
                            status, body = reply
                            control_statuses[status] = control_statuses.get(status, 0) + 1
                            if status == 200:
                                control_ms.append(elapsed)
                                control_starts.append(request.start_realtime)
                                stats = json.loads(body)
                                kf = stats.get("keyFramesEncoded")
                                if (seen_keyframes is not None and kf is not None and kf > seen_keyframes
                                        and stats.get("keyframeRequestLatency") is not None):
                                    reply_kf_ms.append(1000 * stats["keyframeRequestLatency"])
                                seen_keyframes = kf
                            else:
                                control_failures.append(f"HTTP {status}")
                            sel.unregister(request.sock)
                            request.close()
                            request = None
                except OSError as error:
                    control_failures.append(str(error))
                    sel.unregister(request.sock)
                    request.close()
                    request = None
        now = time.monotonic()
        if request is not None and now - request.start > CONTROL_TIMEOUT:
            control_failures.append("timeout")
            sel.unregister(request.sock)
            request.close()
            request = None
        if next_control is not None and now >= next_control and request is None and now < stop_control_at:
            try:
                request = ControlRequest(control_port)
                sel.register(request.sock, selectors.EVENT_WRITE, "http")
            except OSError as error:
                control_failures.append(str(error))
                request = None
            next_control = max(now, next_control + a.control_interval + random.uniform(-0.3, 0.3) * a.control_interval)
        if next_pli is not None and now >= next_pli and pending_pli is None and now < stop_control_at - 0.2:
            packet = pli_packet(PROBE_SSRC, media_ssrc)
            pending_pli = [realtime_now(), 0]
            udp.sendto(packet, ("127.0.0.1", sender_addr[1]))
            plis_sent += 1
            next_pli += a.pli_interval + random.uniform(-0.1, 0.1)
    err = proc.stderr.read().decode(errors="replace")
    wall = time.monotonic() - t_start
    if request is not None:
        request.close()
    udp.close()
    if proc.returncode != 0:
        sys.exit(f"sender failed ({proc.returncode}):\n{err}")
    lines = [json.loads(x) for x in open(stats_path) if x.strip()]
    file_kf_ms = []
    previous = None
    for s in lines:
        kf = s.get("keyFramesEncoded", 0)
        if previous is not None and kf > previous and s.get("keyframeRequestLatency") is not None:
            file_kf_ms.append(1000 * s["keyframeRequestLatency"])
        previous = kf
    last = lines[-1] if lines else {}
    # Each frame's first packet against its RTP timestamp (new: the capture time; old: the tick that encoded it):
    # arrival - ts/90000, minus the smallest over the run. That is the frame's own encode + packetize + send delay
    # (above the run's fastest frame), without the wait for the next frame slot that a PLI adds.
    offsets = [(arr - ts / 90000.0, idr) for arr, ts, idr in frame_starts[1:]]
    base = min(o for o, _ in offsets) if offsets else 0
    idr_delay_ms = [1000 * (o - base) for o, idr in offsets if idr]
    p_delay_ms = [1000 * (o - base) for o, idr in offsets if not idr]
    failures = len(control_failures)
    print(f"   control GET /stats: {describe(control_ms)}; failures {failures}"
          f"{' (' + ', '.join(sorted(set(control_failures))) + ')' if failures else ''}")
    print(f"   PLI -> IDR on the wire: {describe(pli_ms)}; PLIs sent {plis_sent}, sender pliCount {last.get('pliCount')}")
    print(f"   sender keyframeRequestLatency (GET /stats replies): {describe(reply_kf_ms)}")
    print(f"   sender keyframeRequestLatency (--stats lines):     {describe(file_kf_ms)}")
    print(f"   frame's first packet after its RTP timestamp, above the run's fastest frame: IDR {describe(idr_delay_ms)};"
          f" P {describe(p_delay_ms)}")
    # Requests that began while a frame was (probably) being encoded: the next frame's first packet arrived less than
    # the run's mean encode time after the request started. Encoding on the I/O loop (before) delays exactly these.
    mean_encode_ms = 1000 * last.get("totalEncodeTime", 0) / max(1, last.get("framesEncoded", 1))
    arrivals = sorted(arr for arr, _, _ in frame_starts)
    during_ms, outside_ms = [], []
    j = 0
    for start, ms in sorted(zip(control_starts, control_ms)):
        while j < len(arrivals) and arrivals[j] < start:
            j += 1
        if j < len(arrivals) and 1000 * (arrivals[j] - start) < mean_encode_ms:
            during_ms.append(ms)
        else:
            outside_ms.append(ms)
    print(f"   control, request began < {mean_encode_ms:.1f} ms (mean encode) before a frame's first packet: "
          f"{describe(during_ms)}")
    print(f"   control, other requests: {describe(outside_ms)}")
    cpu = usage.ru_utime + usage.ru_stime
    print(f"   sender process: cpu {cpu:.3f} s (u {usage.ru_utime:.3f} s {usage.ru_stime:.3f}) = {100 * cpu / wall:.2f}% of"
          f" one core, max RSS {usage.ru_maxrss / 1024:.1f} MB")
    print(f"   non-IDR frames started between PLI and IDR: "
          f"{dict(sorted((k, frames_between.count(k)) for k in set(frames_between)))}; packets {packets}, frames {frames};"
          f" sender framesEncoded {last.get('framesEncoded')}, keyFramesEncoded {last.get('keyFramesEncoded')},"
          f" framesDropped {last.get('framesDropped', '-')}, framesSkipped {last.get('framesSkipped')},"
          f" mean encode {1000 * last.get('totalEncodeTime', 0) / max(1, last.get('framesEncoded', 1)):.2f} ms/frame;"
          f" wall {wall:.1f} s", flush=True)
    result = {"label": label, "binary": binary, "round": round_index, "load": load, "control_ms": control_ms, "control_starts": control_starts,
              "frame_arrivals": arrivals,
              "control_during_encode_ms": during_ms, "control_outside_encode_ms": outside_ms,
              "control_failures": control_failures, "pli_ms": pli_ms, "frames_between": frames_between,
              "reply_keyframe_ms": reply_kf_ms, "idr_delay_ms": idr_delay_ms, "p_delay_ms": p_delay_ms, "file_keyframe_ms": file_kf_ms, "plis_sent": plis_sent,
              "last_stats": last, "cpu_percent": 100 * cpu / wall, "maxrss_mb": usage.ru_maxrss / 1024}
    with open(os.path.join(a.out, f"latency-{label}-{round_index}.json"), "w") as f:
        json.dump(result, f)
    return result


def table(labels, results):
    def pooled(label, key):
        return [x for r in results if r["label"] == label for x in r[key]]

    def cell(values, fmt):
        return fmt(values) if values else "-"

    rows = []
    metrics = (("control GET /stats", "control_ms"),
               ("control, begun during an encode", "control_during_encode_ms"),
               ("control, other", "control_outside_encode_ms"), ("PLI -> first IDR packet (wire)", "pli_ms"),
               ("keyframeRequestLatency (replies)", "reply_keyframe_ms"),
               ("keyframeRequestLatency (--stats)", "file_keyframe_ms"),
               ("IDR first packet after its RTP time (above fastest frame)", "idr_delay_ms"),
               ("P first packet after its RTP time (above fastest frame)", "p_delay_ms"))
    header = "| metric (ms) | " + " | ".join(labels) + " |"
    rows.append(header)
    rows.append("|---|" + "---|" * len(labels))
    for name, key in metrics:
        stats = [("p50", lambda v: percentile(v, 50))]
        if key.startswith("control"):
            stats += [("p90", lambda v: percentile(v, 90)), ("p95", lambda v: percentile(v, 95))]
        stats += [("p99", lambda v: percentile(v, 99)), ("max", max)]
        for stat, fn in stats:
            rows.append(f"| {name} {stat} | " + " | ".join(
                cell(pooled(l, key), lambda v: f"{fn(v):.2f}") for l in labels) + " |")
        rows.append(f"| {name} n | " + " | ".join(str(len(pooled(l, key))) for l in labels) + " |")
        if key.startswith("control"):
            for limit in (2, 10):
                rows.append(f"| {name} over {limit} ms | " + " | ".join(
                    cell(pooled(l, key), lambda v: f"{100 * sum(x > limit for x in v) / len(v):.1f}%") for l in labels) + " |")
    def stat_sum(label, name):
        values = [r["last_stats"].get(name) for r in results if r["label"] == label]
        return "-" if any(v is None for v in values) else str(sum(values))

    rows.append("| frames encoded / dropped (newest wins) / skipped (rate control), all runs | " + " | ".join(
        f"{stat_sum(l, 'framesEncoded')} / {stat_sum(l, 'framesDropped')} / {stat_sum(l, 'framesSkipped')}"
        for l in labels) + " |")
    rows.append("| sender CPU, % of one core (median of runs) | " + " | ".join(
        f"{statistics.median(r['cpu_percent'] for r in results if r['label'] == l):.2f}" for l in labels) + " |")
    rows.append("| control failures | " + " | ".join(
        str(sum(len(r["control_failures"]) for r in results if r["label"] == l)) for l in labels) + " |")
    rows.append("| runs (load at start) | " + " | ".join(
        ", ".join(r["load"][0] for r in results if r["label"] == l) for l in labels) + " |")
    print("\n".join(rows))
    print("\nper run (p50 / p99 / max, ms):")
    for r in results:
        parts = []
        for name, key in (("control", "control_ms"), ("PLI->IDR", "pli_ms"), ("kfLatency", "reply_keyframe_ms")):
            v = r[key]
            parts.append(f"{name} {percentile(v, 50):.2f} / {percentile(v, 99):.2f} / {max(v) if v else float('nan'):.2f}")
        print(f"  {r['label']:8s} round {r['round']} load {r['load'][0]}: " + "; ".join(parts))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", action="append", required=True, metavar="LABEL=PATH",
                   help="an rtc-h264 binary to measure (repeat to compare; rounds alternate them)")
    p.add_argument("--out", default="out")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--duration", type=float, default=30)
    p.add_argument("--warmup", type=float, default=1.0, help="seconds after the first RTP packet before the first PLI")
    p.add_argument("--pli-interval", type=float, default=1.0)
    p.add_argument("--control-interval", type=float, default=0.1)
    a = p.parse_args()
    bins = []
    for spec in a.bin:
        label, sep, path = spec.partition("=")
        if not sep or not os.access(path, os.X_OK):
            sys.exit(f"--bin wants LABEL=PATH to an executable: {spec}")
        bins.append((label, path))
    os.makedirs(a.out, exist_ok=True)
    print(f"== latency: built-in pattern 1280x720 @30 real time, plain RTP, RTCP muxed, CBR 1.5 Mbit/s, Constrained"
          f" Baseline, 1 thread, {a.duration:.0f} s per run; GET /stats every {1000 * a.control_interval:.0f} +- 30%"
          f" ms; PLI every {1000 * a.pli_interval:.0f} +- 100 ms; {a.rounds} rounds, order ABBA")
    print(f"machine: {os.cpu_count()} cores, load {' '.join(open('/proc/loadavg').read().split()[:3])}")
    results = []
    for round_index in range(1, a.rounds + 1):
        order = bins if round_index % 2 == 1 else list(reversed(bins))
        for label, path in order:
            results.append(run_once(label, path, a, round_index))
    print("\n== side by side (all rounds pooled)")
    table([l for l, _ in bins], results)


if __name__ == "__main__":
    main()
