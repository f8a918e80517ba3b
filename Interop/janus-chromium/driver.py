#!/usr/bin/env python3
"""Drives one pass of the janus-chromium scenario and checks it.

  driver.py run   ...   (inside the viewer namespace) creates the Janus mountpoint through the HTTP API, opens two
                        viewer tabs in headless Chromium through its DevTools HTTP endpoint (the second one joining
                        mid-stream), cuts the sender->Janus path for a few seconds through the relay, waits for both
                        viewers to recover, closes the tabs and destroys the mountpoint. Writes the times of what it
                        did to --marks.
  driver.py check ...   (anywhere, after the sender and the relay have stopped) reads the marks, the viewers'
                        reports, the relay's wire log and the sender's --stats lines; prints a summary table and exits
                        non-zero with a "FAIL:" line per failed assertion.

Times are wall-clock seconds (time.time()) everywhere; the pages report Date.now() milliseconds, the same clock.
The SRTP key (--key-file) goes only into the mountpoint "create" request; it is never printed.
"""
import argparse
import json
import os
import random
import signal
import sys
import time
import urllib.parse
import urllib.request

FMTP = "profile-level-id=42e01f;packetization-mode=1"   # Constrained Baseline 3.1: what headless Chromium offers
PAYLOAD_TYPE = 96
SRTP_SUITE_AES_CM_128_HMAC_SHA1_80 = 80                 # Janus "srtpsuite": 32 or 80
MIN_DECODED_RATIO = 0.95
MAX_JOIN_TO_FIRST_FRAME = 1.0
MAX_PLI_TO_IDR = 0.5                                    # our 300 ms keyframe throttle + one frame, with margin


def log(label, message):
    print(f"[janus-chromium/{label}] {message}", flush=True)


# ---------------------------------------------------------------------------------------------------------- run

class JanusError(Exception):
    pass


def janus_request(url, body, timeout=10):
    body = dict(body, transaction="%012x" % random.getrandbits(48))
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        reply = json.load(response)
    if reply.get("janus") == "error":
        raise JanusError(f"Janus error {reply['error'].get('code')}: {reply['error'].get('reason')}")
    data = (reply.get("plugindata") or {}).get("data") or {}
    if "error" in data:
        raise JanusError(f"streaming plugin error {data.get('error_code')}: {data['error']}")
    return reply


def streaming_handle(base):
    """Creates a Janus session with the streaming plugin attached; returns the handle's URL."""
    session = janus_request(base, {"janus": "create"})["data"]["id"]
    handle = janus_request(f"{base}/{session}", {"janus": "attach", "plugin": "janus.plugin.streaming"})["data"]["id"]
    return f"{base}/{session}", f"{base}/{session}/{handle}"


def plugin_request(handle_url, body):
    reply = janus_request(handle_url, {"janus": "message", "body": body})
    return (reply.get("plugindata") or {}).get("data") or {}


def read_jsonl(path):
    records = []
    if not os.path.exists(path):
        return records
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    records.append(json.loads(line))
                except ValueError:
                    pass                         # a line being written right now
    return records


def viewer_reports(path, name):
    return [r for r in read_jsonl(path) if r.get("viewer") == name]


def latest_inbound(path, name):
    reports = [r for r in viewer_reports(path, name) if r.get("inbound")]
    return reports[-1] if reports else None


def wait_for(what, predicate, timeout, interval=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(what)


def open_tab(cdp, url):
    target = urllib.parse.quote(url, safe=":/?=")
    request = urllib.request.Request(f"{cdp}/json/new?{target}", method="PUT")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)["id"]


def close_tab(cdp, tab):
    try:
        urllib.request.urlopen(f"{cdp}/json/close/{tab}", timeout=5).read()
    except OSError:
        pass


def describe_viewer(reports, name):
    rs = viewer_reports(reports, name)
    if not rs:
        return "no report at all (the page did not load or could not reach the collector)"
    last = rs[-1]
    return (f"connectionState={last.get('connectionState')} errors={last.get('errors')} "
            f"janusEvents={[e.get('result') or e.get('janus') for e in last.get('janusEvents', [])]} "
            f"inbound={last.get('inbound')}")


def run(args):
    label = args.label
    marks = {"label": label, "mountpoint": args.mp, "viewers": {}}

    def mark(name):
        marks[name] = time.time()

    def save():
        with open(args.marks, "w") as f:
            json.dump(marks, f)

    tabs = []
    session_url, handle = streaming_handle(args.janus)
    create = {"request": "create", "type": "rtp", "id": args.mp, "description": f"rtc-h264 {label}",
              "permanent": False,
              "media": [{"type": "video", "mid": "v", "port": args.video_port, "rtcpport": args.video_port + 1,
                         "pt": PAYLOAD_TYPE, "codec": "h264", "fmtp": FMTP}]}
    if args.key_file:
        with open(args.key_file) as f:
            key = f.read().strip()
        if key.startswith("inline:"):
            key = key[len("inline:"):].split("|", 1)[0]
        create["srtpsuite"] = SRTP_SUITE_AES_CM_128_HMAC_SHA1_80
        create["srtpcrypto"] = key
    try:
        created = plugin_request(handle, create)
    except JanusError as error:
        raise SystemExit(f"FAIL: Janus refused the mountpoint: {error}")
    finally:
        create.pop("srtpcrypto", None)
    if created.get("streaming") != "created":
        raise SystemExit(f"FAIL: Janus did not create the mountpoint: {created}")
    mark("created")
    log(label, f"mountpoint {args.mp} created: H.264 pt {PAYLOAD_TYPE} {FMTP}, video port {args.video_port}, "
               f"rtcpport {args.video_port + 1}{', SRTP AES_CM_128_HMAC_SHA1_80' if args.key_file else ', plain RTP'}")
    try:
        # Janus learns where to send PLI/REMB from our Sender Reports on its rtcpport: wait for one after creation,
        # and for Janus to be receiving the media.
        wait_for("a Sender Report forwarded to Janus after the mountpoint was created",
                 lambda: any(e.get("ev") == "rtcp" and e.get("dir") == "sr" and e["t"] > marks["created"]
                             for e in read_jsonl(args.relay_log)), 5)

        def receiving():
            info = plugin_request(handle, {"request": "info", "id": args.mp}).get("info") or {}
            media = info.get("media") or []
            return media and media[0].get("age_ms") is not None and media[0]["age_ms"] < 500
        wait_for("Janus receiving the video (mountpoint info age_ms < 500)", receiving, 5, 0.2)
        mark("media")

        page = f"{args.page}?janus={args.janus_for_page}&mp={args.mp}&capture=1"
        for index, name in enumerate(args.viewers):
            if index > 0:
                time.sleep(args.join_gap)
            marks["viewers"][name] = {"opened": time.time()}
            tabs.append(open_tab(args.cdp, f"{page}&name={name}"))
            try:
                report = wait_for(f"viewer {name}'s first decoded frame", lambda: next(
                    (r for r in viewer_reports(args.reports, name) if (r.get("timings") or {}).get("firstFrameAt")),
                    None), args.first_frame_timeout)
            except TimeoutError:
                raise SystemExit(f"FAIL: viewer {name} decoded no frame within {args.first_frame_timeout} s: "
                                 + describe_viewer(args.reports, name))
            t = report["timings"]
            log(label, f"viewer {name}: first frame {t['firstFrameAt'] - t['joinAt']} ms after joining")
        time.sleep(args.steady)
        mark("phase1End")

        before = {name: (latest_inbound(args.reports, name) or {}).get("inbound") or {} for name in args.viewers}
        os.kill(args.relay_pid, signal.SIGUSR1)
        mark("burstStart")
        log(label, f"loss burst: the relay drops everything from the sender for {args.burst} s")
        time.sleep(args.burst)
        os.kill(args.relay_pid, signal.SIGUSR2)
        mark("burstEnd")

        def recovered():
            for name in args.viewers:
                now = (latest_inbound(args.reports, name) or {}).get("inbound") or {}
                if now.get("keyFramesDecoded", 0) <= before[name].get("keyFramesDecoded", 0):
                    return False
                if now.get("framesDecoded", 0) <= before[name].get("framesDecoded", 0) + 5:
                    return False
            return True
        try:
            wait_for("both viewers decoding again after the burst", recovered, args.recovery_timeout, 0.1)
        except TimeoutError:
            log(label, f"viewers not recovered {args.recovery_timeout} s after the burst (checked below)")
        mark("recovered")
        time.sleep(args.tail)
        mark("end")
    finally:
        save()
        for tab in tabs:
            close_tab(args.cdp, tab)
        try:
            plugin_request(handle, {"request": "destroy", "id": args.mp})
            janus_request(session_url, {"janus": "destroy"})
        except (OSError, JanusError) as error:
            log(label, f"could not destroy the mountpoint: {error}")
    save()


# -------------------------------------------------------------------------------------------------------- check

def first(iterable, default=None):
    return next(iter(iterable), default)


def check(args):
    label = args.label
    failures = []

    def fail(message):
        failures.append(message)
        print(f"[janus-chromium/{label}] FAIL: {message}", flush=True)

    with open(args.marks) as f:
        marks = json.load(f)
    relay = read_jsonl(args.relay_log)
    stats = read_jsonl(args.stats)
    frames = [e for e in relay if e.get("ev") == "frame"]
    fb = [e for e in relay if e.get("ev") == "rtcp" and e.get("dir") == "fb"]
    end = first(e for e in relay if e.get("ev") == "end") or {}
    if not stats:
        raise SystemExit(f"FAIL: [{label}] the sender wrote no --stats line")
    final = stats[-1]

    # 1. The frames the relay saw are the frames the sender says it sent.
    if final.get("framesSent") != len(frames):
        fail(f"the sender's framesSent ({final.get('framesSent')}) differs from the access units on the wire "
             f"({len(frames)}): packets were lost before the relay")
    forwarded = [f for f in frames if not f["dropped"]]

    def frames_between(t0, t1):
        return sum(1 for f in forwarded if t0 <= f["t0"] <= t1)

    # 2. Per viewer: decoded ratio while connected (until the end of the steady phase), join-to-first-frame.
    rows = []
    viewer_rows = {}
    for name in marks["viewers"]:
        reports = viewer_reports(args.reports, name)
        with_inbound = [r for r in reports if r.get("inbound")]
        if not with_inbound:
            fail(f"viewer {name} reported no inbound-rtp statistics: {describe_viewer(args.reports, name)}")
            continue
        timings = with_inbound[-1]["timings"]
        connected = (timings.get("connectedAt") or 0) / 1000
        at_end = [r for r in with_inbound if r["t"] / 1000 <= marks["phase1End"]]
        if not connected or not at_end:
            fail(f"viewer {name} has no report between connecting and the end of the steady phase")
            continue
        steady = at_end[-1]
        inbound = steady["inbound"]
        sent = frames_between(connected, steady["t"] / 1000)
        decoded = inbound["framesDecoded"]
        ratio = decoded / sent if sent else 0.0
        join = (timings["firstFrameAt"] - timings["joinAt"]) / 1000 if timings.get("firstFrameAt") else None
        viewer_rows[name] = {"sent": sent, "decoded": decoded, "ratio": ratio, "join": join, "inbound": inbound,
                             "connected": connected, "reports": with_inbound}
        if sent < 30:
            fail(f"viewer {name} was connected for only {sent} frames: nothing to measure")
        if ratio < MIN_DECODED_RATIO:
            fail(f"viewer {name} decoded {decoded} of the {sent} frames sent while it was connected "
                 f"({ratio:.1%} < {MIN_DECODED_RATIO:.0%}); freezes {inbound['freezeCount']}, "
                 f"lost packets {inbound['packetsLost']}")
        if inbound.get("frameWidth") != 640 or inbound.get("frameHeight") != 360:
            fail(f"viewer {name} decoded {inbound.get('frameWidth')}x{inbound.get('frameHeight')}, expected 640x360")
        if not inbound.get("decoderImplementation"):
            fail(f"viewer {name}: getStats() hides decoderImplementation (the page could not open its fake capture: "
                 f"{with_inbound[-1]['timings'].get('capture')})")
        if inbound.get("mimeType") != "video/H264" or "profile-level-id=42e01f" not in inbound.get("sdpFmtpLine", ""):
            fail(f"viewer {name} negotiated {inbound.get('mimeType')} {inbound.get('sdpFmtpLine')}, "
                 f"expected video/H264 with profile-level-id=42e01f")
    names = list(marks["viewers"])
    if len(names) >= 2 and names[-1] in viewer_rows:
        join = viewer_rows[names[-1]]["join"]
        if join is None or join > MAX_JOIN_TO_FIRST_FRAME:
            fail(f"the joining viewer {names[-1]} showed its first frame {join} s after joining "
                 f"(limit {MAX_JOIN_TO_FIRST_FRAME} s)")

    # 3. The loss burst: the browsers' keyframe requests reach the sender, which answers with an IDR.
    burst_start, burst_end = marks["burstStart"], marks["burstEnd"]
    plis = [e for e in fb if (e["pli"] or e["fir"]) and e["t"] >= burst_start]
    if not plis:
        fail("no PLI/FIR from Janus reached the sender's path after the loss burst began")
    if final.get("pliCount", 0) + final.get("firCount", 0) < end.get("pliToSender", 0) + end.get("firToSender", 0):
        fail(f"the relay delivered {end.get('pliToSender')} PLI and {end.get('firToSender')} FIR to the sender, "
             f"which counted only pliCount={final.get('pliCount')} firCount={final.get('firCount')} "
             f"(rtcpPacketsReceived={final.get('rtcpPacketsReceived')}, "
             f"srtcpUnprotectFailures={final.get('srtcpUnprotectFailures')}, "
             f"packetsFromStrangers={final.get('packetsFromStrangers')})")
    # Every feedback datagram Janus sent reached the sender and was accepted (one may be in flight at the stop).
    if final.get("rtcpPacketsReceived", 0) < end.get("rtcpToSender", 0) - 1:
        fail(f"Janus sent {end.get('rtcpToSender')} RTCP datagrams to the sender, which accepted only "
             f"rtcpPacketsReceived={final.get('rtcpPacketsReceived')} (srtcpUnprotectFailures="
             f"{final.get('srtcpUnprotectFailures')}, rtcpMalformed={final.get('rtcpMalformed')})")
    if frames and frames[0]["idr"] is None and "plainRTCPAccepted" in final \
            and final["plainRTCPAccepted"] < end.get("rtcpToSender", 0) - 1:
        fail(f"SRTP with --accept-plain-rtcp: plainRTCPAccepted={final['plainRTCPAccepted']} but Janus sent "
             f"{end.get('rtcpToSender')} plain RTCP datagrams")
    # Map the sender's own stats lines onto the wall clock: its clock starts with its first frame.
    anchor = frames[0]["t0"] - 1 / 30 if frames else 0
    before = [s for s in stats if anchor + s["timestamp"] < burst_start]
    after = [s for s in stats if anchor + s["timestamp"] > marks["recovered"]]
    pli_before = before[-1].get("pliCount", 0) if before else 0
    pli_after = after[0].get("pliCount", 0) if after else final.get("pliCount", 0)
    if pli_after <= pli_before:
        fail(f"the sender's pliCount did not increase across the burst ({pli_before} before, {pli_after} after)")
    key_before = before[-1].get("keyFramesEncoded", 0) if before else 0
    key_after = final.get("keyFramesEncoded", 0)
    if key_after <= key_before:
        fail(f"the sender encoded no IDR after the burst (keyFramesEncoded {key_before} -> {key_after})")
    # The PLI that got an IDR through: the first PLI whose next IDR was forwarded (the relay can read NAL types
    # only in plain RTP; with SRTP the sender's keyframeRequestLatency stands in).
    answered = None
    for pli in plis:
        idr = first(f for f in frames if f["t0"] >= pli["t"] and f["idr"])
        if idr is not None and not idr["dropped"]:
            answered = (pli, idr)
            break
    pli_to_idr = None
    encrypted = frames and frames[0]["idr"] is None
    if answered:
        pli_to_idr = answered[1]["t0"] - answered[0]["t"]
    elif encrypted:
        pli_to_idr = final.get("keyframeRequestLatency")
    elif plis:
        fail("no IDR left the sender (un-dropped) after any of the PLIs that followed the burst")
    if pli_to_idr is not None and pli_to_idr > MAX_PLI_TO_IDR:
        fail(f"the IDR left the sender {pli_to_idr:.3f} s after the PLI (limit {MAX_PLI_TO_IDR} s)")
    recovery = {}
    for name, row in viewer_rows.items():
        # The baseline is the last report before the path came back (frames in flight when the burst began may
        # still be decoded after it began); recovery is the first report after that with a new keyframe decoded.
        pre = [r for r in row["reports"] if r["t"] / 1000 <= burst_end]
        keys_before = pre[-1]["inbound"]["keyFramesDecoded"] if pre else 0
        decoded_before = pre[-1]["inbound"]["framesDecoded"] if pre else 0
        again = first(r for r in row["reports"] if r["t"] / 1000 > burst_end
                      and r["inbound"]["keyFramesDecoded"] > keys_before and r["inbound"]["framesDecoded"] > decoded_before)
        if again is None:
            fail(f"viewer {name} decoded no keyframe after the burst: {row['reports'][-1]['inbound']}")
        else:
            recovery[name] = again["t"] / 1000 - burst_end
            # The keyframe request that got it there: the last PLI/FIR on the wire before the keyframe showed.
            request = [e for e in plis if e["t"] <= again["t"] / 1000]
            if request:
                row["pliToDecoded"] = again["t"] / 1000 - request[-1]["t"]
        last = row["reports"][-1]["inbound"]
        row["pli"] = last["pliCount"]
        row["nack"] = last["nackCount"]
        row["freezes"] = last["freezeCount"]
        row["freezeTime"] = last["totalFreezesDuration"]
        row["decoder"] = last.get("decoderImplementation") or "(hidden)"

    # 4. REMB: a REMB below the target lowers the target.
    rembs = [e["remb"] for e in fb if e.get("remb")]
    lowered = first(s for s in stats if s.get("rembBitrate") and s["rembBitrate"] < s["operatorBitrate"]
                    and s["targetBitrate"] < s["operatorBitrate"] and s["targetBitrate"] <= s["rembBitrate"])
    if not rembs:
        fail("Janus sent no REMB to the sender")
    elif lowered is None:
        below = [r for r in rembs if r < final.get("operatorBitrate", 0)]
        fail(f"no stats line shows the target lowered by a REMB (REMBs seen {len(rembs)}, {len(below)} below the "
             f"operator's {final.get('operatorBitrate')} bit/s; targetBitrate stayed "
             f"{sorted(set(s['targetBitrate'] for s in stats))})")

    # Summary.
    print(f"\n[janus-chromium/{label}] {'viewer':<8} {'decoded/sent':>13} {'ratio':>7} {'join->1st frame':>16} "
          f"{'freezes':>8} {'PLI':>4} {'NACK':>5} {'recovery':>9} {'PLI->decoded':>13}  decoder, size")
    for name, row in viewer_rows.items():
        inbound = row["inbound"]
        join = f"{row['join'] * 1000:.0f} ms" if row["join"] is not None else "-"
        rec = f"{recovery[name]:.2f} s" if name in recovery else "-"
        to_decoded = f"{row['pliToDecoded'] * 1000:.0f} ms" if "pliToDecoded" in row else "-"
        print(f"[janus-chromium/{label}] {name:<8} {row['decoded']:>6}/{row['sent']:<6} {row['ratio']:>7.1%} "
              f"{join:>16} {row.get('freezes', 0):>3} ({row.get('freezeTime', 0):.1f} s) {row.get('pli', 0):>4} "
              f"{row.get('nack', 0):>5} {rec:>9} {to_decoded:>13}  {row.get('decoder')}, "
              f"{inbound['frameWidth']}x{inbound['frameHeight']}")
    first_pli = f"{plis[0]['t'] - burst_start:.2f} s" if plis else "none"
    idr_text = f"{pli_to_idr * 1000:.0f} ms" if pli_to_idr is not None else "none"
    source = "wire" if answered else "sender stats keyframeRequestLatency"
    print(f"[janus-chromium/{label}] burst {burst_end - burst_start:.1f} s: first PLI at the sender "
          f"{first_pli} after it began; {len(plis)} PLI/FIR since; PLI -> IDR out of the sender {idr_text} ({source}); "
          f"sender pliCount {pli_before} -> {pli_after}, keyFramesEncoded {key_before} -> {key_after}")
    if rembs:
        print(f"[janus-chromium/{label}] REMB: {len(rembs)} from Janus, first {rembs[0] / 1e6:.2f} Mbit/s, lowest "
              f"{min(rembs) / 1e6:.2f}; " + (f"target {lowered['operatorBitrate'] / 1e6:.2f} -> "
              f"{lowered['targetBitrate'] / 1e6:.2f} Mbit/s (REMB {lowered['rembBitrate'] / 1e6:.2f})"
              if lowered else "target never lowered"))
    print(f"[janus-chromium/{label}] wire: {len(frames)} frames sent (sender framesSent {final.get('framesSent')}), "
          f"{sum(1 for f in frames if f['dropped'])} dropped in the burst; RTCP from Janus {end.get('rtcpToSender')}, "
          f"sender rtcpPacketsReceived {final.get('rtcpPacketsReceived')}, plainRTCPAccepted "
          f"{final.get('plainRTCPAccepted', '-')}, srtcpUnprotectFailures {final.get('srtcpUnprotectFailures')}, "
          f"packetsFromStrangers {final.get('packetsFromStrangers')}\n", flush=True)
    if args.summary:
        with open(args.summary, "a") as f:
            for name, row in viewer_rows.items():
                f.write(json.dumps({"pass": label, "viewer": name, "ratio": row["ratio"], "sent": row["sent"],
                                    "decoded": row["decoded"], "join": row["join"], "recovery": recovery.get(name),
                                    "pliToIdr": pli_to_idr, "firstPli": plis[0]["t"] - burst_start if plis else None,
                                    "pliToDecoded": row.get("pliToDecoded"),
                                    "decoder": row.get("decoder")}) + "\n")
    if failures:
        raise SystemExit(f"FAIL: [{label}] {len(failures)} check(s) failed")
    print(f"[janus-chromium/{label}] PASS", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--label", required=True)
    r.add_argument("--janus", required=True, help="the Janus REST base URL, e.g. http://10.77.0.1:8088/janus")
    r.add_argument("--janus-for-page", help="the same as seen from the page (default: --janus)")
    r.add_argument("--mp", type=int, required=True, help="mountpoint id")
    r.add_argument("--video-port", type=int, required=True, help="the mountpoint's RTP port (rtcpport = +1)")
    r.add_argument("--key-file", help="SRTP: file with the base64 AES_CM_128 key+salt (never printed)")
    r.add_argument("--cdp", required=True, help="Chromium's DevTools HTTP endpoint, e.g. http://127.0.0.1:9222")
    r.add_argument("--page", required=True, help="the viewer page URL (without query)")
    r.add_argument("--reports", required=True)
    r.add_argument("--relay-log", required=True)
    r.add_argument("--relay-pid", type=int, required=True)
    r.add_argument("--marks", required=True)
    r.add_argument("--viewers", nargs="+", default=["A", "B"])
    r.add_argument("--join-gap", type=float, default=5.0)
    r.add_argument("--steady", type=float, default=8.0)
    r.add_argument("--burst", type=float, default=4.0)
    r.add_argument("--first-frame-timeout", type=float, default=10.0)
    r.add_argument("--recovery-timeout", type=float, default=10.0)
    r.add_argument("--tail", type=float, default=1.5)
    c = sub.add_parser("check")
    c.add_argument("--label", required=True)
    c.add_argument("--marks", required=True)
    c.add_argument("--reports", required=True)
    c.add_argument("--relay-log", required=True)
    c.add_argument("--stats", required=True)
    c.add_argument("--summary", help="append one JSON line per viewer here")
    args = parser.parse_args()
    if args.command == "run":
        args.janus_for_page = args.janus_for_page or args.janus
        try:
            run(args)
        except (TimeoutError, JanusError, OSError) as error:
            raise SystemExit(f"FAIL: [{args.label}] {error}")
    else:
        check(args)


if __name__ == "__main__":
    sys.exit(main())
