"""aiortc (aioice, pyOpenSSL, pylibsrtp, PyAV: an independent WebRTC stack) as a WHEP client of `rtc-h264 serve`:
POSTs its recvonly offer to http://HOST:PORT/whep with the bearer token, applies the 201's answer, decodes the
stream with PyAV, then DELETEs its session at the Location the server gave.

Checks, each failing with a message (exit status 1): 201 with Location and application/sdp; the first decoded
frame is a keyframe; at least --min-frames frames decoded at the configured size; every decoded picture's MD5 equals,
in order and without a gap, the MD5 of a picture decoded (PyAV, the same FFmpeg decoder) from the bitstream the
server encoded (`serve --save-annexb`); DELETE answers 200 and the server logs the viewer leaving for that reason; a
second DELETE of the same Location answers 404.
Prints one JSON summary line. Run with a Python that has aiortc (run-in-namespace.sh makes a venv).

Usage: serve_aiortc_viewer.py --rtc-h264 PATH [--host IP] [--frames 90]
"""
import argparse
import asyncio
import json
import os
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
    await pc.setRemoteDescription(session_description(body, "answer"))
    await wait_at_most(done, args.timeout)
    stats["seconds"] = round(time.time() - started, 2)
    stats["ice"] = pc.iceConnectionState
    url = base.rstrip("/") + (location or "/whep/none")
    stats["delete"] = (await loop.run_in_executor(None, request, "DELETE", url, token))[0]
    stats["deleteAgain"] = (await loop.run_in_executor(None, request, "DELETE", url, token))[0]
    await pc.close()
    return stats


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtc-h264", required=True)
    parser.add_argument("--host")
    parser.add_argument("--min-frames", type=int, default=60)
    parser.add_argument("--timeout", type=float, default=20.0)
    args = parser.parse_args()
    host = args.host or first_external_ipv4("Tests/WebRTCTests/Interop/run-in-namespace.sh")
    port = free_port(host)
    token = os.urandom(16).hex()
    workdir = tempfile.mkdtemp(prefix="serve-aiortc-")
    log_path = os.path.join(workdir, "serve.log")
    annexb_path = os.path.join(workdir, "sent.h264")
    log = open(log_path, "w")
    serve = subprocess.Popen(
        [args.rtc_h264, "serve", "--whep", f"{host}:{port}", "--size", "320x240", "--fps", "30", "--bitrate", "600k",
         "--token", token, "--save-annexb", annexb_path], stdout=log, stderr=subprocess.STDOUT)
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
