"""aiortc (aioice, pyOpenSSL, pylibsrtp, PyAV: an independent WebRTC stack) as a WHEP client of `rtc-h264 serve`:
POSTs its recvonly offer to http://HOST:PORT/whep with the bearer token, applies the 201's answer, decodes the
stream with PyAV, then DELETEs its session at the Location the server gave.

Checks, each failing with a message (exit status 1): 201 with Location and application/sdp; the first decoded
frame is a keyframe; at least --min-frames frames decoded at the configured size; every decoded picture's MD5 equals,
in order and without a gap, the MD5 of a picture decoded (PyAV, the same FFmpeg decoder) from the bitstream the
server encoded (`serve --save-annexb`); DELETE answers 200 and the server logs the viewer leaving for that reason; a
second DELETE of the same Location answers 404.
Prints one JSON summary line. Run with a Python that has aiortc (run-in-namespace.sh makes a venv).

For a server that viewers cannot reach directly (whep-turn.sh): --serve-prefix runs serve elsewhere (another
network namespace), --serve-args adds its ICE server options, --port fixes the port (the namespace's address is not
ours to bind), and --expect-candidate TYPE [--expect-relay-protocol P] checks that the answer carries a candidate of
TYPE and that the server's statistics (`--stats`) name that type and protocol for the viewer's selected pair;
--secret-file fails the run if the server's output holds the file's text (a TURN password).

Usage: serve_aiortc_viewer.py --rtc-h264 PATH [--host IP] [--port N] [--min-frames 60] [--serve-prefix CMD]
           [--serve-args ARGS] [--expect-candidate host|srflx|relay] [--expect-relay-protocol udp|tcp|tls]
           [--secret-file F]
"""
import argparse
import asyncio
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import av
from aiortc import RTCPeerConnection

from interop_common import (count_frame, first_external_ipv4, frame_md5, free_port, get_when_listening,
                            on_decoded_frames, request, session_description, wait_at_most)


async def watch(base, token, args, failures):
    pc = RTCPeerConnection()
    pc.addTransceiver("video", direction="recvonly")
    stats = {"frames": 0, "firstIsKeyframe": None, "width": 0, "height": 0, "md5": []}
    done = asyncio.Event()

    def on_frame(frame):
        if stats["frames"] == 0:
            stats["firstIsKeyframe"] = bool(getattr(frame, "key_frame", False))
        count_frame(stats, frame)
        stats["md5"].append(frame_md5(frame))
        if stats["frames"] >= args.min_frames:
            done.set()

    on_decoded_frames(pc, on_frame)
    await pc.setLocalDescription(await pc.createOffer())  # aiortc gathers before it returns
    loop = asyncio.get_running_loop()
    started = time.time()
    status, headers, body = await loop.run_in_executor(
        None, request, "POST", base + "whep", token, pc.localDescription.sdp.encode(), "application/sdp")
    if status != 201:
        failures.append(f"POST /whep answered {status}: {body.strip()}")
        await pc.close()
        return stats
    location = headers.get("Location")
    if not location or not location.startswith("/whep/"):
        failures.append(f"201 without a Location under /whep/: {location}")
    if not headers.get("Content-Type", "").startswith("application/sdp"):
        failures.append(f"answer Content-Type {headers.get('Content-Type')}")
    stats["answerCandidates"] = [line[len("a=candidate:"):] for line in body.splitlines() if line.startswith("a=candidate:")]
    await pc.setRemoteDescription(session_description(body, "answer"))
    await wait_at_most(done, args.timeout)
    stats["seconds"] = round(time.time() - started, 2)
    stats["ice"] = pc.iceConnectionState
    url = base.rstrip("/") + (location or "/whep/none")
    stats["delete"] = (await loop.run_in_executor(None, request, "DELETE", url, token))[0]
    stats["deleteAgain"] = (await loop.run_in_executor(None, request, "DELETE", url, token))[0]
    await pc.close()
    return stats


def check_path(args, stats, stats_path, failures):
    """The answer carries a candidate of the expected type, and the server's statistics name it for the selected pair."""
    typed = [line for line in stats["answerCandidates"] if f" typ {args.expect_candidate}" in line]
    if not typed:
        failures.append(f"the answer holds no {args.expect_candidate} candidate: {stats['answerCandidates']}")
    paths = set()
    for line in open(stats_path):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        for viewer in entry.get("viewerStats", []):
            if viewer.get("connected"):
                paths.add((viewer.get("localCandidateType"), viewer.get("relayProtocol")))
    stats["selectedPaths"] = sorted(f"{kind}/{protocol}" for kind, protocol in paths)
    # A server-reflexive candidate is checked from its base: the pair's local side is the host socket.
    expected = ("host" if args.expect_candidate == "srflx" else args.expect_candidate, args.expect_relay_protocol)
    if paths != {expected}:
        failures.append(f"the server's statistics give the selected pair {stats['selectedPaths']}, expected {expected}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtc-h264", required=True)
    parser.add_argument("--host")
    parser.add_argument("--min-frames", type=int, default=60)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--port", type=int)
    parser.add_argument("--serve-prefix", default="")
    parser.add_argument("--serve-args", default="")
    parser.add_argument("--expect-candidate", choices=["host", "srflx", "relay"])
    parser.add_argument("--expect-relay-protocol", choices=["udp", "tcp", "tls"])
    parser.add_argument("--secret-file")
    args = parser.parse_args()
    host = args.host or first_external_ipv4("Tests/WebRTCTests/Interop/run-in-namespace.sh")
    port = args.port or free_port(host)
    token = os.urandom(16).hex()
    workdir = tempfile.mkdtemp(prefix="serve-aiortc-")
    log_path = os.path.join(workdir, "serve.log")
    annexb_path = os.path.join(workdir, "sent.h264")
    stats_path = os.path.join(workdir, "stats.jsonl")
    log = open(log_path, "w")
    serve = subprocess.Popen(
        shlex.split(args.serve_prefix)
        + [args.rtc_h264, "serve", "--whep", f"{host}:{port}", "--size", "320x240", "--fps", "30", "--bitrate", "600k",
           "--token", token, "--save-annexb", annexb_path, "--stats", stats_path] + shlex.split(args.serve_args),
        stdout=log, stderr=subprocess.STDOUT)
    failures = []
    try:
        base = f"http://{host}:{port}/"
        if get_when_listening(base, serve) is None:
            failures.append("serve did not start listening")
            return 1
        stats = asyncio.run(watch(base, token, args, failures))
        time.sleep(0.5)
        serve.terminate()
        serve.wait(20)
        log.close()
        served = open(log_path).read()
        if stats.get("firstIsKeyframe") is not True:
            failures.append("the first decoded frame was not a keyframe")
        if stats["frames"] < args.min_frames:
            failures.append(f"decoded {stats['frames']} frames, expected at least {args.min_frames}")
        if (stats["width"], stats["height"]) != (320, 240):
            failures.append(f"decoded {stats['width']}x{stats['height']}, expected 320x240")
        sent = [frame_md5(f) for f in av.open(annexb_path, format="h264").decode(video=0)]
        received = stats.pop("md5")
        start = sent.index(received[0]) if received and received[0] in sent else -1
        stats["bitstreamFrames"] = len(sent)
        stats["md5FirstMatchAt"] = start
        if start < 0 or sent[start:start + len(received)] != received:
            matched = sum(1 for a, b in zip(sent[max(start, 0):], received) if a == b)
            failures.append(f"decoded pictures differ from the bitstream's: {matched} of {len(received)} match in order")
        if stats.get("delete") != 200:
            failures.append(f"DELETE answered {stats.get('delete')}")
        if stats.get("deleteAgain") != 404:
            failures.append(f"a second DELETE answered {stats.get('deleteAgain')}, expected 404")
        if "left: DELETE" not in served:
            failures.append("the server did not log the viewer leaving on DELETE")
        if args.expect_candidate:
            check_path(args, stats, stats_path, failures)
        if args.secret_file and open(args.secret_file).read().strip() in served:
            failures.append("the server printed the secret (the TURN credential)")
        print(json.dumps(stats), flush=True)
        if failures:
            sys.stderr.write(served[-3000:])
    finally:
        if serve.poll() is None:
            serve.kill()
        shutil.rmtree(workdir, ignore_errors=True)
        for failure in failures:
            print(f"FAIL: {failure}", file=sys.stderr)
    return 1 if failures else 0


sys.exit(main())
