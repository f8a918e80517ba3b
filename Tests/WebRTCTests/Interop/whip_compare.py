"""Compares what the aiortc WHIP endpoint decoded with the bitstream `rtc-h264 send --save-annexb` wrote.

Usage: whip_compare.py REPORT.json SENT.h264 [--min-fraction 0.99] [--joined] [--last-frame-pending]
The sent Annex-B stream is decoded with PyAV (FFmpeg's H.264 decoder, as aiortc uses) and each frame hashed the same
way the endpoint hashed what it decoded. Passes when the endpoint decoded at least --min-fraction of the frames sent,
every decoded frame is bit-exact one of ours, in order (a subsequence), and the endpoint saw the DELETE. With
--joined (a subscriber that joined mid-stream, e.g. through Janus) the frames sent count from the first one it decoded,
and there is no DELETE to check. With --last-frame-pending the last frame sent is not counted (aiortc emits a frame
only when the next one starts, so no aiortc receiver ever shows the last one).
Prints one JSON line with the figures; exits 1 with the reason otherwise.
"""
import argparse
import json
import sys

import av

from interop_common import frame_md5


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("sent")
    parser.add_argument("--min-fraction", type=float, default=0.99)
    parser.add_argument("--joined", action="store_true")
    parser.add_argument("--last-frame-pending", action="store_true",
                        help="the receiver cannot show the last frame (aiortc emits a frame when the next one starts)")
    args = parser.parse_args()
    with open(args.report) as handle:
        report = json.load(handle)
    with av.open(args.sent, format="h264") as container:
        reference = [frame_md5(frame) for frame in container.decode(video=0)]
    decoded = report["md5"]
    first = reference.index(decoded[0]) if decoded and decoded[0] in reference else 0
    if args.joined:
        reference = reference[first:]
    trimmed = args.last_frame_pending and len(reference) > 1 and len(decoded) < len(reference)
    if trimmed:
        reference = reference[:-1]
    position = 0
    matched = 0
    for digest in decoded:
        while position < len(reference) and reference[position] != digest:
            position += 1
        if position == len(reference):
            break
        matched += 1
        position += 1
    figures = {"sent": len(reference), "decoded": len(decoded), "bit_exact_in_order": matched,
               "fraction": round(len(decoded) / max(1, len(reference)), 4), "deleted": report.get("deleted"),
               "size": "%dx%d" % (report["width"], report["height"])}
    if args.joined:
        figures["joined_at_frame"] = first
    if trimmed:
        figures["last_frame_not_counted"] = True
    print(json.dumps(figures))
    problems = []
    if not reference:
        problems.append("the sent bitstream decodes to no frames")
    if len(decoded) < args.min_fraction * len(reference):
        problems.append("aiortc decoded %d of %d frames (< %.0f %%)" % (len(decoded), len(reference), 100 * args.min_fraction))
    if matched != len(decoded):
        problems.append("%d of %d decoded frames are not bit-exact frames of ours in order" % (len(decoded) - matched, len(decoded)))
    if not args.joined and not report["deleted"]:
        problems.append("the session was not DELETEd")
    if problems:
        print("FAIL: " + "; ".join(problems), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
