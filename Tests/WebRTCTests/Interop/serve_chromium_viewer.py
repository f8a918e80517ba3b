"""Headless Chromium watches `rtc-h264 serve --whep`: it opens the viewer page the server itself serves at
http://HOST:PORT/ (the page POSTs its offer to /whep after ICE gathering, plays the answer's stream in a <video>),
and the page's getStats() reports (posted to a collector here via the page's #report= fragment) are compared with
the server's own statistics (serve --stats).

Impairments (inside the test's network namespace only, with iptables on the INPUT chain (OUTPUT would make the sender's sendmsg fail with EPERM
    instead of losing the datagram on the way): the kernel here has no
netem): --loss P drops a random fraction P of the large UDP datagrams (media; STUN, DTLS alerts and RTCP are small)
from the first decoded frame to the end of the stream; --blackout-ms M drops all of them for M ms one second after
the first decoded frame, so that the browser gives up on NACK and asks for a keyframe (PLI).

Checks, each failing with a message (exit status 1):
  - every join decodes at least 99 % of the frames the server sent to that viewer (inbound-rtp framesDecoded vs the
    viewer's framesSent, both read after the stream ended);
  - the first frame is decoded (offer-to-first-decoded-frame is printed; the target is a benchmark's, not checked);
  - with --viewers N, N pages watch at once and the server counted N viewers;
  - with --loss: NACKs arrived and were answered with retransmissions (and the 99 % above still holds);
  - with --blackout-ms: a PLI arrived, a second keyframe was encoded and decoded, and decoding resumed.
Prints one JSON summary line. Uses only the Python standard library, /usr/bin/chromium and the rtc-h264 binary.

Usage: serve_chromium_viewer.py --rtc-h264 PATH [--host IP] [--frames 150] [--viewers 1]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from interop_common import (QuietHandler, first_external_ipv4, free_port, get_when_listening, launch_chromium,
                            serve_in_thread, stop_process)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtc-h264", required=True)
    parser.add_argument("--host")
    parser.add_argument("--frames", type=int, default=150)
    parser.add_argument("--viewers", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=45.0)
    parser.add_argument("--size", default="320x240")
    parser.add_argument("--loss", type=float, default=0.0)
    parser.add_argument("--blackout-ms", type=int, default=0)
    args = parser.parse_args()
    if not shutil.which("chromium"):
        sys.exit("chromium is missing: apt-get install chromium (Tests/install-deps.sh)")
    host = args.host or first_external_ipv4("Tests/WebRTCTests/Interop/run-in-namespace.sh")
    if (args.loss or args.blackout_ms) and not shutil.which("iptables"):
        sys.exit("iptables is missing: apt-get install iptables (Tests/install-deps.sh)")
    rule = None

    def impair(probability):
        """Replaces the drop rule: None removes it."""
        nonlocal rule
        if rule:
            subprocess.run(["iptables", "-D", "INPUT"] + rule, check=True)
            rule = None
        if probability:
            rule = ["-p", "udp", "-m", "length", "--length", "400:65535"]
            if probability < 1:
                rule += ["-m", "statistic", "--mode", "random", "--probability", str(probability)]
            rule += ["-j", "DROP"]
            subprocess.run(["iptables", "-A", "INPUT"] + rule, check=True)
    reports = {}  # page index -> latest report
    lock = threading.Lock()

    class Collector(QuietHandler):
        def do_POST(self):
            body = self.body()
            index = int(self.path.rsplit("/", 1)[-1])
            with lock:
                reports[index] = json.loads(body or b"{}")
            self.send_response(204)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()

    collector = serve_in_thread(Collector, host)
    workdir = tempfile.mkdtemp(prefix="serve-chromium-")
    stats_path = os.path.join(workdir, "stats.jsonl")
    port = free_port(host)
    token = os.urandom(16).hex()  # beyond loopback the server requires one; the page takes it from #token=
    log = open(os.path.join(workdir, "serve.log"), "w")
    serve = subprocess.Popen(
        [args.rtc_h264, "serve", "--whep", f"{host}:{port}", "--size", args.size, "--fps", "30", "--bitrate", "600k",
         "--frames", str(args.frames), "--stats", stats_path, "--max-viewers", str(max(2, args.viewers)), "--token", token],
        stdout=log, stderr=subprocess.STDOUT)
    browsers = []
    failures = []
    try:
        page = f"http://{host}:{port}/"
        answered = get_when_listening(page, serve)
        if answered is None:
            failures.append("serve did not start listening")
            raise SystemExit
        status, html = answered
        if status != 200 or "RTCPeerConnection" not in html:
            failures.append(f"GET / answered {status} without the viewer page")
        started = time.time()
        for index in range(args.viewers):
            profile = os.path.join(workdir, f"profile{index}")
            browsers.append(launch_chromium(
                f"{page}#token={token}&report=http://{host}:{collector.server_address[1]}/report/{index}", profile,
                extra=["--use-fake-ui-for-media-stream"]))
        # Until the stream has ended and every page's decoded count has stopped growing.
        stream_seconds = args.frames / 30.0
        last, last_change = None, time.time()
        first_frame_at = None
        blackout = "pending" if args.blackout_ms else "none"
        before_blackout = 0
        while time.time() - started < args.timeout:
            time.sleep(0.1)
            with lock:
                snapshot = {i: (r.get("frames"), r.get("error")) for i, r in reports.items()}
            if first_frame_at is None and any((f or 0) > 0 for f, _ in snapshot.values()):
                first_frame_at = time.time()
                impair(args.loss)
            if blackout == "pending" and first_frame_at and time.time() - first_frame_at > 1:
                before_blackout = min((f or 0) for f, _ in snapshot.values())
                impair(1.0)
                blackout, blackout_end = "on", time.time() + args.blackout_ms / 1000
            if blackout == "on" and time.time() >= blackout_end:
                impair(args.loss)
                blackout = "done"
            if first_frame_at and time.time() - started > stream_seconds + 0.5:
                impair(None)
            if any(error for _, error in snapshot.values()):
                break
            if snapshot != last:
                last, last_change = snapshot, time.time()
            if (len(snapshot) == args.viewers and all((f or 0) > 0 for f, _ in snapshot.values())
                    and time.time() - started > stream_seconds + 1 and time.time() - last_change > 1.5):
                break
        serve.send_signal(signal.SIGINT)
        try:
            serve.wait(20)
        except subprocess.TimeoutExpired:
            serve.kill()
            failures.append("serve did not exit within 20 s of SIGINT")
        if serve.returncode not in (0, None):
            failures.append(f"serve exited with {serve.returncode}")
        lines = [json.loads(line) for line in open(stats_path) if line.strip()]
        final = lines[-1] if lines else {}
        viewers = final.get("viewerStats", [])
        sent = sorted(v["stats"]["framesSent"] for v in viewers if v.get("connected"))
        with lock:
            pages = [reports.get(i, {}) for i in range(args.viewers)]
        for i, report in enumerate(pages):
            if "error" in report:
                failures.append(f"page {i}: {report['error']}")
        decoded = sorted(r.get("frames", 0) for r in pages)
        if len(sent) != args.viewers:
            failures.append(f"the server counted {len(sent)} connected viewers, expected {args.viewers}")
        # A viewer is sent the frames encoded after it joined: its join is read off the first stats line (written once
        # a second) that shows it connected, less a second of frames for that granularity. (Chromium may start late
        # on a loaded machine; counting from the server's start read that as a fault of ours.)
        joined_at = {}
        for line in lines:
            for viewer in line.get("viewerStats", []):
                if viewer.get("connected") and viewer.get("id") not in joined_at:
                    joined_at[viewer.get("id")] = max(0, line.get("framesEncoded", 0) - 30)
        for viewer in viewers:
            if not viewer.get("connected"):
                continue
            frames_sent = viewer["stats"]["framesSent"]
            available = args.frames - joined_at.get(viewer.get("id"), 0)
            if frames_sent < available * 0.5:
                failures.append(f"a viewer was sent only {frames_sent} of the {available} frames encoded after it "
                                f"joined ({args.frames} in all)")
        for frames_decoded, frames_sent in zip(decoded, sent):
            if not args.blackout_ms and frames_decoded < 0.99 * frames_sent:
                failures.append(f"a page decoded {frames_decoded} of {frames_sent} frames sent (< 99 %)")
        for i, report in enumerate(pages):
            if report.get("offerToFirstFrameMs") is None:
                failures.append(f"page {i} decoded no frame")
        stats = [v["stats"] for v in viewers if v.get("connected")]
        if args.loss:
            if sum(v.get("nackCount", 0) for v in stats) == 0:
                failures.append("no NACK reached the server under loss")
            if sum(v.get("retransmittedPacketsSent", 0) for v in stats) == 0:
                failures.append("the server retransmitted nothing under loss")
        if args.blackout_ms:
            if sum(v.get("pliCount", 0) + v.get("firCount", 0) for v in stats) == 0:
                failures.append("no PLI/FIR reached the server after the blackout")
            if min((v.get("keyFramesEncoded", 0) for v in stats), default=0) < 2:
                failures.append("no keyframe answered the PLI (one keyframe encoded)")
            if min((r.get("keyFramesDecoded", 0) for r in pages), default=0) < 2:
                failures.append("the page decoded no keyframe after the blackout")
            if min(decoded, default=0) < before_blackout + 20:
                failures.append(f"decoding did not resume after the blackout ({before_blackout} before, {decoded} at the end)")
        summary = {
            "viewers": args.viewers, "framesEncoded": final.get("framesEncoded"), "framesSent": sent,
            "framesDecoded": decoded,
            "offerToFirstFrameMs": [r.get("offerToFirstFrameMs") for r in pages],
            "offerToAnswerMs": [r.get("offerToAnswerMs") for r in pages],
            "offerToConnectedMs": [r.get("offerToConnectedMs") for r in pages],
            "pliReceived": sum(v["stats"].get("pliCount", 0) for v in viewers),
            "nackReceived": sum(v["stats"].get("nackCount", 0) for v in viewers),
            "retransmitted": sum(v["stats"].get("retransmittedPacketsSent", 0) for v in viewers),
            "loss": args.loss, "blackoutMs": args.blackout_ms,
            "rtcpReceived": sum(v["stats"].get("rtcpPacketsReceived", 0) for v in viewers),
            "srtcpFailures": sum(v["stats"].get("srtcpUnprotectFailures", 0) for v in viewers),
            "rtcpMalformed": sum(v["stats"].get("rtcpMalformed", 0) for v in viewers),
            "keyFramesEncoded": [v["stats"].get("keyFramesEncoded", 0) for v in viewers],
            "srtp": [r.get("srtp") for r in pages], "codec": [r.get("decoder") for r in pages],
            "size": [f"{r.get('width')}x{r.get('height')}" for r in pages],
        }
        print(json.dumps(summary), flush=True)
        if os.environ.get("SERVE_CHROMIUM_VERBOSE"):
            print(json.dumps(final, indent=1), json.dumps(pages, indent=1), file=sys.stderr)
    except SystemExit:
        pass
    finally:
        if rule:
            impair(None)
        for browser in browsers:
            stop_process(browser)
        if serve.poll() is None:
            serve.kill()
        collector.shutdown()
        log.close()
        if failures:
            sys.stderr.write(open(os.path.join(workdir, "serve.log")).read()[-3000:])
        shutil.rmtree(workdir, ignore_errors=True)
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    return 1 if failures else 0


sys.exit(main())
