"""Watches a Janus VideoRoom publisher with aiortc over Janus's HTTP API, and hashes every decoded frame.

  create session -> attach janus.plugin.videoroom -> wait for a publisher (listparticipants) -> join as subscriber
  -> Janus's offer (long poll) -> aiortc's answer -> start -> decode (PyAV) until the stream stops

The report (--report, JSON): {"feed": id, "display": "...", "frames": N, "md5": [...], "width": W, "height": H,
"ice": "...", "codec": "...", "sizes": [[W, H, frames], ...] (each run of frames of one size, in order),
"substreams": [N, ...] (Janus's substream events)}. With --substream N the subscriber asks Janus for that simulcast
substream (0 is the lowest); with --switch-to M --switch-after S it asks for M once S seconds of frames have
decoded (the picture must keep coming). Frames are hashed with interop_common.frame_md5, as whip_compare.py does, so that it can
compare them with our bitstream. Stops --idle seconds after the last frame, or after --timeout seconds.
"""
import argparse
import asyncio
import json
import random
import string
import time

from aiortc import RTCPeerConnection

from interop_common import count_frame, frame_md5, json_call, on_decoded_frames, session_description


def transaction():
    return "".join(random.choice(string.ascii_letters) for _ in range(12))


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--janus", required=True)
    parser.add_argument("--room", type=int, default=1234)
    parser.add_argument("--report", required=True)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--idle", type=float, default=3.0)
    parser.add_argument("--substream", type=int, help="the simulcast substream to ask for (0 = lowest)")
    parser.add_argument("--switch-to", type=int, help="the substream to ask for after --switch-after seconds")
    parser.add_argument("--switch-after", type=float, default=4.0)
    args = parser.parse_args()
    loop = asyncio.get_running_loop()

    async def janus(path, body=None):
        if body is not None:
            body = dict(body, transaction=transaction())
        return await loop.run_in_executor(None, json_call, args.janus + path, body)

    started = time.monotonic()
    session = (await janus("", {"janus": "create"}))["data"]["id"]
    handle = (await janus("/%d" % session, {"janus": "attach", "plugin": "janus.plugin.videoroom"}))["data"]["id"]
    base = "/%d/%d" % (session, handle)
    feed = None
    while feed is None:
        if time.monotonic() - started > args.timeout:
            raise SystemExit("no publisher joined room %d" % args.room)
        reply = await janus(base, {"janus": "message", "body": {"request": "listparticipants", "room": args.room}})
        participants = reply["plugindata"]["data"].get("participants", [])
        publishers = [p for p in participants if p.get("publisher")]
        if publishers:
            feed = publishers[0]
        else:
            await asyncio.sleep(0.2)
    print(json.dumps({"feed": feed["id"]}), flush=True)
    stream = {"feed": feed["id"]}
    if args.substream is not None:
        stream["substream"] = args.substream
    await janus(base, {"janus": "message",
                       "body": {"request": "join", "ptype": "subscriber", "room": args.room, "streams": [stream]}})
    stats = {"feed": feed["id"], "display": feed.get("display", ""), "frames": 0, "md5": [], "width": 0,
             "height": 0, "ice": "new", "codec": "", "sizes": [], "substreams": []}

    def read_events(events):
        for event in events if isinstance(events, list) else [events]:
            data = event.get("plugindata", {}).get("data", {})
            if "substream" in data:
                stats["substreams"].append(data["substream"])
            if event.get("jsep", {}).get("type") == "offer":
                return event["jsep"]["sdp"]
        return None
    offer = None
    while offer is None:
        offer = read_events(await janus("/%d?maxev=5" % session))
    mid = next((line[len("a=mid:"):] for line in offer.split("\r\n") if line.startswith("a=mid:")), "0")
    last_frame = [time.monotonic()]
    pc = RTCPeerConnection()

    def on_frame(frame):
        stats["md5"].append(frame_md5(frame))
        count_frame(stats, frame)
        if stats["sizes"] and stats["sizes"][-1][:2] == [frame.width, frame.height]:
            stats["sizes"][-1][2] += 1
        else:
            stats["sizes"].append([frame.width, frame.height, 1])
        last_frame[0] = time.monotonic()

    on_decoded_frames(pc, on_frame)

    await pc.setRemoteDescription(session_description(offer, "offer"))
    await pc.setLocalDescription(await pc.createAnswer())
    stats["codec"] = ",".join(sorted({line.split(" ", 1)[1] for line in pc.localDescription.sdp.split("\r\n")
                                      if line.startswith("a=rtpmap:") and "rtx" not in line}))
    await janus(base, {"janus": "message", "body": {"request": "start", "room": args.room},
                       "jsep": {"type": "answer", "sdp": pc.localDescription.sdp}})

    async def keepalive():
        while True:
            await asyncio.sleep(10)
            await janus("/%d" % session, {"janus": "keepalive"})
    pinger = asyncio.ensure_future(keepalive())

    async def poll_events():
        while True:
            read_events(await janus("/%d?maxev=5" % session))
    poller = asyncio.ensure_future(poll_events())
    first_frame_at = None
    switched = False
    last_frame[0] = time.monotonic()
    while time.monotonic() - started < args.timeout:
        await asyncio.sleep(0.2)
        if stats["frames"] > 0 and first_frame_at is None:
            first_frame_at = time.monotonic()
        if (args.switch_to is not None and not switched and first_frame_at is not None
                and time.monotonic() - first_frame_at > args.switch_after):
            switched = True
            await janus(base, {"janus": "message", "body": {
                "request": "configure", "streams": [{"mid": mid, "substream": args.switch_to}]}})
        if stats["frames"] > 0 and time.monotonic() - last_frame[0] > args.idle:
            break
        if stats["frames"] == 0 and time.monotonic() - last_frame[0] > 15:
            break
    pinger.cancel()
    poller.cancel()
    stats["ice"] = pc.iceConnectionState
    await pc.close()
    try:
        await janus("/%d" % session, {"janus": "destroy"})
    except Exception:
        pass
    with open(args.report, "w") as out:
        json.dump(stats, out)


if __name__ == "__main__":
    asyncio.run(main())
