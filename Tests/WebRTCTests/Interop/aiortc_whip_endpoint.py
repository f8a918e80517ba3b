"""A WHIP-style endpoint built on aiortc: it answers our sendonly offer and decodes what we publish.

Protocol on stdio, one JSON object per line:
  <- {"offer": "<sdp>"}           our offer (sendonly video)
  -> {"answer": "<sdp>"}          aiortc's answer, written once gathering is complete
  -> {"frames": N, "ice": "...", "connection": "...", "width": W, "height": H}
Exits after `--frames` decoded frames or `--timeout` seconds.
"""
import asyncio

from aiortc import RTCPeerConnection

from interop_common import (count_frame, frames_and_timeout_arguments, on_decoded_frames, read_line,
                            report_and_close, session_description, wait_at_most, write_line)


async def main() -> None:
    args = frames_and_timeout_arguments()
    pc = RTCPeerConnection()
    stats = {"frames": 0, "width": 0, "height": 0}
    done = asyncio.Event()

    def on_frame(frame):
        count_frame(stats, frame)
        if stats["frames"] >= args.frames:
            done.set()

    on_decoded_frames(pc, on_frame)
    await pc.setRemoteDescription(session_description((await read_line())["offer"], "offer"))
    await pc.setLocalDescription(await pc.createAnswer())
    write_line({"answer": pc.localDescription.sdp})
    await wait_at_most(done, args.timeout)
    await report_and_close(pc, stats)


asyncio.run(main())
