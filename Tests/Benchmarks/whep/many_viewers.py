#!/usr/bin/env python3
"""Many WHEP viewers of one 720p30 stream (issue 23's scale targets), on loopback, no root, no browser.

Starts `rtc-h264 serve --whep 127.0.0.1:PORT` (the built-in pattern at 1280x720, 30 fps, BITRATE), measures the
server's CPU (utime + stime in /proc/PID/stat) for WARMUP seconds with no viewer, then starts one load generator,
`rtc-h264 receive --whep URL --sessions VIEWERS --join-interval INTERVAL --no-decode --duration SECONDS --json` (our
full ICE agent, DTLS client, SRTP and jitter buffer per session; frames reassembled, not decoded), and measures the
server's CPU again over the window in which every viewer is playing (from the last join + 3 s to 3 s before the
first leaves). The server's CPU per viewer is (CPU with viewers - CPU without) / VIEWERS, in % of one core.

Per viewer, from the generator's JSON: frames shown (`framesDecoded`: complete frames after the first keyframe)
against the most frames the server can have sent it (frames completed + dropped + one per lost packet: the encoder's
rate control skips frames under load, so a count from the clock would blame the viewer), frames shown per second, the
time from its offer to its first frame (the join storm: VIEWERS offers INTERVAL apart), freezes and lost packets.

Targets (issue 23): every viewer at least 99 % of the frames, the server's CPU per viewer at most 0.3 % of a core,
every viewer playing within 3 s of its offer.

Usage: many_viewers.py RTC_H264_BINARY [VIEWERS] [SECONDS] [INTERVAL] [BITRATE]   (default 100, 40, 0.1, 2.5M)
Prints a table and one JSON line.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from churn import free_port, wait_listening  # noqa: E402
from scrape import cpu_seconds, user_system_seconds  # noqa: E402

WARMUP = 8.0
FPS = 30


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return None
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    binary = sys.argv[1]
    viewers = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 40.0
    interval = float(sys.argv[4]) if len(sys.argv) > 4 else 0.1
    bitrate = sys.argv[5] if len(sys.argv) > 5 else "2.5M"
    port = free_port()
    log = tempfile.TemporaryFile()
    server = subprocess.Popen(
        [binary, "serve", "--whep", f"127.0.0.1:{port}", "--size", "1280x720", "--fps", str(FPS), "--bitrate", bitrate,
         "--max-viewers", str(max(viewers, 1)), "--quiet"],
        stdout=subprocess.DEVNULL, stderr=log)
    try:
        wait_listening(port, server, log)
        time.sleep(2)  # the encoder settles
        start = user_system_seconds(server.pid)
        time.sleep(WARMUP)
        end = user_system_seconds(server.pid)
        idle_user, idle_system = (end[0] - start[0]) / WARMUP, (end[1] - start[1]) / WARMUP
        idle_rate = idle_user + idle_system

        generator_log = tempfile.TemporaryFile()
        launched = time.monotonic()
        generator = subprocess.Popen(
            [binary, "receive", "--whep", f"http://127.0.0.1:{port}/whep", "--sessions", str(viewers),
             "--join-interval", str(interval), "--no-decode", "--duration", str(seconds), "--json",
             "--log-level", "warning"],
            stdout=subprocess.PIPE, stderr=generator_log)
        output = []
        reader = threading.Thread(target=lambda: output.append(generator.stdout.read()))
        reader.start()
        # Every viewer plays from the last join + 3 s until the first could leave (its duration counts from its first
        # packet), less 3 s.
        window_start = launched + interval * (viewers - 1) + 3
        window_end = launched + seconds - 3
        if window_end - window_start < 5:
            raise SystemExit(f"SECONDS {seconds} leaves no window of 5 s with every viewer playing; give more")
        time.sleep(max(0, window_start - time.monotonic()))
        busy_start, busy_clock = user_system_seconds(server.pid), time.monotonic()
        time.sleep(max(0, window_end - time.monotonic()))
        busy_end, busy_elapsed = user_system_seconds(server.pid), time.monotonic() - busy_clock
        busy_user = (busy_end[0] - busy_start[0]) / busy_elapsed
        busy_system = (busy_end[1] - busy_start[1]) / busy_elapsed
        busy_rate = busy_user + busy_system
        generator_cpu = None
        try:
            generator_cpu = cpu_seconds(generator.pid)
        except OSError:
            pass
        generator.wait(timeout=seconds + interval * viewers + 60)
        reader.join()
        if generator.returncode != 0:
            generator_log.seek(0)
            raise SystemExit(f"the load generator failed ({generator.returncode}): "
                             f"{generator_log.read().decode(errors='replace')[-2000:]}")
        report = json.loads(output[0])
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()

    rows = []
    for session in report["sessions"]:
        stats = session.get("stats") or {}
        first_ms = session.get("firstFrameMs")
        shown = stats.get("framesDecoded", 0)
        # The frames sent to this viewer, at most: those it completed, those it dropped, and one per packet lost (a
        # frame lost whole). The encoder's rate control skips frames under load, so a count from the clock would
        # blame the viewer for frames never sent.
        expected = max(1, stats.get("framesReceived", 0) + stats.get("framesDropped", 0) + stats.get("packetsLost", 0))
        played = max(0.0, stats.get("timestamp", 0.0) - (first_ms or 0) / 1000 + (session.get("answerMs") or 0) / 1000
                     + (session.get("connectMs") or 0) / 1000)
        rows.append({
            "session": session["session"], "error": session.get("error"), "firstFrameMs": first_ms,
            "shown": shown, "expected": expected, "fraction": min(1.0, shown / expected),
            "dropped": stats.get("framesDropped", 0), "lost": stats.get("packetsLost", 0),
            "freezes": stats.get("freezeCount", 0), "received": stats.get("framesReceived", 0),
            "framesPerSecond": shown / played if played > 0 else 0,
        })
    per_viewer = 100 * (busy_rate - idle_rate) / max(1, viewers)
    fractions = [row["fraction"] for row in rows]
    firsts = [row["firstFrameMs"] for row in rows if row["firstFrameMs"] is not None]
    result = {
        "viewers": viewers, "seconds": seconds, "joinInterval": interval, "bitrate": bitrate,
        "playing": report["playing"], "failed": report["failed"],
        "serverCPUIdlePercent": round(100 * idle_rate, 1), "serverCPUWithViewersPercent": round(100 * busy_rate, 1),
        "serverCPUPerViewerPercent": round(per_viewer, 3),
        # On loopback the sender's system calls also run the receiving side's kernel path (softirq, socket wakeup):
        # the kernel share is split out, the user-space share is the server's own work.
        "serverUserCPUPerViewerPercent": round(100 * (busy_user - idle_user) / max(1, viewers), 3),
        "serverSystemCPUPerViewerPercent": round(100 * (busy_system - idle_system) / max(1, viewers), 3),
        "generatorCPUSeconds": generator_cpu,
        "framesMinFraction": round(min(fractions), 4) if fractions else None,
        "framesMedianFraction": round(percentile(fractions, 0.5), 4) if fractions else None,
        "viewersBelow99Percent": sum(1 for f in fractions if f < 0.99),
        "framesPerSecondMin": round(min(row["framesPerSecond"] for row in rows), 1) if rows else None,
        "firstFrameMsP50": percentile(firsts, 0.5), "firstFrameMsP95": percentile(firsts, 0.95),
        "firstFrameMsMax": max(firsts) if firsts else None,
        "viewersOver3s": sum(1 for f in firsts if f > 3000) + (viewers - len(firsts)),
        "packetsLost": sum(row["lost"] for row in rows), "freezes": sum(row["freezes"] for row in rows),
        "errors": sorted({row["error"] for row in rows if row["error"]})[:5],
    }
    print(f"{viewers} viewers of 1280x720 at {FPS} fps, {bitrate}, {seconds:.0f} s each, joining {interval} s apart")
    print(f"  playing {result['playing']}, failed {result['failed']}")
    print(f"  server CPU: {result['serverCPUIdlePercent']} % of a core without viewers, "
          f"{result['serverCPUWithViewersPercent']} % with them: {result['serverCPUPerViewerPercent']} % per viewer "
          f"(target <= 0.3; user {result['serverUserCPUPerViewerPercent']}, kernel "
          f"{result['serverSystemCPUPerViewerPercent']}, which on loopback includes the viewers' receive path)")
    print(f"  frames shown per viewer of those sent to it: min {result['framesMinFraction']}, median "
          f"{result['framesMedianFraction']}, {result['viewersBelow99Percent']} below 99 % (target: none); "
          f"the slowest viewer {result['framesPerSecondMin']} frames/s")
    print(f"  offer -> first frame: p50 {result['firstFrameMsP50']} ms, p95 {result['firstFrameMsP95']} ms, "
          f"max {result['firstFrameMsMax']} ms; {result['viewersOver3s']} over 3 s (target: none)")
    print(f"  packets lost {result['packetsLost']}, freezes {result['freezes']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
