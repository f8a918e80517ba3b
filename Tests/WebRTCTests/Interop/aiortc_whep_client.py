"""A WHEP-style viewer built on aiortc (an independent WebRTC stack: aioice, pyOpenSSL, pylibsrtp, PyAV).

Protocol on stdio, one JSON object per line:
  -> {"offer": "<sdp>"}           our offer (recvonly video), written once gathering is complete
  <- {"answer": "<sdp>"}          the answer from the Swift side
  -> {"frames": N, "ice": "...", "connection": "...", "keyframes": K, "width": W, "height": H}
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
    pc.addTransceiver("video", direction="recvonly")
    stats = {"frames": 0, "keyframes": 0, "width": 0, "height": 0}
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
                if getattr(frame, "key_frame", False):
                    stats["keyframes"] += 1
                if stats["frames"] >= args.frames:
                    done.set()

        asyncio.ensure_future(consume())

    await pc.setLocalDescription(await pc.createOffer())
    print(json.dumps({"offer": pc.localDescription.sdp}), flush=True)
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await pc.setRemoteDescription(RTCSessionDescription(sdp=json.loads(line)["answer"], type="answer"))
    try:
        await asyncio.wait_for(done.wait(), args.timeout)
    except asyncio.TimeoutError:
        pass
    stats["ice"] = pc.iceConnectionState
    stats["connection"] = pc.connectionState
    print(json.dumps(stats), flush=True)
    await pc.close()


asyncio.run(main())
