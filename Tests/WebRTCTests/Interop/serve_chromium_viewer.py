"""Headless Chromium watches `rtc-h264 serve --whep`: it opens the viewer page the server itself serves at
http://HOST:PORT/ (the page POSTs its offer to /whep after ICE gathering, plays the answer's stream in a <video>),
and the page's getStats() reports (posted to a collector here via the page's #report= fragment) are compared with
the server's own statistics (serve --stats).

Impairments (inside the test's network namespace only, with iptables on the INPUT chain (OUTPUT would make the sender's sendmsg fail with EPERM
    instead of losing the datagram on the way): the kernel here has no
netem): --loss P drops a random fraction P of the large UDP datagrams (media; STUN, DTLS alerts and RTCP are small)
from the first decoded frame to the end of the stream; --blackout-ms M drops all of them for M ms one second after
the first decoded frame, so that the browser gives up on NACK and asks for a keyframe (PLI).

Checks, each failing with a message (exit status 1):
  - every join decodes at least 99 % of the frames the server sent to that viewer (inbound-rtp framesDecoded vs the
    viewer's framesSent, both read after the stream ended);
  - the first frame is decoded (offer-to-first-decoded-frame is printed; the target is a benchmark's, not checked);
  - with --viewers N, N pages watch at once and the server counted N viewers;
  - with --loss: NACKs arrived and were answered with retransmissions (and the 99 % above still holds);
  - with --temporal-layers N (N > 1): the page negotiated the dependency descriptor (and not without), every
    viewer's scalabilityMode is L1TN, and Chromium assembling frames by the descriptor decodes at least 99 % (95 %
    with --loss: it skips an upper-layer frame whose repair comes after a later frame it can decode);
  - with --simulcast N: every viewer reports its layer and ends on the highest (f) on this unconstrained path;
  - with --blackout-ms: a PLI arrived, a second keyframe was encoded and decoded, and decoding resumed;
  - trickle ICE: every page POSTed its offer before gathering (the offer's candidates are counted) and PATCHed its
    candidates afterwards: the page counted them accepted (204) and the server counted each viewer's;
  - with --restart-after S: every page restarted ICE once, S seconds after its first decoded frame (restartIce(), the
    new credentials PATCHed with If-Match: "*", the server's applied); the server counted one restart per viewer, and
    the page went on decoding (at least 30 frames more after the restart, the 99 % above still holds);
  - the statistics panel of every page, at each refresh that had frames decoded over its one-second window (at least
    two): resolution, packets lost and recovered, NACKs, freezes and RTT equal to the raw getStats() values the same
    poll reported; its bitrate within 25 % of the bytesReceived delta between the two polls it names; its frames per
    second within 20 % (at least 3) of Chromium's own framesPerSecond (not with --blackout-ms);
  - with --screenshot, page 0 is driven through the DevTools pipe; once its panel has shown frames decoded three
    times, the last two at 10 frames per second or more, a screenshot at 960x540 (playing.png) must be a PNG of that
    size whose picture is not uniformly dark, taken while the video plays, with the panel beside the picture; one at
    390x700 (narrow.png) with the panel below it and nothing wider than the screen; at both, the panel's cells show
    exactly the numbers the page reports.
Prints one JSON summary line. Uses only the Python standard library, /usr/bin/chromium and the rtc-h264 binary.

--host takes an IPv4 or IPv6 literal (URLs bracket the latter; --loss and --blackout-ms impair IPv4 only).

Usage: serve_chromium_viewer.py --rtc-h264 PATH [--host IP] [--frames 150] [--viewers 1] [--loss P]
       [--blackout-ms M] [--restart-after S] [--temporal-layers N] [--screenshot [--screenshot-dir DIR]]
"""
import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from interop_common import (DevToolsPipe, QuietHandler, first_external_ipv4, free_port, get_when_listening,
                            launch_chromium, png_size, read_png, serve_in_thread, stop_process, url_host)

# The viewport of the screenshots: a laptop's and a phone's (CSS pixels, device scale factor 1).
WIDE = (960, 540)
NARROW = (390, 700)
# A panel refresh's fps and Chromium's own framesPerSecond are counted over one-second windows that do not coincide.
FPS_TOLERANCE = 0.2
FPS_TOLERANCE_MINIMUM = 3.0
# The panel's bitrate against the bytesReceived delta between the two getStats() polls it names.
BITRATE_TOLERANCE = 0.25


DEPENDENCY_DESCRIPTOR_URI = "https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtc-h264", required=True)
    parser.add_argument("--host")
    parser.add_argument("--frames", type=int, default=150)
    parser.add_argument("--viewers", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=45.0)
    parser.add_argument("--size", default="320x240")
    parser.add_argument("--loss", type=float, default=0.0)
    parser.add_argument("--simulcast", type=int, default=0,
                        help="serve --simulcast N: every viewer must report its layer and end on the highest (f)")
    parser.add_argument("--bitrate", default="600k")
    parser.add_argument("--temporal-layers", type=int, default=1,
                        help="serve --temporal-layers N; above 1 the page must negotiate the dependency descriptor")
    parser.add_argument("--blackout-ms", type=int, default=0)
    parser.add_argument("--restart-after", type=float, default=0.0,
                        help="each page restarts ICE this many seconds after its first decoded frame")
    parser.add_argument("--screenshot", action="store_true",
                        help="page 0 through the DevTools pipe: screenshots while playing, its panel's text read")
    parser.add_argument("--screenshot-dir", help="keep the screenshots there (default: a temporary directory, removed)")
    args = parser.parse_args()
    if not shutil.which("chromium"):
        sys.exit("chromium is missing: apt-get install chromium (Tests/install-deps.sh)")
    host = args.host or first_external_ipv4("Tests/WebRTCTests/Interop/run-in-namespace.sh")
    if (args.loss or args.blackout_ms) and not shutil.which("iptables"):
        sys.exit("iptables is missing: apt-get install iptables (Tests/install-deps.sh)")
    rule = None

    def impair(probability):
        """Replaces the drop rule: None removes it."""
        nonlocal rule
        if rule:
            subprocess.run(["iptables", "-D", "INPUT"] + rule, check=True)
            rule = None
        if probability:
            rule = ["-p", "udp", "-m", "length", "--length", "400:65535"]
            if probability < 1:
                rule += ["-m", "statistic", "--mode", "random", "--probability", str(probability)]
            rule += ["-j", "DROP"]
            subprocess.run(["iptables", "-A", "INPUT"] + rule, check=True)
    reports = {}  # page index -> latest report
    history = {}  # page index -> every report, in the order they arrived
    lock = threading.Lock()

    class Collector(QuietHandler):
        def do_POST(self):
            body = self.body()
            index = int(self.path.rsplit("/", 1)[-1])
            with lock:
                reports[index] = json.loads(body or b"{}")
                history.setdefault(index, []).append(reports[index])
            self.send_response(204)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()

    collector = serve_in_thread(Collector, host)
    workdir = tempfile.mkdtemp(prefix="serve-chromium-")
    stats_path = os.path.join(workdir, "stats.jsonl")
    port = free_port(host)
    token = os.urandom(16).hex()  # beyond loopback the server requires one; the page takes it from #token=
    log = open(os.path.join(workdir, "serve.log"), "w")
    serve = subprocess.Popen(
        [args.rtc_h264, "serve", "--whep", f"{url_host(host)}:{port}", "--size", args.size, "--fps", "30", "--bitrate", args.bitrate,
         "--frames", str(args.frames), "--stats", stats_path, "--max-viewers", str(max(2, args.viewers)), "--token", token,
         "--temporal-layers", str(args.temporal_layers)] + (["--simulcast", str(args.simulcast)] if args.simulcast else []),
        stdout=log, stderr=subprocess.STDOUT)
    browsers = []
    failures = []
    devtools, session, shot = None, None, None
    try:
        page = f"http://{url_host(host)}:{port}/"
        answered = get_when_listening(page, serve)
        if answered is None:
            failures.append("serve did not start listening")
            raise SystemExit
        status, html = answered
        if status != 200 or "RTCPeerConnection" not in html:
            failures.append(f"GET / answered {status} without the viewer page")
        started = time.time()
        for index in range(args.viewers):
            profile = os.path.join(workdir, f"profile{index}")
            url = f"{page}#token={token}&report=http://{url_host(host)}:{collector.server_address[1]}/report/{index}"
            if args.restart_after:
                url += f"&restart={args.restart_after}"
            if args.screenshot and index == 0:
                devtools = DevToolsPipe(url, profile, extra=["--use-fake-ui-for-media-stream"])
                try:
                    session = devtools.page()
                    set_viewport(devtools, session, WIDE)
                except RuntimeError as error:
                    failures.append(f"page 0 through the DevTools pipe: {error}")
                    raise SystemExit
            else:
                browsers.append(launch_chromium(url, profile, extra=["--use-fake-ui-for-media-stream"]))
        # Until the stream has ended and every page's decoded count has stopped growing.
        stream_seconds = args.frames / 30.0
        last, last_change = None, time.time()
        first_frame_at = None
        blackout = "pending" if args.blackout_ms else "none"
        before_blackout = 0
        while time.time() - started < args.timeout:
            time.sleep(0.1)
            with lock:
                snapshot = {i: (r.get("frames"), r.get("error")) for i, r in reports.items()}
            if first_frame_at is None and any((f or 0) > 0 for f, _ in snapshot.values()):
                first_frame_at = time.time()
                impair(args.loss)
            if blackout == "pending" and first_frame_at and time.time() - first_frame_at > 1:
                before_blackout = min((f or 0) for f, _ in snapshot.values())
                impair(1.0)
                blackout, blackout_end = "on", time.time() + args.blackout_ms / 1000
            if blackout == "on" and time.time() >= blackout_end:
                impair(args.loss)
                blackout = "done"
            if first_frame_at and time.time() - started > stream_seconds + 0.5:
                impair(None)
            if any(error for _, error in snapshot.values()):
                break
            if session and shot is None:
                with lock:
                    playing = [r for r in refreshes(history.get(0, [])) if (r["panel"].get("fps") or 0) > 0]
                if len(playing) >= 3 and min(r["panel"]["fps"] for r in playing[-2:]) >= 10:  # a graph of 3 points
                    shot = screenshots(devtools, session, args.screenshot_dir or workdir, failures)
            if snapshot != last:
                last, last_change = snapshot, time.time()
            if (len(snapshot) == args.viewers and all((f or 0) > 0 for f, _ in snapshot.values())
                    and time.time() - started > stream_seconds + 1 and time.time() - last_change > 1.5):
                break
        serve.send_signal(signal.SIGINT)
        try:
            serve.wait(20)
        except subprocess.TimeoutExpired:
            serve.kill()
            failures.append("serve did not exit within 20 s of SIGINT")
        if serve.returncode not in (0, None):
            failures.append(f"serve exited with {serve.returncode}")
        lines = [json.loads(line) for line in open(stats_path) if line.strip()]
        final = lines[-1] if lines else {}
        viewers = final.get("viewerStats", [])
        sent = sorted(v["stats"]["framesSent"] for v in viewers if v.get("connected"))
        with lock:
            pages = [reports.get(i, {}) for i in range(args.viewers)]
        for i, report in enumerate(pages):
            if "error" in report:
                failures.append(f"page {i}: {report['error']}")
        decoded = sorted(r.get("frames", 0) for r in pages)
        if len(sent) != args.viewers:
            failures.append(f"the server counted {len(sent)} connected viewers, expected {args.viewers}")
        # A viewer is sent the frames encoded after it joined: its join is read off the first stats line (written once
        # a second) that shows it connected, less a second of frames for that granularity. (Chromium may start late
        # on a loaded machine; counting from the server's start read that as a fault of ours.)
        joined_at = {}
        for line in lines:
            for viewer in line.get("viewerStats", []):
                if viewer.get("connected") and viewer.get("id") not in joined_at:
                    joined_at[viewer.get("id")] = max(0, line.get("framesEncoded", 0) - 30)
        for viewer in viewers:
            if not viewer.get("connected"):
                continue
            frames_sent = viewer["stats"]["framesSent"]
            available = args.frames - joined_at.get(viewer.get("id"), 0)
            if frames_sent < available * 0.5:
                failures.append(f"a viewer was sent only {frames_sent} of the {available} frames encoded after it "
                                f"joined ({args.frames} in all)")
        # Under loss the last frame may be undecodable for a reason no receiver can see: when its last packet is lost
        # no later packet shows the gap, so nothing asks for it again (one frame of slack, only with --loss).
        tail = 1 if args.loss else 0
        # With temporal layers under loss Chromium does not wait for an upper-layer frame's repair: once a later frame
        # that does not depend on it is complete it decodes that one, and the repaired frame arrives stale and is
        # dropped (a frame whose last packet was lost shows its gap only when the next frame's first packet comes: a
        # race with that frame's completion). 0-2 such frames of 215 in 6 runs on an idle machine, 7 in one loaded CI
        # run. A wrong descriptor stalls decoding until a keyframe (hundreds of frames), which 95 % still catches.
        least = 0.95 if args.loss and args.temporal_layers > 1 else 0.99
        for frames_decoded, frames_sent in zip(decoded, sent):
            if not args.blackout_ms and frames_decoded + tail < least * frames_sent:
                failures.append(f"a page decoded {frames_decoded} of {frames_sent} frames sent (< {least:.0%})")
        for i, report in enumerate(pages):
            if report.get("offerToFirstFrameMs") is None:
                failures.append(f"page {i} decoded no frame")
        # With temporal layers Chromium receives every frame's dependency descriptor (the page asks for it) and
        # assembles frames by it: a wrong descriptor stalls its decoding, which the check above catches.
        for i, report in enumerate(pages):
            negotiated = DEPENDENCY_DESCRIPTOR_URI in report.get("headerExtensions", [])
            if negotiated != (args.temporal_layers > 1):
                failures.append(f"page {i}: dependency descriptor negotiated: {negotiated}, with "
                                f"--temporal-layers {args.temporal_layers} (extensions {report.get('headerExtensions')})")
        for viewer in viewers:
            if args.simulcast and viewer.get("connected") and viewer.get("layer") != "f":
                failures.append(f"a viewer ends on layer {viewer.get('layer')} ({viewer.get('layerSwitches')} switches), "
                                "expected f on an unconstrained path")
        for viewer in viewers:
            mode = viewer.get("stats", {}).get("scalabilityMode")
            if viewer.get("connected") and mode != f"L1T{args.temporal_layers}":
                failures.append(f"a viewer's scalabilityMode is {mode}, expected L1T{args.temporal_layers}")
        with lock:
            histories = [list(history.get(i, [])) for i in range(args.viewers)]
        comparisons = [compare_panel(i, h, args, failures) for i, h in enumerate(histories)]
        # Glass-to-glass latency: the page negotiates abs-capture-time and rrtr, so Chromium knows the round-trip time
        # and gives each frame a capture time; the panel shows their mean latency once it has frames.
        latencies = [r["panel"]["latencyMs"] for h in histories for r in refreshes(h)
                     if r["panel"].get("latencyMs") is not None]
        if not latencies:
            failures.append("no panel refresh showed a glass-to-glass latency (no frame carried a captureTime)")
        elif not all(0 <= value < 2000 for value in latencies):
            failures.append(f"implausible glass-to-glass latencies on the panel: {sorted(set(latencies))[:10]} ms")
        if args.screenshot and shot is None:
            failures.append("no screenshot: page 0's panel never showed frames decoded three times, the last two at "
                            "10 frames per second or more")
        stats = [v["stats"] for v in viewers if v.get("connected")]
        if args.loss:
            if sum(v.get("nackCount", 0) for v in stats) == 0:
                failures.append("no NACK reached the server under loss")
            if sum(v.get("retransmittedPacketsSent", 0) for v in stats) == 0:
                failures.append("the server retransmitted nothing under loss")
        if args.blackout_ms:
            if sum(v.get("pliCount", 0) + v.get("firCount", 0) for v in stats) == 0:
                failures.append("no PLI/FIR reached the server after the blackout")
            if min((v.get("keyFramesEncoded", 0) for v in stats), default=0) < 2:
                failures.append("no keyframe answered the PLI (one keyframe encoded)")
            if min((r.get("keyFramesDecoded", 0) for r in pages), default=0) < 2:
                failures.append("the page decoded no keyframe after the blackout")
            if min(decoded, default=0) < before_blackout + 20:
                failures.append(f"decoding did not resume after the blackout ({before_blackout} before, {decoded} at the end)")
        for i, report in enumerate(pages):
            if not report.get("trickled"):
                failures.append(f"page {i} trickled no candidate (offer with {report.get('offerCandidates')} "
                                f"candidates): {report.get('trickleError')}")
        if any(not v.get("trickledCandidates") for v in viewers if v.get("connected")):
            failures.append("the server counted no trickled candidate for a viewer: "
                            f"{[v.get('trickledCandidates') for v in viewers]}")
        if args.restart_after:
            for i, report in enumerate(pages):
                if report.get("iceRestarts") != 1 or report.get("restartError"):
                    failures.append(f"page {i}: {report.get('iceRestarts')} ICE restarts, "
                                    f"error {report.get('restartError')}")
                elif (report.get("frames") or 0) < (report.get("framesAtRestart") or 0) + 30:
                    failures.append(f"page {i} decoded {report.get('frames')} frames, {report.get('framesAtRestart')} "
                                    "at its ICE restart: not 30 more after it")
            restarts = [v.get("iceRestarts") for v in viewers if v.get("connected")]
            if restarts != [1] * args.viewers:
                failures.append(f"the server counted ICE restarts {restarts}, expected one per viewer")
        summary = {
            "viewers": args.viewers, "framesEncoded": final.get("framesEncoded"), "framesSent": sent,
            "framesDecoded": decoded,
            "offerToFirstFrameMs": [r.get("offerToFirstFrameMs") for r in pages],
            "offerToAnswerMs": [r.get("offerToAnswerMs") for r in pages],
            "offerToConnectedMs": [r.get("offerToConnectedMs") for r in pages],
            "pliReceived": sum(v["stats"].get("pliCount", 0) for v in viewers),
            "nackReceived": sum(v["stats"].get("nackCount", 0) for v in viewers),
            "retransmitted": sum(v["stats"].get("retransmittedPacketsSent", 0) for v in viewers),
            "loss": args.loss, "blackoutMs": args.blackout_ms,
            "offerCandidates": [r.get("offerCandidates") for r in pages],
            "trickled": [r.get("trickled") for r in pages],
            "serverTrickled": [v.get("trickledCandidates") for v in viewers],
            "iceRestarts": [r.get("iceRestarts") for r in pages],
            "restartMs": [r.get("restartMs") for r in pages],
            "framesAtRestart": [r.get("framesAtRestart") for r in pages],
            "rtcpReceived": sum(v["stats"].get("rtcpPacketsReceived", 0) for v in viewers),
            "srtcpFailures": sum(v["stats"].get("srtcpUnprotectFailures", 0) for v in viewers),
            "rtcpMalformed": sum(v["stats"].get("rtcpMalformed", 0) for v in viewers),
            "keyFramesEncoded": [v["stats"].get("keyFramesEncoded", 0) for v in viewers],
            "srtp": [r.get("srtp") for r in pages], "codec": [r.get("decoder") for r in pages],
            "size": [f"{r.get('width')}x{r.get('height')}" for r in pages],
            "panel": comparisons, "screenshot": shot,
            "latencyMs": {"min": min(latencies), "max": max(latencies)} if latencies else None,
        }
        if shot and shot.get("files") and not args.screenshot_dir:
            summary["screenshot"] = dict(shot, files="removed (kept on failure; --screenshot-dir keeps them)")
        print(json.dumps(summary), flush=True)
        if os.environ.get("SERVE_CHROMIUM_VERBOSE"):
            print(json.dumps(final, indent=1), json.dumps(pages, indent=1), file=sys.stderr)
    except SystemExit:
        pass
    finally:
        if rule:
            impair(None)
        if devtools:
            devtools.close()  # Chromium too
        for browser in browsers:
            stop_process(browser)
        if serve.poll() is None:
            serve.kill()
        collector.shutdown()
        log.close()
        if failures:
            sys.stderr.write(open(os.path.join(workdir, "serve.log")).read()[-3000:])
            if shot and shot.get("files") and not args.screenshot_dir:  # kept for a look at what failed
                kept = tempfile.mkdtemp(prefix="serve-chromium-screenshots-")
                for path in shot["files"]:
                    shutil.copy(path, kept)
                print(f"screenshots kept in {kept}", file=sys.stderr)
        shutil.rmtree(workdir, ignore_errors=True)
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    return 1 if failures else 0


def refreshes(reports):
    """The reports a panel refresh posted: their panel was computed from that very poll."""
    return [r for r in reports
            if r.get("panel") and r.get("panelWindow") and r["panelWindow"].get("to") == r.get("statsTimestamp")]


def compare_panel(index, reports, args, failures):
    """Checks every panel refresh of page `index` that had frames decoded over its window against the raw getStats()
    values the same poll reported (and those of the poll its rates started from); returns figures for the summary."""
    by_time = {r["statsTimestamp"]: r for r in reports if r.get("statsTimestamp") is not None}
    compared, fps_differences, bitrate_differences = [], [], []
    for report in refreshes(reports):
        panel, window = report["panel"], report["panelWindow"]
        start = by_time.get(window.get("from"))
        if start is None or report["frames"] <= start["frames"]:
            continue
        at = f"page {index}, panel refresh at {window['to'] - by_time[min(by_time)]['statsTimestamp']:.0f} ms"
        equal = [("width", panel["width"], report["width"]), ("height", panel["height"], report["height"]),
                 ("packets lost", panel["packetsLost"], report["packetsLost"]),
                 ("packets recovered", panel["packetsRecovered"], report["retransmittedPacketsReceived"]),
                 ("NACKs sent", panel["nackCount"], report["nackCount"]),
                 ("freezes", panel["freezeCount"], report["freezeCount"]),
                 ("RTT (ms)", panel["rttMs"],
                  None if report["roundTripTime"] is None else js_round(report["roundTripTime"] * 1000, 1))]
        for name, shown, actual in equal:
            if shown != actual:
                failures.append(f"{at}: the panel shows {name} {shown}, getStats() says {actual}")
        seconds = (window["to"] - window["from"]) / 1000
        bitrate = (report["bytesReceived"] - start["bytesReceived"]) * 8 / seconds / 1000
        if panel["bitrateKbps"] is None or abs(panel["bitrateKbps"] - bitrate) > BITRATE_TOLERANCE * bitrate:
            failures.append(f"{at}: the panel shows {panel['bitrateKbps']} kbit/s, the bytesReceived delta over "
                            f"{seconds:.3f} s gives {bitrate:.1f} kbit/s (more than {BITRATE_TOLERANCE:.0%} apart)")
        chromium_fps = report.get("framesPerSecond")
        fps_difference = None
        if chromium_fps is not None and not args.blackout_ms:
            fps_difference = abs((panel["fps"] or 0) - chromium_fps)
            if fps_difference > max(FPS_TOLERANCE_MINIMUM, FPS_TOLERANCE * chromium_fps):
                failures.append(f"{at}: the panel shows {panel['fps']} frames per second, getStats() framesPerSecond "
                                f"is {chromium_fps}")
        compared.append({"fps": panel["fps"], "framesPerSecond": chromium_fps, "kbps": panel["bitrateKbps"],
                         "bytesDeltaKbps": round(bitrate, 1), "rttMs": panel["rttMs"], "lost": panel["packetsLost"],
                         "recovered": panel["packetsRecovered"], "size": f"{panel['width']}x{panel['height']}"})
        if fps_difference is not None:
            fps_differences.append(fps_difference)
        if panel["bitrateKbps"] is not None and bitrate > 0:
            bitrate_differences.append(abs(panel["bitrateKbps"] - bitrate) / bitrate)
    if len(compared) < 2:
        failures.append(f"page {index}: {len(compared)} panel refreshes with frames decoded over their window "
                        f"(at least 2 expected; {len(refreshes(reports))} refreshes in all)")
    return {"refreshesCompared": len(compared),
            "fpsPanelVsFramesPerSecond": [[c["fps"], c["framesPerSecond"]] for c in compared],
            "kbpsPanelVsBytesDelta": [[c["kbps"], c["bytesDeltaKbps"]] for c in compared],
            "largestFpsDifference": round(max(fps_differences), 1) if fps_differences else None,
            "largestBitrateDifference": round(max(bitrate_differences), 4) if bitrate_differences else None,
            "last": compared[-1] if compared else None}


def js_round(value, digits):
    """`value` rounded as the page rounds it (Math.round: halves up, where Python's round() goes to even)."""
    return math.floor(value * 10 ** digits + 0.5) / 10 ** digits


def set_viewport(devtools, session, size):
    """The page's viewport in CSS pixels at device scale factor 1 (a headless window's size includes no viewport
    guarantee)."""
    devtools.call("Emulation.setDeviceMetricsOverride",
                  {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False}, session)


# What the page shows, read in one evaluation (the page cannot change in between): the panel's numbers and cells,
# where the picture and the panel are, the document's width, and whether the video plays.
LAYOUT_JS = """JSON.stringify((() => {
  const rect = (element) => {
    const r = element.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height};
  };
  const video = document.getElementById("video"), cells = {};
  document.querySelectorAll("#panel td").forEach((td) => { cells[td.id] = td.textContent; });
  return {panel: panel, cells: cells, video: rect(video), panelBox: rect(document.getElementById("panel")),
          videoWidth: video.videoWidth, videoHeight: video.videoHeight, paused: video.paused,
          currentTime: video.currentTime, scrollWidth: document.documentElement.scrollWidth};
})())"""


def shown_text(panel):
    """The cells' text as the page writes it for `panel` (ViewerPage.swift's refreshPanel)."""
    dash = "—"
    fixed = lambda value, suffix="": dash if value is None else f"{value:.1f}{suffix}"
    return {
        "resolution": f"{panel['width']} × {panel['height']}" if panel["width"] else dash,
        "fps": fixed(panel["fps"]),
        "bitrate": dash if panel["bitrateKbps"] is None else f"{panel['bitrateKbps']} kbit/s",
        "rtt": fixed(panel["rttMs"], " ms"), "lost": str(panel["packetsLost"]),
        "recovered": str(panel["packetsRecovered"]), "nacks": str(panel["nackCount"]),
        "freezes": f"{panel['freezeCount']} ({panel['freezesDurationS']:.1f} s)",
        "jitter": fixed(panel["jitterMs"], " ms"),
        "latency": dash if panel["latencyMs"] is None else f"{panel['latencyMs']} ms",
        "decoder": panel["decoder"] or dash,
    }


def picture_spread(png, box, video_size):
    """(size, brightest minus darkest luma, fraction of pixels brighter than 48) over the picture inside the video
    element's box (`object-fit: contain`: the picture is letterboxed into it), every 2nd pixel of every 2nd row."""
    width, height, rows = read_png(png)
    step = len(rows[0]) // width
    scale = min(box["width"] / video_size[0], box["height"] / video_size[1])
    left = int(box["x"] + (box["width"] - video_size[0] * scale) / 2) + 2
    top = int(box["y"] + (box["height"] - video_size[1] * scale) / 2) + 2
    right, bottom = min(width, left + int(video_size[0] * scale) - 4), min(height, top + int(video_size[1] * scale) - 4)
    lumas = [(299 * row[x * step] + 587 * row[x * step + 1] + 114 * row[x * step + 2]) // 1000
             for row in rows[top:bottom:2] for x in range(left, right, 2)]
    if not lumas:
        return (width, height), 0, 0.0
    return (width, height), max(lumas) - min(lumas), sum(1 for l in lumas if l > 48) / len(lumas)


def screenshots(devtools, session, directory, failures):
    """While page 0 plays: a screenshot at WIDE (saved as playing.png; its size, its picture not uniformly black,
    the video playing, the panel beside the picture, its cells showing the numbers the page reports) and one at NARROW
    (narrow.png; the panel below the picture, nothing wider than the screen). Returns figures for the summary."""
    os.makedirs(directory, exist_ok=True)
    try:
        shown = json.loads(devtools.evaluate(LAYOUT_JS, session))
        png = devtools.screenshot(session)
        set_viewport(devtools, session, NARROW)
        time.sleep(0.3)  # a layout and a frame at the new size
        narrow = json.loads(devtools.evaluate(LAYOUT_JS, session))
        narrow_png = devtools.screenshot(session)
        set_viewport(devtools, session, WIDE)
    except RuntimeError as error:
        failures.append(f"screenshot: {error}")
        return {"error": str(error)}
    paths = [os.path.join(directory, "playing.png"), os.path.join(directory, "narrow.png")]
    for path, data in zip(paths, (png, narrow_png)):
        with open(path, "wb") as file:
            file.write(data)
    try:
        picture = (shown["videoWidth"] or 1, shown["videoHeight"] or 1)
        size, spread, bright = picture_spread(png, shown["video"], picture)
        narrow_size = png_size(narrow_png)
    except ValueError as error:
        failures.append(f"screenshot playing.png: {error}")
        return {"error": str(error), "files": paths}
    if size != WIDE or narrow_size != NARROW:
        failures.append(f"the screenshots are {size[0]}x{size[1]} and {narrow_size[0]}x{narrow_size[1]}, expected "
                        f"{WIDE[0]}x{WIDE[1]} and {NARROW[0]}x{NARROW[1]}")
    if spread < 64 or bright < 0.05:
        failures.append(f"the picture in playing.png is uniformly dark (luma range {spread}, {bright:.1%} of it "
                        f"brighter than 48): no video shown")
    if shown["paused"] or shown["currentTime"] <= 0 or not shown["videoWidth"] or not (shown["panel"] or {}).get("fps"):
        failures.append(f"the video was not playing at the screenshot (paused {shown['paused']}, currentTime "
                        f"{shown['currentTime']}, videoWidth {shown['videoWidth']}, panel {shown['panel']})")
    for layout, name in ((shown, "wide"), (narrow, "narrow")):
        expected = shown_text(layout["panel"]) if layout["panel"] else None
        if expected is None or layout["cells"] != expected:
            failures.append(f"the {name} page's panel cells {layout['cells']} are not the numbers it reports "
                            f"{layout['panel']} (expected {expected})")
    video, box = shown["video"], shown["panelBox"]
    if box["x"] < video["x"] + video["width"] or box["y"] > video["y"] + video["height"]:
        failures.append(f"at {WIDE[0]}x{WIDE[1]} the panel {box} is not beside the picture {video}")
    video, box = narrow["video"], narrow["panelBox"]
    if box["y"] < video["y"] + video["height"] or narrow["scrollWidth"] > NARROW[0]:
        failures.append(f"at {NARROW[0]}x{NARROW[1]} the panel {box} is not below the picture {video}, or the page is "
                        f"{narrow['scrollWidth']} px wide")
    return {"size": f"{size[0]}x{size[1]}", "bytes": len(png), "lumaRange": spread, "brightFraction": round(bright, 3),
            "narrowSize": f"{narrow_size[0]}x{narrow_size[1]}", "narrowBytes": len(narrow_png),
            "cells": shown["cells"], "files": paths}


sys.exit(main())
