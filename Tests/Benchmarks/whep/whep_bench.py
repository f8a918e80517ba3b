"""WHEP server benchmark (issue 15 targets), against `rtc-h264 serve --whep` with headless Chromium viewers.

1. joins: one page (served here, on another origin: the WHEP requests are cross-origin, CORS preflight included)
   joins JOINS times in a row: a new RTCPeerConnection, ICE gathering, POST /whep, the answer, then getStats() every
   10 ms until the first decoded frame; DELETE; close. Offer-to-first-decoded-frame p50/p99 (target 500 ms / 1 s).
2. viewers: N viewers in one headless Chromium (N RTCPeerConnections on one page) watch a 720p30 stream; the server's
   CPU time (utime+stime from /proc/PID/stat) over WINDOW seconds with no viewer and with N viewers gives the cost per
   viewer in % of one core (target 3 %); every viewer's framesDecoded against the server's framesSent (target 99 %)
   and its decode rate (target 30 fps).

Run inside a network namespace with a non-loopback interface (Tests/Benchmarks/run-whep.sh makes one).
Prints one JSON line per part.
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

# The interop scripts' shared helpers (HTTP, headless Chromium, getStats() in the page).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "WebRTCTests", "Interop"))
from interop_common import (QuietHandler, first_external_ipv4, free_port, get_when_listening,  # noqa: E402
                            launch_chromium, render_page, serve_in_thread, stop_process)

PAGE = """<!doctype html><html><body><script>
%(video_stats)s
const server = %(server)s, token = %(token)s, mode = %(mode)s, count = %(count)d;
const auth = {"Authorization": "Bearer " + token};
async function connect(statsCb) {
  const pc = new RTCPeerConnection();
  pc.addTransceiver("video", {direction: "recvonly"});
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((r) => { if (pc.iceGatheringState === "complete") r();
    pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === "complete") r(); }; });
  const started = performance.now();
  const response = await fetch(server + "/whep", {method: "POST",
    headers: Object.assign({"Content-Type": "application/sdp"}, auth), body: pc.localDescription.sdp});
  if (response.status !== 201) throw new Error("POST " + response.status + " " + await response.text());
  const location = response.headers.get("Location");
  await pc.setRemoteDescription({type: "answer", sdp: await response.text()});
  return {pc, started, location};
}
async function frames(pc) {
  const s = videoStats(await pc.getStats()).inbound;
  return s ? {frames: s.framesDecoded || 0, fps: s.framesPerSecond || 0, width: s.frameWidth, height: s.frameHeight,
              lost: s.packetsLost || 0, nacks: s.nackCount || 0, plis: s.pliCount || 0} : {frames: 0, fps: 0};
}
async function post(path, body) { await fetch(path, {method: "POST", body: JSON.stringify(body)}); }
async function joins() {
  const latencies = [];
  for (let i = 0; i < count; i++) {
    const {pc, started, location} = await connect();
    let latency = null;
    while (performance.now() - started < 10000) {
      if ((await frames(pc)).frames > 0) { latency = performance.now() - started; break; }
      await new Promise((r) => setTimeout(r, 10));
    }
    latencies.push(latency);
    await fetch(server + location, {method: "DELETE", headers: auth});
    pc.close();
    await new Promise((r) => setTimeout(r, 200));
  }
  await post("/result", {latencies});
}
async function viewers() {
  const peers = [];
  for (let i = 0; i < count; i++) peers.push(await connect());
  await post("/connected", {viewers: peers.length});
  setInterval(async () => {
    const all = [];
    for (const p of peers) all.push(await frames(p.pc));
    await post("/stats", all);
  }, 500);
}
(mode === "joins" ? joins() : viewers()).catch((e) => post("/result", {error: String(e)}));
</script></body></html>"""


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Harness:
    def __init__(self, binary, host, size, bitrate, viewers_max, frames=None):
        self.host = host
        self.token = os.urandom(16).hex()
        self.workdir = tempfile.mkdtemp(prefix="whep-bench-")
        self.port = free_port(host)
        self.stats_path = os.path.join(self.workdir, "stats.jsonl")
        self.serve = subprocess.Popen(
            [binary, "serve", "--whep", f"{host}:{self.port}", "--size", size, "--fps", "30", "--bitrate", bitrate,
             "--token", self.token, "--max-viewers", str(viewers_max), "--stats", self.stats_path,
             "--allow-origin", "*"] + (["--frames", str(frames)] if frames else []))
        self.started = time.time()
        if get_when_listening(f"http://{host}:{self.port}/") is None:
            raise SystemExit("serve did not start")
        self.events = {}
        self.cond = threading.Condition()
        harness = self

        class Handler(QuietHandler):
            def do_GET(self):
                self.reply(harness.page.encode(), "text/html")

            def do_POST(self):
                data = json.loads(self.body() or b"{}")
                self.send_response(204)
                self.end_headers()
                with harness.cond:
                    harness.events[self.path] = data
                    harness.cond.notify_all()

        self.http = serve_in_thread(Handler, host)
        self.browser = None

    def open(self, mode, count):
        self.page = render_page(PAGE, server=json.dumps(f"http://{self.host}:{self.port}"), token=json.dumps(self.token),
                                mode=json.dumps(mode), count=count)
        profile = os.path.join(self.workdir, f"profile-{mode}")
        self.browser = launch_chromium(f"http://{self.host}:{self.http.server_address[1]}/", profile)

    def wait(self, path, timeout):
        deadline = time.time() + timeout
        with self.cond:
            while path not in self.events and "/result" not in self.events:
                if not self.cond.wait(max(0.1, deadline - time.time())) and time.time() > deadline:
                    return None
            return self.events[path] if path in self.events else self.events.get("/result")

    def final_stats(self):
        self.serve.send_signal(signal.SIGINT)
        self.serve.wait(30)
        lines = [json.loads(l) for l in open(self.stats_path) if l.strip()]
        return lines[-1] if lines else {}

    def close(self):
        if self.browser:
            stop_process(self.browser)
        if self.serve.poll() is None:
            self.serve.kill()
        self.http.shutdown()
        shutil.rmtree(self.workdir, ignore_errors=True)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(p / 100 * len(ordered) + 0.5)) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtc-h264", required=True)
    parser.add_argument("--joins", type=int, default=20)
    parser.add_argument("--viewers", type=int, default=8)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--part", choices=["joins", "viewers", "all"], default="all")
    args = parser.parse_args()
    host = first_external_ipv4("Tests/Benchmarks/run-whep.sh")
    if args.part in ("joins", "all"):
        h = Harness(args.rtc_h264, host, "640x360", "1M", 4)
        try:
            h.open("joins", args.joins)
            result = h.wait("/result", 60 + args.joins * 5) or {"error": "no result"}
            latencies = [l for l in result.get("latencies", []) if l is not None]
            print(json.dumps({
                "part": "joins", "joins": args.joins, "decoded": len(latencies), "error": result.get("error"),
                "p50Ms": round(percentile(latencies, 50), 1) if latencies else None,
                "p99Ms": round(percentile(latencies, 99), 1) if latencies else None,
                "minMs": round(min(latencies), 1) if latencies else None,
                "maxMs": round(max(latencies), 1) if latencies else None,
                "allMs": [round(l) for l in latencies]}), flush=True)
        finally:
            h.close()
    if args.part in ("viewers", "all"):
        # The source stops after FRAMES frames (the server keeps its viewers): the pages' final framesDecoded is then
        # compared with the server's final framesSent, both read once nothing is in flight.
        frames = int(30 * (2 * args.window + 20))
        h = Harness(args.rtc_h264, host, "1280x720", "2M", args.viewers, frames=frames)
        try:
            time.sleep(2)
            base0, t0 = cpu_seconds(h.serve.pid), time.time()
            time.sleep(args.window)
            idle = (cpu_seconds(h.serve.pid) - base0) / (time.time() - t0)
            h.open("viewers", args.viewers)
            connected = h.wait("/connected", 60)
            if connected is None or "error" in connected:
                raise SystemExit(f"the viewers did not connect: {connected}")
            time.sleep(3)  # past the joins' IDRs
            base1, t1 = cpu_seconds(h.serve.pid), time.time()
            time.sleep(args.window)
            loaded = (cpu_seconds(h.serve.pid) - base1) / (time.time() - t1)
            with h.cond:
                fps = [round(p.get("fps", 0), 1) for p in h.events.get("/stats", [])]
            streamed_at = time.time()
            time.sleep(max(0, h.started + frames / 30 + 3 - time.time()))
            if time.time() - streamed_at < 2:
                print("warning: the loaded window ran into the end of the stream", file=sys.stderr)
            with h.cond:
                pages = h.events.get("/stats", [])
            if h.browser:
                h.browser.terminate()
                h.browser.wait(10)
                h.browser = None
            time.sleep(1)
            final = h.final_stats()
            sent = [v["stats"]["framesSent"] for v in final.get("viewerStats", [])]
            print(json.dumps({
                "part": "viewers", "viewers": args.viewers, "size": "1280x720", "bitrate": "2M",
                "serverCpuNoViewerPct": round(idle * 100, 1), "serverCpuWithViewersPct": round(loaded * 100, 1),
                "perViewerPct": round((loaded - idle) * 100 / args.viewers, 2),
                "pageFps": fps,
                "pageFramesDecoded": [p.get("frames", 0) for p in pages], "serverFramesSent": sent,
                "loadavg": open("/proc/loadavg").read().split()[:3]}), flush=True)
        finally:
            h.close()
    return 0


sys.exit(main())
