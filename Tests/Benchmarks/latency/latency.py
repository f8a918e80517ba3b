"""Glass-to-glass latency of `rtc-h264 serve --whep` in headless Chromium (issue 25, item 3), and of our own receiver.

Chromium: a page (served here, on another port: a cross-origin WHEP player, as a user's own page would be) POSTs a
recvonly offer to `serve --whep` (1280x720 at 30 fps, 1.5 Mbit/s, the pattern), plays the track, and records every
frame's `requestVideoFrameCallback` metadata for SECONDS after a 2 s warm-up: `captureTime` (Chromium's, from our
abs-capture-time header extension, interpolated between the packets that carry it), `receiveTime` (the frame's last
packet), `presentationTime`, `expectedDisplayTime` and `processingDuration` (decode). All are on the page's
performance timeline; the capture time comes from the sender's wall clock mapped to it (same host here, so the
clocks agree). Reported per mode, p50/p95/p99 and the worst 1 s (the highest per-second mean):
  capture -> received, capture -> presented, capture -> expected display, and decode.
Modes: `--playout-delay 0-0` (render as soon as decoded), and without the extension (Chromium's own playout delay).
The budget: encode time per frame (serve's stats: totalEncodeTime / framesEncoded), capture -> received less the
encode (frame wait, packetization, pacing, the loopback network), received -> presented (jitter buffer, decode,
render), decode alone.

Our receiver: `send --to` -> `receive --listen` on loopback with `--abs-capture-time 3`, the same stream: its
captureToDecoded (p50/p95/max over its last window of frames).

Through an impaired path (run-latency.sh IMPAIR=...): `serve` and `send` run in another namespace
(--serve-prefix "ip netns exec NS", bound to --serve-host), Chromium, its page and `receive` here (--host), the two
joined by impair_bridge.py; our receiver then hears `send` across the same path and answers its NACKs.

Prints one JSON object per mode and a Markdown table. Standard library only, plus /usr/bin/chromium.
Usage (inside a network namespace with a non-loopback interface and a default route: run-latency.sh does that):
  latency.py --rtc-h264 BIN --host IP [--seconds 20] [--serve-prefix CMD --serve-host IP]
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "WebRTCTests", "Interop"))
from interop_common import chromium_page_against_serve, free_port, url_host  # noqa: E402

PAGE = """<!doctype html>
<html><body><video id="v" autoplay muted playsinline></video>
<script>
const whep = %(whep)s, token = %(token)s, seconds = %(seconds)d, warmupMs = 2000;
async function main() {
  const pc = new RTCPeerConnection();
  const transceiver = pc.addTransceiver("video", {direction: "recvonly"});
  // Chromium negotiates abs-capture-time only when asked (header extension control API): without it no captureTime.
  if (transceiver.getHeaderExtensionsToNegotiate) {
    const extensions = transceiver.getHeaderExtensionsToNegotiate();
    extensions.forEach((e) => { if (e.uri.endsWith("/abs-capture-time")) e.direction = "recvonly"; });
    transceiver.setHeaderExtensionsToNegotiate(extensions);
  }
  const video = document.getElementById("v");
  pc.ontrack = (event) => { video.srcObject = new MediaStream([event.track]); };
  // Chromium knows the round-trip time of a receive-only stream only from RTCP XR (it sends RRTR, the sender answers
  // DLRR), and fills captureTime only once it has one; it offers `rrtr` only when asked: the offer is given it here.
  const offer = await pc.createOffer();
  const crlf = String.fromCharCode(13, 10);
  const lines = offer.sdp.split(crlf);
  const munged = [];
  for (const line of lines) {
    munged.push(line);
    const h264 = line.match(new RegExp("^a=rtpmap:([0-9]+) H264/90000"));
    if (h264) munged.push("a=rtcp-fb:" + h264[1] + " rrtr");
  }
  await pc.setLocalDescription({type: "offer", sdp: munged.join(crlf)});
  const response = await fetch(whep, {method: "POST", headers: {"Content-Type": "application/sdp",
    "Authorization": "Bearer " + token}, body: pc.localDescription.sdp});
  if (response.status !== 201) throw new Error("WHEP answered " + response.status + ": " + await response.text());
  const answer = await response.text();
  await pc.setRemoteDescription({type: "answer", sdp: answer});
  const negotiated = answer.split(String.fromCharCode(10)).filter((l) => l.startsWith("a=extmap:")).map((l) => l.trim());
  let sampleKeys = null;
  const frames = [];
  let first = null, done = false;
  await new Promise((resolve) => {
    const onFrame = (now, m) => {
      if (first === null) { first = now; sampleKeys = Object.keys(m); }
      if (now - first >= warmupMs) {
        frames.push({now: now, capture: m.captureTime === undefined ? null : m.captureTime, receive: m.receiveTime,
                     presentation: m.presentationTime, expected: m.expectedDisplayTime,
                     processing: m.processingDuration, rtp: m.rtpTimestamp, presented: m.presentedFrames});
      }
      if (now - first >= warmupMs + seconds * 1000) { resolve(); return; }
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  });
  let inbound = {};
  (await pc.getStats()).forEach((s) => { if (s.type === "inbound-rtp" && s.kind === "video") inbound = s; });
  const summary = {framesDecoded: inbound.framesDecoded, framesDropped: inbound.framesDropped,
    jitterBufferDelay: inbound.jitterBufferDelay, jitterBufferEmittedCount: inbound.jitterBufferEmittedCount,
    totalDecodeTime: inbound.totalDecodeTime, totalProcessingDelay: inbound.totalProcessingDelay,
    totalAssemblyTime: inbound.totalAssemblyTime, framesAssembledFromMultiplePackets: inbound.framesAssembledFromMultiplePackets,
    freezeCount: inbound.freezeCount, packetsLost: inbound.packetsLost, width: inbound.frameWidth, height: inbound.frameHeight};
  pc.close();
  await fetch("/result", {method: "POST", body: JSON.stringify({frames: frames, stats: summary, negotiated: negotiated,
    metadataKeys: sampleKeys})});
}
main().catch((error) => fetch("/result", {method: "POST", body: JSON.stringify({error: String(error)})}));
</script></body></html>
"""


def percentiles(values):
    values = sorted(values)
    if not values:
        return None

    def at(q):
        return round(values[min(len(values) - 1, int(q * len(values)))], 1)
    return {"p50": round(statistics.median(values), 1), "p95": at(0.95), "p99": at(0.99), "max": round(values[-1], 1),
            "n": len(values)}


def worst_second(pairs):
    """The highest mean over a 1 s window of (time ms, value) pairs, windows aligned to the first."""
    if not pairs:
        return None
    start = pairs[0][0]
    buckets = {}
    for t, v in pairs:
        buckets.setdefault(int((t - start) // 1000), []).append(v)
    return round(max(statistics.mean(b) for b in buckets.values()), 1)


def chromium_run(args, mode, workdir):
    port = free_port(args.host) if args.serve_host == args.host else (8701 if mode == "0-0" else 8702)
    token = os.urandom(12).hex()
    stats_path = os.path.join(workdir, f"serve-{mode}.jsonl")
    command = shlex.split(args.serve_prefix) + [
        args.rtc_h264, "serve", "--whep", f"{url_host(args.serve_host)}:{port}", "--size", "1280x720", "--fps", "30",
        "--bitrate", "1.5M", "--token", token, "--stats", stats_path]
    if mode == "0-0":
        command += ["--playout-delay", "0-0"]
    whep = f"http://{url_host(args.serve_host)}:{port}/whep"
    page = PAGE % {"whep": json.dumps(whep), "token": json.dumps(token), "seconds": args.seconds}
    result = chromium_page_against_serve(
        command, os.path.join(workdir, f"serve-{mode}.err"), f"http://{url_host(args.serve_host)}:{port}/",
        page.encode(), args.host, workdir, "latency-chromium-", args.seconds + 40)
    if "error" in result:
        return {"mode": mode, "error": result["error"]}
    frames = [f for f in result["frames"] if f["capture"] is not None]
    received = [f["receive"] - f["capture"] for f in frames]
    presented = [f["presentation"] - f["capture"] for f in frames]
    expected = [f["expected"] - f["capture"] for f in frames]
    everything = [f for f in result["frames"] if f.get("receive") is not None]
    decode = [1000 * f["processing"] for f in everything if f.get("processing") is not None]
    held = [f["presentation"] - f["receive"] for f in everything]
    shown = [f["expected"] - f["receive"] for f in everything]
    stats = result.get("stats", {})
    emitted = max(1, stats.get("jitterBufferEmittedCount") or 1)
    return {
        "mode": mode, "frames": len(result["frames"]), "framesWithCaptureTime": len(frames),
        "negotiated": result.get("negotiated"), "metadataKeys": result.get("metadataKeys"),
        "size": f"{stats.get('width')}x{stats.get('height')}", "freezes": stats.get("freezeCount"),
        "packetsLost": stats.get("packetsLost"),
        "captureToReceived": percentiles(received), "captureToPresented": percentiles(presented),
        "captureToExpectedDisplay": percentiles(expected), "receivedToPresented": percentiles(held),
        "receivedToExpectedDisplay": percentiles(shown),
        "decode": percentiles(decode),
        "worstSecond": {"captureToPresented": worst_second([(f["now"], f["presentation"] - f["capture"]) for f in frames])},
        "jitterBufferDelayMs": round(1000 * (stats.get("jitterBufferDelay") or 0) / emitted, 1),
        "assemblyMs": round(1000 * (stats.get("totalAssemblyTime") or 0)
                            / max(1, stats.get("framesAssembledFromMultiplePackets") or 1), 2),
    }


def own_receiver_run(args, workdir):
    # On loopback, or across the impaired path: `send` beside `serve`, `receive` beside Chromium.
    listen = "127.0.0.1" if args.serve_host == args.host else args.host
    port = free_port(listen)
    sdp = os.path.join(workdir, "own.sdp")
    stream = ["--to", f"{listen}:{port}", "--size", "1280x720", "--fps", "30", "--bitrate", "1.5M",
              "--abs-capture-time", "3", "--no-srtp", "--ssrc", "4242"]
    with open(sdp, "w") as out:
        subprocess.run([args.rtc_h264, "sdp", *stream], stdout=out, check=True)
    receiver = subprocess.Popen([args.rtc_h264, "receive", "--listen", f"{listen}:{port}", "--sdp", sdp,
                                 "--output", os.path.join(workdir, "own.h264"), "--json",
                                 "--duration", str(args.seconds + 6), "--idle-timeout", "4"],
                                stdout=subprocess.PIPE, stderr=open(os.path.join(workdir, "receive.err"), "w"), text=True)
    time.sleep(1)
    send_stats = os.path.join(workdir, "send.jsonl")
    subprocess.run(shlex.split(args.serve_prefix) + [
                       args.rtc_h264, "send", *stream, "--duration", str(args.seconds + 2), "--quiet", "--stats", send_stats],
                   stdout=subprocess.DEVNULL, stderr=open(os.path.join(workdir, "send.err"), "w"), check=True)
    output, _ = receiver.communicate(timeout=args.seconds + 30)
    lines = [json.loads(line) for line in output.splitlines() if line.strip().startswith("{")]
    final = lines[-1] if lines else {}
    sent = [json.loads(line) for line in open(send_stats) if line.strip()]
    last = sent[-1] if sent else {}
    encode_ms = 1000 * last.get("totalEncodeTime", 0) / max(1, last.get("framesEncoded", 1))
    return {"mode": "own receiver", "captureToDecoded": final.get("captureToDecoded"),
            "captureToFirstPacket": final.get("captureToFirstPacket"), "firstToLastPacket": final.get("firstToLastPacket"),
            "framesDecoded": final.get("framesDecoded"), "encodeMsPerFrame": round(encode_ms, 2)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtc-h264", required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--serve-prefix", default="", help="runs serve and send with this prefix (another namespace)")
    parser.add_argument("--serve-host", help="the address serve and send bind in it (default: --host)")
    args = parser.parse_args()
    args.serve_host = args.serve_host or args.host
    if not shutil.which("chromium"):
        sys.exit("chromium is missing: apt-get install chromium (Tests/install-deps.sh)")
    workdir = tempfile.mkdtemp(prefix="latency-")
    try:
        results = [chromium_run(args, "0-0", workdir), chromium_run(args, "default", workdir),
                   own_receiver_run(args, workdir)]
    finally:
        if not os.environ.get("KEEP"):
            shutil.rmtree(workdir, ignore_errors=True)
    for result in results:
        print(json.dumps(result))
    print()
    encode = results[2].get("encodeMsPerFrame")
    print(f"encode per frame (send at the same settings): {encode} ms")
    print("| Chromium, mode | frames | capture -> presented p50/p95/p99 (worst 1 s) | received -> presented p50/p95/p99 | received -> expected display p50 | decode p50 | jitter buffer per frame | assembly | packets lost / freezes |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results[:2]:
        if "error" in r:
            print(f"| {r['mode']} | error: {r['error']} | | | | | | |")
            continue
        pre, held, shown, dec = r["captureToPresented"], r["receivedToPresented"], r["receivedToExpectedDisplay"], r["decode"]
        capture = (f"{pre['p50']} / {pre['p95']} / {pre['p99']} ms ({r['worstSecond']['captureToPresented']})" if pre
                   else "no captureTime in the frames' metadata")
        print(f"| playout-delay {r['mode']} | {r['frames']} | {capture} | {held['p50']} / {held['p95']} / {held['p99']} ms | "
              f"{shown['p50']} ms | {dec['p50'] if dec else '-'} ms | {r['jitterBufferDelayMs']} ms | {r['assemblyMs']} ms | "
              f"{r['packetsLost']} / {r['freezes']} |")
    own = results[2].get("captureToDecoded") or {}
    print(f"our receiver, capture -> decoded: p50 {own.get('p50', 0):.1f} ms, p95 {own.get('p95', 0):.1f} ms, "
          f"max {own.get('max', 0):.1f} ms over {own.get('frames')} frames")
    first, spread = results[2].get("captureToFirstPacket") or {}, results[2].get("firstToLastPacket") or {}
    print(f"our receiver, capture -> first packet: p50 {first.get('p50', 0):.1f} ms, p95 {first.get('p95', 0):.1f} ms "
          f"(encode {encode} ms per frame); a frame's first -> last packet: p50 {spread.get('p50', 0):.1f} ms, "
          f"p95 {spread.get('p95', 0):.1f} ms, max {spread.get('max', 0):.1f} ms")


if __name__ == "__main__":
    main()
