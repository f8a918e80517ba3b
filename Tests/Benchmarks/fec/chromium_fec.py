"""Chromium through `rtc-h264 serve --whep` over a long lossy path, with FlexFEC and with NACK alone (issue 24).

A page (served here, cross-origin as a user's own player would be) POSTs a recvonly offer to `serve --whep`
(1280x720 at 30 fps, 1.5 Mbit/s, the pattern), plays the track for SECONDS after a 3 s warm-up and reports its
inbound-rtp getStats() over that span: frames decoded and dropped, freezes (Chromium's own count: an interval over
max(3 x the average, the average + 150 ms)), their total, packets lost, NACKs, FEC packets received and discarded
(received - discarded were used to recover), the jitter buffer's mean delay. Two runs on the same path: `serve` and
`serve --fec`. Chromium answers flexfec-03 only when our answer signals `ssrc-group:FEC-FR`.

Prints one JSON object per mode and a Markdown table. Standard library only, plus /usr/bin/chromium.
Usage (inside the viewer's namespace of run-whep-fec.sh): chromium_fec.py --rtc-h264 BIN --host IP
    --serve-prefix CMD --serve-host IP [--seconds 40]
"""
import argparse
import json
import os
import shlex
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "WebRTCTests", "Interop"))
from interop_common import chromium_page_against_serve, url_host  # noqa: E402

PAGE = """<!doctype html>
<html><body><video id="v" autoplay muted playsinline></video>
<script>
const whep = %(whep)s, token = %(token)s, seconds = %(seconds)d, warmupMs = 3000;
const keys = ["framesDecoded", "framesDropped", "freezeCount", "totalFreezesDuration", "packetsLost",
  "packetsReceived", "nackCount", "pliCount", "fecPacketsReceived", "fecPacketsDiscarded", "fecBytesReceived",
  "jitterBufferDelay", "jitterBufferEmittedCount", "retransmittedPacketsReceived", "frameWidth", "frameHeight"];
async function inbound(pc) {
  let found = {};
  (await pc.getStats()).forEach((s) => { if (s.type === "inbound-rtp" && s.kind === "video") found = s; });
  const picked = {};
  for (const k of keys) picked[k] = found[k] === undefined ? null : found[k];
  return picked;
}
async function main() {
  const pc = new RTCPeerConnection();
  pc.addTransceiver("video", {direction: "recvonly"});
  const video = document.getElementById("v");
  pc.ontrack = (event) => { video.srcObject = new MediaStream([event.track]); };
  await pc.setLocalDescription(await pc.createOffer());
  const response = await fetch(whep, {method: "POST", headers: {"Content-Type": "application/sdp",
    "Authorization": "Bearer " + token}, body: pc.localDescription.sdp});
  if (response.status !== 201) throw new Error("WHEP answered " + response.status + ": " + await response.text());
  const answer = await response.text();
  await pc.setRemoteDescription({type: "answer", sdp: answer});
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const started = performance.now();
  while ((await inbound(pc)).framesDecoded < 1) {
    if (performance.now() - started > 15000) throw new Error("no frame decoded in 15 s");
    await sleep(100);
  }
  await sleep(warmupMs);
  const before = await inbound(pc);
  await sleep(seconds * 1000);
  const after = await inbound(pc);
  pc.close();
  await fetch("/result", {method: "POST", body: JSON.stringify({before: before, after: after,
    fecAnswered: answer.includes("FEC-FR")})});
}
main().catch((error) => fetch("/result", {method: "POST", body: JSON.stringify({error: String(error)})}));
</script></body></html>
"""


def run(args, mode, workdir, port):
    token = os.urandom(12).hex()
    command = shlex.split(args.serve_prefix) + [
        args.rtc_h264, "serve", "--whep", f"{url_host(args.serve_host)}:{port}", "--size", "1280x720", "--fps", "30",
        "--bitrate", "1.5M", "--token", token, "--stats", os.path.join(workdir, f"serve-{mode}.jsonl")]
    if mode == "fec":
        command.append("--fec")
    whep = f"http://{url_host(args.serve_host)}:{port}/whep"
    page = PAGE % {"whep": json.dumps(whep), "token": json.dumps(token), "seconds": args.seconds}
    result = chromium_page_against_serve(
        command, os.path.join(workdir, f"serve-{mode}.err"), f"http://{url_host(args.serve_host)}:{port}/",
        page.encode(), args.host, workdir, "fec-chromium-", args.seconds + 60)
    if "error" in result:
        return {"mode": mode, "error": result["error"]}
    before, after = result["before"], result["after"]

    def delta(key):
        if after.get(key) is None:
            return None
        return after[key] - (before.get(key) or 0)
    emitted = max(1, delta("jitterBufferEmittedCount") or 1)
    decoded = delta("framesDecoded") or 0
    return {
        "mode": mode, "seconds": args.seconds, "fecAnswered": result.get("fecAnswered"),
        "size": f"{after.get('frameWidth')}x{after.get('frameHeight')}",
        "framesDecoded": decoded, "framesExpected": args.seconds * 30,
        "decodedPercent": round(100 * decoded / (args.seconds * 30), 1),
        "framesDropped": delta("framesDropped"), "freezes": delta("freezeCount"),
        "freezeSeconds": round(delta("totalFreezesDuration") or 0, 2),
        "packetsLost": delta("packetsLost"), "packetsReceived": delta("packetsReceived"),
        "nackCount": delta("nackCount"), "pliCount": delta("pliCount"),
        "retransmittedPacketsReceived": delta("retransmittedPacketsReceived"),
        "fecPacketsReceived": delta("fecPacketsReceived"), "fecPacketsDiscarded": delta("fecPacketsDiscarded"),
        "jitterBufferDelayMs": round(1000 * (delta("jitterBufferDelay") or 0) / emitted, 1),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rtc-h264", required=True)
    parser.add_argument("--host", required=True, help="this namespace's address (the page's server)")
    parser.add_argument("--serve-prefix", default="", help="what runs serve in its namespace")
    parser.add_argument("--serve-host", required=True)
    parser.add_argument("--seconds", type=int, default=40)
    args = parser.parse_args()
    if not 5 <= args.seconds <= 3600:
        parser.error("--seconds must be 5-3600")
    results = []
    with tempfile.TemporaryDirectory(prefix="chromium-fec-") as workdir:
        for index, mode in enumerate(("nack", "fec")):
            result = run(args, mode, workdir, 8711 + index)
            print(json.dumps(result), flush=True)
            results.append(result)
    print()
    print("| serve | decoded | freezes (Chromium) | freeze time | packets lost | NACKs | FEC received (/ used) |"
          " jitter buffer delay |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        if "error" in r:
            print(f"| {r['mode']} | error: {r['error']} | | | | | | |")
            continue
        received, discarded = r["fecPacketsReceived"], r["fecPacketsDiscarded"]
        # Chromium 156 reports no fecPacketsDiscarded: then only what was received.
        fec = "-" if received is None else str(received) if discarded is None else f"{received} / {received - discarded}"
        print(f"| {'--fec' if r['mode'] == 'fec' else 'NACK only'} | {r['decodedPercent']} % ({r['framesDecoded']}, {r['size']}) |"
              f" {r['freezes']} | {r['freezeSeconds']} s | {r['packetsLost']} | {r['nackCount']} | {fec} |"
              f" {r['jitterBufferDelayMs']} ms |")
    if any("error" in r for r in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
