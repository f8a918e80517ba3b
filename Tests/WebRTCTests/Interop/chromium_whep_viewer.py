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
import json
import shutil
import sys
import tempfile
import threading

from interop_common import QuietHandler, launch_chromium, render_page, serve_in_thread, stop_process

PAGE = """<!doctype html>
<html><body><video id="v" autoplay muted playsinline></video>
<script>
%(video_stats)s
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
    const {inbound: s, codec, transport: t} = videoStats(await pc.getStats());
    report = {ice: pc.iceConnectionState, connection: pc.connectionState};
    if (s) {
      report.frames = s.framesDecoded || 0; report.width = s.frameWidth || 0; report.height = s.frameHeight || 0;
      report.packetsReceived = s.packetsReceived; report.packetsLost = s.packetsLost;
      report.nackCount = s.nackCount; report.pliCount = s.pliCount; report.keyFramesDecoded = s.keyFramesDecoded;
      report.decoder = s.decoderImplementation;
      if (codec) report.codec = codec.mimeType + " " + (codec.sdpFmtpLine || "");
    }
    if (t) {
      report.srtp = t.srtpCipher; report.dtls = t.dtlsState; report.tls = t.tlsVersion; report.dtlsCipher = t.dtlsCipher;
      report.dtlsRole = t.dtlsRole;
    }
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

    class Handler(QuietHandler):
        def do_GET(self):
            page = render_page(PAGE, frames=args.frames, timeout_ms=int(args.timeout * 1000), joins=args.joins)
            self.reply(page.encode(), "text/html")

        def do_POST(self):
            body = self.body().decode()
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

    server = serve_in_thread(Handler)
    profile = tempfile.mkdtemp(prefix="chromium-whep-")
    browser = launch_chromium(f"http://127.0.0.1:{server.server_address[1]}/", profile, binary="/usr/bin/chromium")
    try:
        if not done.wait(args.timeout * args.joins + 15):
            print(json.dumps({"error": "no result from the page"}), flush=True)
    finally:
        stop_process(browser)
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


main()
