#!/usr/bin/env python3
"""Network resilience benchmark (issue 12): `rtc-h264 send` -> impairment relay -> `rtc-h264 receive` on loopback.

For each case the sender streams the built-in pattern (SRTP) through Tests/Tools/ImpairmentRelay/impairment_relay.py
to the receiver, which writes the access units it reassembled as Annex-B (`receive --output x.h264`). Measured:

* frames decoded bit-exact: the sender's `--save-annexb` and the receiver's output are split into access units and
  compared byte for byte (NAL units without their start codes). With one reference frame (OpenH264 here:
  iNumRefFrame = 1, no long-term references), access unit k decodes to exactly the sender's picture when it arrived
  intact and it is an IDR or access unit k-1 did. This is exact for this encoder and costs no decoding.
* freezes: the driver samples the size of the receiver's output file every few milliseconds, so each access unit
  gets its arrival time; a bit-exact picture is shown when it arrives (never before the previous one). Longest
  gap between shown pictures, and gaps over 200 ms, measured from the first picture to the last access unit
  received. When the receiver's JSON has `freezeCount`/`longestFreeze`/`totalFreezesDuration` they are shown too.
* PLIs per minute (sent by the receiver), NACK messages received and packets resent by the sender, retransmitted
  bytes as a percentage of the media bytes (RTP payload + header), the final target bitrate, and the target over
  time from the sender's `--stats` JSON lines.

Standard library only. Never prints the SRTP key (it lives in a 0600 file in the run directory, deleted after).
"""

import argparse
import base64
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RELAY = os.path.join(HERE, "..", "..", "Tools", "ImpairmentRelay", "impairment_relay.py")
LEAD = 1.0  # seconds between the relay's start (its schedule's zero) and the sender's start

# Issue 12's measurements before NACK/RTX/pacing/congestion control (60 s, 720p at 1.5 Mbit/s, 25 ms each way).
TODAY = {
    "loss0": {"decoded": "100 %", "longest": "40 ms", "freezes": "0", "plis": "0", "nacks": "-"},
    "loss1": {"decoded": "43.6 %", "longest": "2.8 s", "freezes": "42", "plis": "51", "nacks": "0"},
    "loss2": {"decoded": "22.5 %", "longest": "3.1 s", "freezes": "44", "plis": "58", "nacks": "0"},
    "loss5": {"decoded": "5.4 %", "longest": "7.9 s", "freezes": "19", "plis": "60", "nacks": "0"},
    "loss5-nonack": {"decoded": "5.4 %", "longest": "7.9 s", "freezes": "19", "plis": "60", "nacks": "0"},
    "loss10-100ms": {"decoded": "0.6 %", "longest": "20.8 s", "freezes": "8", "plis": "63", "nacks": "0"},
    "bottleneck": {"decoded": "0.7 % (12 of 1,708)", "longest": "-", "freezes": "-", "plis": "-", "nacks": "0"},
    "steps": {"decoded": "-", "longest": "-", "freezes": "-", "plis": "-", "nacks": "-"},
    "blackout": {"decoded": "-", "longest": "-", "freezes": "-", "plis": "-", "nacks": "-"},
}


def cases(seconds):
    """The issue's target cases; times in seconds of the sender's stream (the relay's schedule adds LEAD)."""
    d25 = "delay_ms=25"
    down = round(seconds / 3, 2)
    up = round(seconds / 3 + seconds / 4, 2)
    blackout = round(seconds / 2, 2)
    return [
        dict(name="loss0", label="0 % loss, 25 ms", fwd=d25, rev=d25),
        dict(name="loss1", label="1 % loss, 25 ms", fwd=f"{d25},loss=0.01", rev=f"{d25},loss=0.01"),
        dict(name="loss2", label="2 % loss, 25 ms", fwd=f"{d25},loss=0.02", rev=f"{d25},loss=0.02"),
        dict(name="loss5", label="5 % loss, 25 ms", fwd=f"{d25},loss=0.05", rev=f"{d25},loss=0.05"),
        dict(name="loss5-nonack", label="5 % loss, 25 ms, --no-nack", fwd=f"{d25},loss=0.05",
             rev=f"{d25},loss=0.05", nonack=True),
        dict(name="loss10-100ms", label="10 % loss, 100 ms", fwd="delay_ms=100,loss=0.10",
             rev="delay_ms=100,loss=0.10"),
        dict(name="bottleneck", label="1 Mbit/s, 30-packet queue", fwd=f"{d25},rate_kbps=1000,queue=30", rev=d25),
        dict(name="steps", label=f"2M -> 500k ({down:g} s) -> 2M ({up:g} s)", fwd=f"{d25},rate_kbps=2000,queue=30",
             rev=d25, schedule=f"{LEAD + down:g}:rate_kbps=500;{LEAD + up:g}:rate_kbps=2000", down=down, up=up),
        dict(name="blackout", label=f"1 s blackout at {blackout:g} s", fwd=d25, rev=d25,
             blackout=f"{LEAD + blackout:g}:1", blackout_at=blackout),
        # Issue 24's long path: 150 ms each way, 5 % loss both ways, NACK alone and NACK + FlexFEC (--fec).
        dict(name="long5", label="5 % loss, 150 ms", fwd="delay_ms=150,loss=0.05", rev="delay_ms=150,loss=0.05"),
        dict(name="long5-fec", label="5 % loss, 150 ms, --fec", fwd="delay_ms=150,loss=0.05",
             rev="delay_ms=150,loss=0.05", fec=True),
        # Issue 24's start-up on a clean path: the operator at 4 Mbit/s, the sender starting at 300 kbit/s.
        dict(name="startup4m", label="clean, 25 ms, operator 4 Mbit/s", fwd=d25, rev=d25, bitrate="4M"),
    ]


# ---------------------------------------------------------------- Annex-B


def nal_units(data):
    """The NAL units of an Annex-B stream, without start codes or trailing zero bytes."""
    units = []
    position = data.find(b"\x00\x00\x01")
    while position >= 0:
        start = position + 3
        following = data.find(b"\x00\x00\x01", start)
        end = len(data) if following < 0 else following
        unit = data[start:end].rstrip(b"\x00") if following >= 0 else data[start:end]
        if unit:
            units.append((unit, end))
        position = following
    return units


def access_units(data):
    """Splits Annex-B into access units: [(key, is_idr, end_offset)]. A new unit starts at an AUD/SPS/PPS/SEI or at a
    slice with first_mb_in_slice = 0 once the current unit has a slice."""
    result = []
    current, has_slice, idr, end = [], False, False, 0

    def close():
        if current:
            digest = hashlib.sha1()
            for unit in current:
                digest.update(len(unit).to_bytes(4, "big"))
                digest.update(unit)
            result.append((digest.hexdigest(), idr, end))

    for unit, unit_end in nal_units(data):
        kind = unit[0] & 0x1F
        starts = False
        if kind in (6, 7, 8, 9):
            starts = has_slice
        elif kind in (1, 5):
            first_mb_zero = len(unit) > 1 and unit[1] & 0x80
            starts = has_slice and bool(first_mb_zero)
        if starts:
            close()
            current, has_slice, idr = [], False, False
        current.append(unit)
        if kind in (1, 5):
            has_slice = True
            idr = idr or kind == 5
        end = unit_end
    close()
    return result


# ---------------------------------------------------------------- running one case


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run_case(case, args, rtc, flags):
    out = os.path.join(args.out, case["name"])
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    seconds = args.seconds
    relay_port, receive_port = free_udp_port(), free_udp_port()
    while receive_port == relay_port:
        receive_port = free_udp_port()
    key_file = os.path.join(out, "key")
    sdp_file = os.path.join(out, "stream.sdp")
    descriptor = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(descriptor, base64.b64encode(os.urandom(30)) + b"\n")
    os.close(descriptor)
    ssrc = random.randint(1, 0xFFFFFFFE)
    stream = ["--to", f"127.0.0.1:{relay_port}", "--key-file", key_file, "--ssrc", str(ssrc),
              "--size", args.size, "--bitrate", case.get("bitrate", args.bitrate)]
    if flags.get("transport_cc"):
        stream += ["--transport-cc", "3"]
    if not args.no_rtx and not case.get("nonack"):
        stream += ["--rtx", "--rtx-ssrc", str(random.randint(1, 0xFFFFFFFE))]
    send_extra, receive_extra = list(args.send_extra), list(args.receive_extra)
    if case.get("fec"):
        stream += ["--fec", "--fec-ssrc", str(random.randint(1, 0xFFFFFFFE))]
    if case.get("nonack"):
        send_extra += flags["send_nonack"]
        receive_extra += flags["receive_nonack"]
    descriptor = os.open(sdp_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as sdp_out:
        subprocess.run([rtc, "sdp", *stream, *send_extra], stdout=sdp_out, check=True)

    relay_cmd = [sys.executable, RELAY, "--listen", f"127.0.0.1:{relay_port}", "--to", f"127.0.0.1:{receive_port}",
                 "--fwd", case["fwd"], "--rev", case["rev"], "--seed", str(args.seed),
                 "--duration", str(LEAD + seconds + 12), "--stats-json", os.path.join(out, "relay.json")]
    if case.get("schedule"):
        relay_cmd += ["--fwd-schedule", case["schedule"]]
    if case.get("blackout"):
        relay_cmd += ["--fwd-blackout", case["blackout"], "--rev-blackout", case["blackout"]]
    with open(os.path.join(out, "commands.txt"), "w") as commands:
        commands.write(" ".join(relay_cmd) + "\n")
    relay = subprocess.Popen(relay_cmd, stdout=open(os.path.join(out, "relay.out"), "w"), stderr=subprocess.PIPE,
                             text=True)
    relay.stderr.readline()  # "listening on ...": printed just before the relay's clock starts
    t0 = time.monotonic()

    output = os.path.join(out, "received.h264")
    receive_cmd = [rtc, "receive", "--listen", f"127.0.0.1:{receive_port}", "--sdp", sdp_file, "--output", output,
                   "--json", "--duration", str(seconds + 6), "--idle-timeout", "4", *receive_extra]
    receiver = subprocess.Popen(receive_cmd, stdout=open(os.path.join(out, "receive.json"), "w"),
                                stderr=open(os.path.join(out, "receive.err"), "w"))
    while time.monotonic() < t0 + LEAD:
        time.sleep(0.002)
    sent_file = os.path.join(out, "sent.h264")
    stats_file = os.path.join(out, "send-stats.jsonl")
    send_cmd = [rtc, "send", *stream, "--duration", str(seconds), "--stats", stats_file, "--save-annexb", sent_file,
                "--quiet", *send_extra]
    t_send = time.monotonic()
    sender = subprocess.Popen(send_cmd, stdout=open(os.path.join(out, "send.out"), "w"),
                              stderr=open(os.path.join(out, "send.err"), "w"))
    with open(os.path.join(out, "commands.txt"), "a") as commands:
        for command in (receive_cmd, send_cmd):
            commands.write(" ".join(command) + "\n")

    # Arrival times: the receiver writes each access unit with one write(2) as it completes.
    samples = []  # (seconds since the sender started, file size)
    size = 0
    deadline = t_send + seconds + 20
    while receiver.poll() is None and time.monotonic() < deadline:
        try:
            now_size = os.stat(output).st_size
        except FileNotFoundError:
            now_size = 0
        if now_size != size:
            size = now_size
            samples.append((time.monotonic() - t_send, size))
        time.sleep(0.003)
    for process in (sender, receiver):
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=10)
    relay.send_signal(signal.SIGTERM)
    relay.wait(timeout=10)
    try:
        final_size = os.stat(output).st_size
    except FileNotFoundError:
        final_size = 0
    if final_size != size:
        samples.append((time.monotonic() - t_send, final_size))
    os.unlink(key_file)
    os.unlink(sdp_file)
    result = analyse(case, out, samples, sender.returncode, receiver.returncode, seconds)
    result["size"], result["bitrate"] = args.size, case.get("bitrate", args.bitrate)
    return result


# ---------------------------------------------------------------- analysis


def load_json_lines(path):
    lines = []
    try:
        with open(path) as handle:
            for line in handle:
                line = line.strip()
                if line:
                    try:
                        lines.append(json.loads(line))
                    except ValueError:
                        pass
    except FileNotFoundError:
        pass
    return lines


def analyse(case, out, samples, send_rc, receive_rc, seconds):
    with open(os.path.join(out, "sent.h264"), "rb") as handle:
        sent = access_units(handle.read())
    try:
        with open(os.path.join(out, "received.h264"), "rb") as handle:
            received = access_units(handle.read())
    except FileNotFoundError:
        received = []
    receive_stats = (load_json_lines(os.path.join(out, "receive.json")) or [{}])[-1]
    send_stats = load_json_lines(os.path.join(out, "send-stats.jsonl"))
    last = send_stats[-1] if send_stats else {}
    try:
        relay = json.load(open(os.path.join(out, "relay.json")))
    except (FileNotFoundError, ValueError):
        relay = {}

    # Arrival time of each received access unit: the first sample whose size covers its end.
    arrivals = []
    sample_index = 0
    for _, _, end in received:
        while sample_index < len(samples) and samples[sample_index][1] < end:
            sample_index += 1
        arrivals.append(samples[sample_index][0] if sample_index < len(samples) else None)

    # Match received units to sent ones in order (each sent unit at most once).
    positions = {}
    for index, (key, _, _) in enumerate(sent):
        positions.setdefault(key, []).append(index)
    arrival_of = {}
    unmatched = 0
    cursor = -1
    for (key, _, _), arrival in zip(received, arrivals):
        candidates = [i for i in positions.get(key, []) if i > cursor]
        if not candidates:
            unmatched += 1
            continue
        cursor = candidates[0]
        arrival_of[cursor] = arrival
    exact = [False] * len(sent)
    shown = []  # display times of the bit-exact pictures
    for index, (_, idr, _) in enumerate(sent):
        if index in arrival_of and (idr or (index > 0 and exact[index - 1])):
            exact[index] = True
            arrival = arrival_of[index]
            if arrival is not None:
                shown.append(max(arrival, shown[-1]) if shown else arrival)
    last_arrival = max((a for a in arrivals if a is not None), default=None)
    gaps = [b - a for a, b in zip(shown, shown[1:])]
    if shown and last_arrival is not None and last_arrival > shown[-1]:
        gaps.append(last_arrival - shown[-1])  # frozen until the end of the stream
    decoded = sum(exact)
    minutes = seconds / 60
    media_bytes = last.get("bytesSent", 0) + last.get("headerBytesSent", 0)
    result = {
        "case": case["name"], "label": case["label"], "seconds": seconds,
        "send_rc": send_rc, "receive_rc": receive_rc,
        "frames_sent": len(sent), "frames_received": len(received), "unmatched_received": unmatched,
        "frames_exact": decoded, "exact_percent": 100 * decoded / len(sent) if sent else 0,
        "first_frame_s": shown[0] if shown else None,
        "longest_freeze_s": max(gaps) if gaps else None,
        "freezes_over_200ms": sum(1 for gap in gaps if gap > 0.2),
        "freeze_total_s": sum(gap for gap in gaps if gap > 0.2),
        # Where each freeze over 200 ms began (seconds into the run) and how long it lasted, to tell repair delays
        # (a packet whose retransmission was lost too) from machine stalls (every case at once).
        "freezes": [[round(shown_at, 3), round(gap, 3)] for shown_at, gap in zip(shown, gaps) if gap > 0.2],
        "receiver_pli": receive_stats.get("pliCount"),
        "plis_per_minute": receive_stats.get("pliCount", 0) / minutes if minutes else None,
        "sender_pli": last.get("pliCount"),
        "nack_count": last.get("nackCount"),
        "retransmitted_packets": last.get("retransmittedPacketsSent"),
        "retransmitted_bytes": last.get("retransmittedBytesSent"),
        "nack_ignored": last.get("nackRequestsIgnored"),
        "nack_ignored_detail": {k: last.get(k) for k in ("nackIgnoredNotInHistory", "nackIgnoredTooSoon",
                                                          "nackIgnoredOverBudget")},
        "rtx_percent": (100 * last.get("retransmittedBytesSent", 0) / media_bytes) if media_bytes else None,
        "fec_packets_sent": last.get("fecPacketsSent"),
        # FEC's bits over the run against the mean target (issue 24: at most 25 % at 5 % loss).
        "fec_percent_of_target": (100 * 8 * last.get("fecBytesSent", 0) / seconds
                                  / (sum(s.get("targetBitrate", 0) for s in send_stats) / len(send_stats)))
                                 if send_stats and last.get("fecBytesSent") is not None else None,
        "final_target": last.get("targetBitrate"),
        "min_target": min((s.get("targetBitrate", 0) for s in send_stats), default=None),
        "pacer_dropped": last.get("pacerPacketsDropped"),
        "keyframes_sent": last.get("keyFramesEncoded"),
        "frames_skipped": last.get("framesSkipped"),
        "target_over_time": [(round(s.get("timestamp", 0), 1), s.get("targetBitrate"), s.get("fractionLost"))
                             for s in send_stats],
        "receiver": {k: receive_stats.get(k) for k in ("packetsReceived", "packetsLost", "framesReceived",
                                                        "framesDecoded", "framesDropped", "decodeErrors",
                                                        "keyFramesDecoded", "nackCount", "packetsNACKed",
                                                        "retransmittedPacketsReceived", "packetsGivenUp", "freezeCount",
                                                        "fecPacketsReceived", "fecPacketsDiscarded", "packetsRecovered",
                                                        "longestFreeze", "totalFreezesDuration")
                     if k in receive_stats},
        "relay": {d: relay.get(d) for d in ("fwd", "rev")},
    }
    if "blackout_at" in case:
        back = case["blackout_at"] + 1.0
        after = [t for t in shown if t > back]
        result["blackout_recovery_ms"] = 1000 * (after[0] - back) if after else None
    if case["name"] == "bottleneck":
        result.update(settle(send_stats, 800_000, 1_000_000))
        # Start-up (issue 24): the target at the 3 s sample, and the packets the receiver reported lost by the 4 s
        # sample (its reports lag up to a second: about the first 3 s).
        result["target_at_3s"] = next((s.get("targetBitrate") for s in send_stats
                                       if 2.5 <= s.get("timestamp", 0) <= 3.5), None)
        result["lost_first_3s"] = max([s.get("packetsLost") or 0 for s in send_stats
                                       if s.get("timestamp", 0) <= 4.5] or [0])
        late = [s.get("fractionLost") for s in send_stats if s.get("timestamp", 0) > 10 and s.get("fractionLost")
                is not None]
        result["loss_after_10s_percent"] = 100 * sum(late) / len(late) if late else None
    if case["name"] == "startup4m":
        result["up_follow_s"] = first_time(send_stats, 0, lambda t: t >= 3_500_000)
    if case["name"] == "steps":
        result["down_follow_s"] = first_time(send_stats, case["down"], lambda t: t <= 500_000)
        result["up_follow_s"] = first_time(send_stats, case["up"], lambda t: t >= 0.9 * 1_500_000)
        result["up_window_s"] = seconds - case["up"]
    with open(os.path.join(out, "result.json"), "w") as handle:
        json.dump(result, handle, indent=1)
    return result


def settle(stats, low, high):
    """When the target entered [low, high] for good (sender's clock), or None."""
    times = [(s.get("timestamp", 0), s.get("targetBitrate", 0)) for s in stats]
    settled = None
    for t, target in times:
        if low <= target <= high:
            if settled is None:
                settled = t
        else:
            settled = None
    return {"settled_at_s": settled}


def first_time(stats, since, predicate):
    for s in stats:
        t = s.get("timestamp", 0)
        if t >= since and predicate(s.get("targetBitrate", 0)):
            return t - since
    return None


# ---------------------------------------------------------------- report


def fmt_seconds(value):
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.1f} s"


def fmt_rate(value):
    return "-" if value is None else f"{value / 1e6:.2f} M"


def verdict(r):
    """'met' or 'missed: <what>' against issue 12's targets."""
    name = r["case"]
    per_minute = r["seconds"] / 60
    misses = []
    if name in ("loss0", "loss1", "loss2", "loss5"):
        if r["exact_percent"] < 99.5:
            misses.append(f"{r['exact_percent']:.1f} % < 99.5 % decoded")
        if name != "loss0":
            if r["freezes_over_200ms"] > per_minute:
                misses.append(f"{r['freezes_over_200ms'] / per_minute:.0f} freezes > 200 ms per min (<= 1)")
            if (r["plis_per_minute"] or 0) > 2:
                misses.append(f"{r['plis_per_minute']:.0f} PLIs per min (<= 2)")
            if (r["rtx_percent"] or 0) > 10:
                misses.append(f"RTX {r['rtx_percent']:.0f} % (<= 10 %)")
    elif name in ("long5", "long5-fec"):
        recovered = r["receiver"].get("packetsRecovered") or 0
        fec = r.get("fec_percent_of_target") or 0
        text = f"{r['exact_percent']:.1f} % decoded, {r['freezes_over_200ms'] / per_minute:.0f} freezes > 200 ms " \
            f"per min, {recovered} packets recovered by FEC, FEC {fec:.1f} % of the target"
        if name == "long5":
            return "comparison only: " + text
        ok = r["exact_percent"] >= 99.5 and r["freezes_over_200ms"] <= 2 * per_minute and fec <= 25
        return ("met: " if ok else "missed: ") + text + " (>= 99.5 %, <= 2 per min, <= 25 %)"
    elif name == "loss5-nonack":
        return "comparison only (visibly worse than with NACK: " + ("yes" if r["exact_percent"] < 90 else "no") + ")"
    elif name == "loss10-100ms":
        if r["exact_percent"] < 97:
            misses.append(f"{r['exact_percent']:.1f} % < 97 % decoded")
        if (r["min_target"] or 0) < 100_000:
            misses.append("target below 100 kbit/s")
    elif name == "bottleneck":
        settled, loss = r.get("settled_at_s"), r.get("loss_after_10s_percent")
        # The stats lines come once a second a few ms after the whole second (10.002 s is the 10 s sample).
        if settled is None or settled > 10.5:
            misses.append("target never settled in 0.8-1.0 M" if settled is None else f"settled at {settled:.0f} s")
        if loss is None or loss >= 2:
            misses.append(f"RR loss after 10 s {loss:.1f} % (< 2 %)" if loss is not None else "no RR loss figure")
        if r["exact_percent"] < 95:
            misses.append(f"{r['exact_percent']:.1f} % < 95 % decoded")
        at3, lost = r.get("target_at_3s"), r.get("lost_first_3s")
        start = f"start-up: {fmt_rate(at3)} at 3 s (>= 0.8 M), {lost} packets lost in the first 3 s (<= 20)"
        if at3 is None or at3 < 800_000 or lost is None or lost > 20:
            misses.append(start)
        elif not misses:
            return "met; " + start
    elif name == "startup4m":
        up = r.get("up_follow_s")
        text = f"target >= 3.5 M {'never' if up is None else f'at {fmt_seconds(up)}'} (<= 2 s)"
        ok = up is not None and up <= 2 and r["exact_percent"] >= 99.5
        return ("met: " if ok else "missed: ") + text + f", {r['exact_percent']:.1f} % decoded"
    elif name == "steps":
        down, up = r.get("down_follow_s"), r.get("up_follow_s")
        text = f"down to <= 500k in {fmt_seconds(down) if down is not None else 'never'} (<= 5 s), " \
            f"up to >= 1.35M in {fmt_seconds(up) if up is not None else 'never'} (<= 20 s)"
        if r["up_window_s"] < 20:
            text += "; run too short to see 20 s up"
        ok = down is not None and down <= 5 and up is not None and up <= 20
        return ("met: " if ok else "missed: ") + text
    elif name == "blackout":
        ms = r.get("blackout_recovery_ms")
        text = f"first picture {'never' if ms is None else f'{ms:.0f} ms'} after the link returns (<= 1 s)"
        return ("met: " if ms is not None and ms <= 1000 else "missed: ") + text
    return "met" if not misses else "missed: " + "; ".join(misses)


def receiver_freeze(r, key):
    """The receiver's own freeze figure (browser definition) followed by '; ', when it reports one."""
    value = r["receiver"].get(key)
    if value is None:
        return ""
    return (fmt_seconds(value) if key == "longestFreeze" else str(value)) + "; "


def table(results, skipped):
    lines = [
        "| case | decoded bit-exact (today) | decoded bit-exact (now) | longest freeze: today / now (receiver; "
        "bit-exact arrivals) | freezes: today > 200 ms / now (receiver; bit-exact > 200 ms) "
        "| PLIs: today per 60 s / now per min | NACKs answered (today) "
        "| now: NACKs received / packets resent | RTX % of media | final target | target |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        # The "today" figures are for 720p at 1.5 Mbit/s only.
        same = (r.get("size", "1280x720"), r.get("bitrate", "1.5M")) == ("1280x720", "1.5M")
        today = TODAY.get(r["case"], {}) if same else {}
        nacks = "-" if r["nack_count"] is None else f"{r['nack_count']} / {r['retransmitted_packets']}"
        rtx = "-" if r["rtx_percent"] is None else f"{r['rtx_percent']:.1f} %"
        plis = "-" if r["plis_per_minute"] is None else f"{r['plis_per_minute']:.1f}"
        lines.append(
            f"| {r['label']} | {today.get('decoded', '-')} | {r['exact_percent']:.1f} % "
            f"({r['frames_exact']} of {r['frames_sent']}) | {today.get('longest', '-')} / "
            f"{receiver_freeze(r, 'longestFreeze')}{fmt_seconds(r['longest_freeze_s'])} "
            f"| {today.get('freezes', '-')} / {receiver_freeze(r, 'freezeCount')}{r['freezes_over_200ms']} "
            f"| {today.get('plis', '-')} / {plis} | {today.get('nacks', '-')} | {nacks} | {rtx} "
            f"| {fmt_rate(r['final_target'])} | {verdict(r)} |")
    for name, why in skipped:
        lines.append(f"| {name} | {TODAY.get(name, {}).get('decoded', '-')} | skipped: {why} | | | | | | | | |")
    return "\n".join(lines)


def details(results):
    lines = []
    for r in results:
        rec = r["receiver"]
        freeze = ""
        if "freezeCount" in rec:
            freeze = (f"; receiver's own freeze stats: {rec.get('freezeCount')} freezes, longest "
                      f"{fmt_seconds(rec.get('longestFreeze'))}, total {fmt_seconds(rec.get('totalFreezesDuration'))}")
        relay_fwd = r["relay"].get("fwd") or {}
        lines.append(
            f"- {r['label']}: receiver {json.dumps(rec)}; sender PLIs received {r['sender_pli']}, keyframes "
            f"{r['keyframes_sent']}, NACK requests ignored {r['nack_ignored']} {json.dumps(r['nack_ignored_detail'])}, "
            f"pacer drops {r['pacer_dropped']}, encoder skips {r['frames_skipped']}, lowest target "
            f"{fmt_rate(r['min_target'])}; relay fwd {json.dumps(relay_fwd)}{freeze}")
        if r["case"] in ("bottleneck", "steps", "blackout", "loss10-100ms"):
            series = ", ".join(f"{t:g} s {rate / 1e6:.2f}" for t, rate, _ in r["target_over_time"][::2] if rate)
            lines.append(f"  - target over time (Mbit/s, sender clock): {series}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rtc", default="rtc-h264", help="the rtc-h264 binary")
    parser.add_argument("--seconds", type=float, default=60, help="seconds per case (60 in the issue)")
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    parser.add_argument("--out", default=os.path.join(HERE, "out"))
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--bitrate", default="1.5M")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-rtx", action="store_true", help="retransmit on the media SSRC instead of RTX")
    parser.add_argument("--no-transport-cc", action="store_true",
                        help="no transport-wide sequence numbers and feedback (loss-based congestion control only)")
    parser.add_argument("--send-extra", action="append", default=[], metavar="ARG",
                        help="an extra argument for `send` and `sdp` (repeat: --send-extra=--no-pacing)")
    parser.add_argument("--receive-extra", action="append", default=[], metavar="ARG",
                        help="an extra argument for `receive` (repeat: --receive-extra=--jitter-buffer "
                             "--receive-extra=800)")
    parser.add_argument("--markdown", help="also write the table and details here")
    parser.add_argument("--report", metavar="RESULTS_JSON", help="only print the table of an earlier run's results.json")
    args = parser.parse_args()
    if args.report:
        with open(args.report) as handle:
            results = json.load(handle)
        text = table(results, []) + "\n\n" + details(results) + "\n"
        print(text)
        if args.markdown:
            with open(args.markdown, "w") as handle:
                handle.write(text)
        return
    os.makedirs(args.out, exist_ok=True)
    send_help = subprocess.run([args.rtc, "send", "--help"], capture_output=True, text=True).stdout
    receive_help = subprocess.run([args.rtc, "receive", "--help"], capture_output=True, text=True).stdout
    # NACK off on the receiver's side (it asks for nothing; the sender is unchanged, pacing included). `send
    # --no-nack` is used only when the receiver has no such flag: at 0bf95ba it also stops every paced packet (the
    # pacer takes its packets from the packet history, which --no-nack does not create).
    flags = {"send_nonack": [], "receive_nonack": ["--no-nack"] if "--no-nack" in receive_help else []}
    if not flags["receive_nonack"] and "--no-nack" in send_help:
        flags["send_nonack"] = ["--no-nack", "--no-pacing"]
    # Delay-based congestion control (transport-wide feedback) when this rtc-h264 has it and it is not turned off.
    flags["transport_cc"] = "--transport-cc" in send_help and not args.no_transport_cc
    wanted = set(filter(None, args.cases.split(",")))
    results, skipped = [], []
    for case in cases(args.seconds):
        if wanted and case["name"] not in wanted:
            continue
        if case.get("nonack") and not (flags["send_nonack"] or flags["receive_nonack"]):
            skipped.append((case["name"], "this rtc-h264 has no --no-nack flag yet"))
            print(f"{case['name']}: skipped (no --no-nack flag)", file=sys.stderr, flush=True)
            continue
        started = time.monotonic()
        try:
            result = run_case(case, args, args.rtc, flags)
        except Exception as error:  # one broken case must not lose the others
            skipped.append((case["name"], f"failed: {error}"))
            print(f"{case['name']}: failed: {error}", file=sys.stderr, flush=True)
            continue
        results.append(result)
        print(f"{case['name']}: {result['exact_percent']:.1f} % exact, longest freeze "
              f"{fmt_seconds(result['longest_freeze_s'])}, {result['freezes_over_200ms']} freezes > 200 ms, "
              f"PLI {result['receiver_pli']}, NACK {result['nack_count']}/{result['retransmitted_packets']}, "
              f"target {fmt_rate(result['final_target'])} ({time.monotonic() - started:.0f} s)",
              file=sys.stderr, flush=True)
    text = table(results, skipped) + "\n\n" + details(results) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as handle:
            handle.write(text)
    with open(os.path.join(args.out, "results.json"), "w") as handle:
        json.dump(results, handle, indent=1)


if __name__ == "__main__":
    main()
