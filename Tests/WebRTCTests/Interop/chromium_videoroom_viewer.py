"""Headless Chromium watches a Janus VideoRoom publisher: serves a page that subscribes through Janus's HTTP API
(session, attach janus.plugin.videoroom, wait for a publisher, join as subscriber, answer Janus's offer, start) and
reports the page's getStats() once the stream stops (no new frame for --idle seconds) or after --timeout.

Prints one JSON line: {"frames": framesDecoded, "received": framesReceived, "dropped": ..., "packetsLost": ...,
"keyFrames": ..., "firstFrameMs": ms from the answer, "width": W, "height": H, "codec": "...", "decoder": "...",
"ice": "...", "srtp": "...", "destroyed": true (or "destroyError": "..."), "timeline": [[unix seconds, framesDecoded],
...] (a sample whenever the count moved, polled every 100 ms), "sizes": [[W, H, framesDecoded when first seen], ...]}
or {"error": "<the Janus step under way>: ..."}. With --substream N the page asks Janus for that simulcast substream
(0 is the lowest). Uses only the Python standard library and /usr/bin/chromium.
"""
import argparse
import json
import shutil
import tempfile
import threading
import sys

from interop_common import QuietHandler, launch_chromium, render_page, serve_in_thread, stop_process

PAGE = """<!doctype html>
<html><body><video id="v" autoplay muted playsinline></video>
<script>
%(video_stats)s
const janus = %(janus)s, room = %(room)d, timeoutMs = %(timeout_ms)d, idleMs = %(idle_ms)d, substream = %(substream)d;
const tx = () => Math.random().toString(36).slice(2);
let step = "load";  // the Janus request under way: named in an error report
async function call(path, body) {
  const response = await fetch(janus + path, body === undefined ? {} :
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(Object.assign({transaction: tx()}, body))});
  return response.json();
}
async function main() {
  const started = performance.now();
  step = "create a session";
  const session = (await call("", {janus: "create"})).data.id;
  step = "attach the VideoRoom plugin";
  const handle = (await call("/" + session, {janus: "attach", plugin: "janus.plugin.videoroom"})).data.id;
  const base = "/" + session + "/" + handle;
  let feed = null;
  step = "list the room's participants";
  while (feed === null) {
    if (performance.now() - started > timeoutMs) throw new Error("no publisher in room " + room);
    const reply = await call(base, {janus: "message", body: {request: "listparticipants", room: room}});
    const publishers = (reply.plugindata.data.participants || []).filter((p) => p.publisher);
    if (publishers.length > 0) feed = publishers[0].id; else await new Promise((r) => setTimeout(r, 200));
  }
  const stream = substream >= 0 ? {feed: feed, substream: substream} : {feed: feed};
  step = "join as subscriber";
  await call(base, {janus: "message", body: {request: "join", ptype: "subscriber", room: room, streams: [stream]}});
  let offer = null;
  step = "poll for Janus's offer";
  while (offer === null) {
    const events = await call("/" + session + "?maxev=5");
    for (const event of (Array.isArray(events) ? events : [events])) {
      if (event.jsep && event.jsep.type === "offer") offer = event.jsep.sdp;
    }
  }
  const pc = new RTCPeerConnection();
  pc.ontrack = (event) => { document.getElementById("v").srcObject = new MediaStream([event.track]); };
  await pc.setRemoteDescription({type: "offer", sdp: offer});
  await pc.setLocalDescription(await pc.createAnswer());
  const answered = performance.now();
  step = "start (send the answer)";
  await call(base, {janus: "message", body: {request: "start", room: room}, jsep: {type: "answer", sdp: pc.localDescription.sdp}});
  const keepalive = setInterval(() => call("/" + session, {janus: "keepalive"}), 10000);
  let report = {frames: 0}, firstFrameMs = null, lastFrames = 0, lastChange = performance.now();
  const timeline = [], sizes = [];
  step = "getStats";
  while (performance.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const {inbound: s, codec, transport: t} = videoStats(await pc.getStats());
    report = {frames: report.frames || 0, ice: pc.iceConnectionState};
    if (s) {
      report.frames = s.framesDecoded || 0; report.received = s.framesReceived || 0; report.dropped = s.framesDropped || 0;
      report.packetsLost = s.packetsLost; report.keyFrames = s.keyFramesDecoded; report.nackCount = s.nackCount;
      report.pliCount = s.pliCount; report.width = s.frameWidth || 0; report.height = s.frameHeight || 0;
      report.decoder = s.decoderImplementation; report.freezes = s.freezeCount;
      if (codec) report.codec = codec.mimeType + " " + (codec.sdpFmtpLine || "");
    }
    if (t) { report.srtp = t.srtpCipher; report.dtlsRole = t.dtlsRole; }
    if (firstFrameMs === null && report.frames > 0) firstFrameMs = performance.now() - answered;
    const last = sizes[sizes.length - 1];
    if (report.width && (!last || last[0] !== report.width || last[1] !== report.height)) {
      sizes.push([report.width, report.height, report.frames]);
    }
    if (report.frames !== lastFrames) {
      lastFrames = report.frames; lastChange = performance.now();
      timeline.push([Date.now() / 1000, report.frames]);
    }
    if (report.frames > 0 && performance.now() - lastChange > idleMs) break;
  }
  clearInterval(keepalive);
  report.firstFrameMs = firstFrameMs === null ? null : Math.round(firstFrameMs);
  report.timeline = timeline;
  report.sizes = sizes;
  pc.close();
  // Leaving the room is the harness's tidiness, not a measure: the statistics are taken, so a failed destroy (a CI run
  // saw Janus destroy the session and Chromium's fetch of the reply fail) is reported beside them, not instead.
  try { await call("/" + session, {janus: "destroy"}); report.destroyed = true; }
  catch (error) { report.destroyError = String(error); }
  await fetch("/result", {method: "POST", body: JSON.stringify(report)});
}
main().catch((error) => fetch("/result", {method: "POST", body: JSON.stringify({error: step + ": " + String(error)})}));
</script></body></html>
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--janus", required=True)
    parser.add_argument("--room", type=int, default=1234)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--idle", type=float, default=3.0)
    parser.add_argument("--substream", type=int, default=-1, help="the simulcast substream to ask for (0 = lowest)")
    args = parser.parse_args()
    done = threading.Event()
    result = {}

    class Handler(QuietHandler):
        def do_GET(self):
            page = render_page(PAGE, janus=json.dumps(args.janus), room=args.room, timeout_ms=int(args.timeout * 1000),
                               idle_ms=int(args.idle * 1000), substream=args.substream)
            self.reply(page.encode(), "text/html")
            print("page served", file=sys.stderr, flush=True)  # whip-janus.sh starts publishing after this

        def do_POST(self):
            body = self.body().decode()
            if self.path == "/result":
                result["line"] = body
                done.set()
            self.reply(b"ok", "text/plain")

    server = serve_in_thread(Handler)
    profile = tempfile.mkdtemp(prefix="chromium-videoroom-")
    browser = launch_chromium(f"http://127.0.0.1:{server.server_address[1]}/", profile,
                              extra=["--disable-features=WebRtcHideLocalIpsWithMdns"], binary="/usr/bin/chromium")
    try:
        if not done.wait(args.timeout + 15):
            result["line"] = json.dumps({"error": "no result from the page"})
        print(result["line"], flush=True)
    finally:
        stop_process(browser)
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
