"""A WHEP-style viewer built on aiortc (an independent WebRTC stack: aioice, pyOpenSSL, pylibsrtp, PyAV).

Protocol on stdio, one JSON object per line:
  -> {"offer": "<sdp>"}           our offer (recvonly video), written once gathering is complete
  <- {"answer": "<sdp>"}          the answer from the Swift side
  -> {"frames": N, "ice": "...", "connection": "...", "keyframes": K, "width": W, "height": H}
Exits after `--frames` decoded frames or `--timeout` seconds.
"""
import asyncio

from aiortc import RTCPeerConnection

from interop_common import (count_frame, frames_and_timeout_arguments, on_decoded_frames, read_line,
                            report_and_close, session_description, wait_at_most, write_line)


async def main() -> None:
    args = frames_and_timeout_arguments()
    pc = RTCPeerConnection()
    pc.addTransceiver("video", direction="recvonly")
    stats = {"frames": 0, "keyframes": 0, "width": 0, "height": 0}
    done = asyncio.Event()

    def on_frame(frame):
        count_frame(stats, frame)
        if getattr(frame, "key_frame", False):
            stats["keyframes"] += 1
        if stats["frames"] >= args.frames:
            done.set()

    on_decoded_frames(pc, on_frame)
    await pc.setLocalDescription(await pc.createOffer())
    write_line({"offer": pc.localDescription.sdp})
    await pc.setRemoteDescription(session_description((await read_line())["answer"], "answer"))
    await wait_at_most(done, args.timeout)
    await report_and_close(pc, stats)


asyncio.run(main())
