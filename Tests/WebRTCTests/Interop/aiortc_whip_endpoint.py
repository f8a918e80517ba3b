"""A WHIP-style endpoint built on aiortc: it answers our sendonly offer and decodes what we publish.

Protocol on stdio, one JSON object per line:
  <- {"offer": "<sdp>"}           our offer (sendonly video)
  -> {"answer": "<sdp>"}          aiortc's answer, written once gathering is complete
  -> {"frames": N, "ice": "...", "connection": "...", "width": W, "height": H}
Exits after `--frames` decoded frames or `--timeout` seconds.
"""
import argparse
import asyncio
import json
import sys

from aiortc import RTCPeerConnection, RTCSessionDescription


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--timeout", type=float, default=20.0)
    args = parser.parse_args()

    pc = RTCPeerConnection()
    stats = {"frames": 0, "width": 0, "height": 0}
    done = asyncio.Event()

    @pc.on("track")
    def on_track(track):
        async def consume():
            while True:
                try:
                    frame = await track.recv()
                except Exception:
                    return
                stats["frames"] += 1
                stats["width"], stats["height"] = frame.width, frame.height
                if stats["frames"] >= args.frames:
                    done.set()

        asyncio.ensure_future(consume())

    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await pc.setRemoteDescription(RTCSessionDescription(sdp=json.loads(line)["offer"], type="offer"))
    await pc.setLocalDescription(await pc.createAnswer())
    print(json.dumps({"answer": pc.localDescription.sdp}), flush=True)
    try:
        await asyncio.wait_for(done.wait(), args.timeout)
    except asyncio.TimeoutError:
        pass
    stats["ice"] = pc.iceConnectionState
    stats["connection"] = pc.connectionState
    print(json.dumps(stats), flush=True)
    await pc.close()


asyncio.run(main())
