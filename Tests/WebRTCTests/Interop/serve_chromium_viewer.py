"""Headless Chromium watches `rtc-h264 serve --whep`: it opens the viewer page the server itself serves at
http://HOST:PORT/ (the page POSTs its offer to /whep after ICE gathering, plays the answer's stream in a <video>),
and the page's getStats() reports (posted to a collector here via the page's #report= fragment) are compared with
the server's own statistics (serve --stats).

Checks, each failing with a message (exit status 1):
  - every join decodes at least 99 % of the frames the server sent to that viewer (inbound-rtp framesDecoded vs the
    viewer's framesSent, both read after the stream ended);
  - the first frame is decoded (offer-to-first-decoded-frame is printed; the target is a benchmark's, not checked);
  - with --viewers N, N pages watch at once and the server counted N viewers;
  - DELETE from the page on close frees the viewer (the server ends with 0 viewers).
Prints one JSON summary line. Uses only the Python standard library, /usr/bin/chromium and the rtc-h264 binary.

Usage: serve_chromium_viewer.py --rtc-h264 PATH [--host IP] [--frames 150] [--viewers 1]
"""
import argparse
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request


def first_external_ipv4() -> str:
    out = subprocess.run(["ip", "-4", "-o", "addr", "show", "scope", "global"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        return line.split()[3].split("/")[0]
    sys.exit("no non-loopback IPv4 interface (run inside Tests/WebRTCTests/Interop/run-in-namespace.sh)")


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtc-h264", required=True)
    parser.add_argument("--host")
    parser.add_argument("--frames", type=int, default=150)
    parser.add_argument("--viewers", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=45.0)
    parser.add_argument("--size", default="320x240")
    args = parser.parse_args()
    if not shutil.which("chromium"):
        sys.exit("chromium is missing: apt-get install chromium (Tests/install-deps.sh)")
    host = args.host or first_external_ipv4()
    reports = {}  # page index -> latest report
    lock = threading.Lock()

    class Collector(http.server.BaseHTTPRequestHandler):
        def log_message(self, *_):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            index = int(self.path.rsplit("/", 1)[-1])
            with lock:
                reports[index] = json.loads(body or b"{}")
            self.send_response(204)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()

    collector = http.server.ThreadingHTTPServer((host, 0), Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
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
        deadline = time.time() + 15
        while True:
            try:
                with urllib.request.urlopen(page, timeout=2) as response:
                    html = response.read().decode()
                    if response.status != 200 or "RTCPeerConnection" not in html:
                        failures.append(f"GET / answered {response.status} without the viewer page")
                break
            except OSError:
                if time.time() > deadline or serve.poll() is not None:
                    failures.append("serve did not start listening")
                    raise SystemExit
                time.sleep(0.2)
        started = time.time()
        for index in range(args.viewers):
            profile = os.path.join(workdir, f"profile{index}")
            browsers.append(subprocess.Popen(
                ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--autoplay-policy=no-user-gesture-required", "--use-fake-ui-for-media-stream",
                 f"--user-data-dir={profile}",
                 f"{page}#token={token}&report=http://{host}:{collector.server_address[1]}/report/{index}"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        # Until the stream has ended and every page's decoded count has stopped growing.
        stream_seconds = args.frames / 30.0
        last, last_change = None, time.time()
        while time.time() - started < args.timeout:
            time.sleep(0.25)
            with lock:
                snapshot = {i: (r.get("frames"), r.get("error")) for i, r in reports.items()}
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
        for frames_decoded, frames_sent in zip(decoded, sent):
            if frames_sent < args.frames * 0.5:
                failures.append(f"a viewer was sent only {frames_sent} of {args.frames} frames")
            if frames_decoded < 0.99 * frames_sent:
                failures.append(f"a page decoded {frames_decoded} of {frames_sent} frames sent (< 99 %)")
        for i, report in enumerate(pages):
            if report.get("offerToFirstFrameMs") is None:
                failures.append(f"page {i} decoded no frame")
        summary = {
            "viewers": args.viewers, "framesEncoded": final.get("framesEncoded"), "framesSent": sent,
            "framesDecoded": decoded,
            "offerToFirstFrameMs": [r.get("offerToFirstFrameMs") for r in pages],
            "pliReceived": sum(v["stats"].get("pliCount", 0) for v in viewers),
            "nackReceived": sum(v["stats"].get("nackCount", 0) for v in viewers),
            "keyFramesEncoded": [v["stats"].get("keyFramesEncoded", 0) for v in viewers],
            "srtp": [r.get("srtp") for r in pages], "codec": [r.get("decoder") for r in pages],
            "size": [f"{r.get('width')}x{r.get('height')}" for r in pages],
        }
        print(json.dumps(summary), flush=True)
    except SystemExit:
        pass
    finally:
        for browser in browsers:
            browser.terminate()
            try:
                browser.wait(5)
            except subprocess.TimeoutExpired:
                browser.kill()
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
