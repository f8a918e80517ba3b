"""A WHEP-style viewer in headless Chromium: serves a page that offers recvonly video, relays the offer and answer
over stdio, and reports the page's getStats().

Protocol on stdio, one JSON object per line:
  -> {"offer": "<sdp>"}           Chromium's offer
  <- {"answer": "<sdp>"}          the answer from the Swift side
  -> {"frames": N, "width": W, "height": H, "ice": "...", "connection": "...", "codec": "...", "srtp": "...",
      "joinToFirstFrameMs": T, ...}
With --joins N the page joins N times in a row (a new RTCPeerConnection each time, closed once it has decoded
--frames frames), and the exchange above repeats N times.
Uses only the Python standard library and /usr/bin/chromium.
"""
import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

PAGE = """<!doctype html>
<html><body><video id="v" autoplay muted playsinline></video>
<script>
const target = %(frames)d, timeoutMs = %(timeout_ms)d, joins = %(joins)d;
async function post(path, body) {
  const response = await fetch(path, {method: "POST", body: body});
  return response.text();
}
async function join() {
  const pc = new RTCPeerConnection();
  pc.addTransceiver("video", {direction: "recvonly"});
  pc.ontrack = (event) => { document.getElementById("v").srcObject = new MediaStream([event.track]); };
  await pc.setLocalDescription(await pc.createOffer());
  const started = performance.now();
  const answer = await post("/offer", pc.localDescription.sdp);
  await pc.setRemoteDescription({type: "answer", sdp: answer});
  let firstFrameMs = null, report = {};
  while (performance.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stats = await pc.getStats();
    report = {ice: pc.iceConnectionState, connection: pc.connectionState};
    stats.forEach((s) => {
      if (s.type === "inbound-rtp" && s.kind === "video") {
        report.frames = s.framesDecoded || 0; report.width = s.frameWidth || 0; report.height = s.frameHeight || 0;
        report.packetsReceived = s.packetsReceived; report.packetsLost = s.packetsLost;
        report.nackCount = s.nackCount; report.pliCount = s.pliCount; report.keyFramesDecoded = s.keyFramesDecoded;
        report.decoder = s.decoderImplementation;
        if (s.codecId && stats.get(s.codecId)) {
          const codec = stats.get(s.codecId); report.codec = codec.mimeType + " " + (codec.sdpFmtpLine || "");
        }
      }
      if (s.type === "transport") {
        report.srtp = s.srtpCipher; report.dtls = s.dtlsState; report.tls = s.tlsVersion; report.dtlsCipher = s.dtlsCipher;
        report.dtlsRole = s.dtlsRole;
      }
    });
    if (firstFrameMs === null && report.frames > 0) firstFrameMs = performance.now() - started;
    if (report.frames >= target) break;
  }
  report.joinToFirstFrameMs = firstFrameMs;
  pc.close();
  await post("/result", JSON.stringify(report));
}
async function main() {
  for (let i = 0; i < joins; i++) await join();
  await post("/done", "{}");
}
main().catch((error) => post("/result", JSON.stringify({error: String(error)})));
</script></body></html>
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--joins", type=int, default=1)
    args = parser.parse_args()
    done = threading.Event()
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *_):
            pass

        def reply(self, body: bytes, content_type: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            page = PAGE % {"frames": args.frames, "timeout_ms": int(args.timeout * 1000), "joins": args.joins}
            self.reply(page.encode(), "text/html")

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
            if self.path == "/offer":
                with lock:
                    print(json.dumps({"offer": body}), flush=True)
                    answer = json.loads(sys.stdin.readline())["answer"]
                self.reply(answer.encode(), "application/sdp")
            elif self.path == "/result":
                print(body, flush=True)
                self.reply(b"ok", "text/plain")
                if '"error"' in body:
                    done.set()
            else:
                self.reply(b"ok", "text/plain")
                done.set()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix="chromium-whep-")
    browser = subprocess.Popen(
        ["/usr/bin/chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--autoplay-policy=no-user-gesture-required", f"--user-data-dir={profile}",
         f"http://127.0.0.1:{server.server_address[1]}/"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not done.wait(args.timeout * args.joins + 15):
            print(json.dumps({"error": "no result from the page"}), flush=True)
    finally:
        browser.terminate()
        try:
            browser.wait(5)
        except subprocess.TimeoutExpired:
            browser.kill()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


main()
