#!/usr/bin/python3
"""GStreamer rtpbin as an independent RTC receiver (issue 12, item 8): NACK with do-retransmission, RTX through
rtprtxreceive, RTCP multiplexed on one UDP port (RFC 5761).

rtpbin has no rtcp-mux of its own, so this script owns the UDP socket: a reader thread splits datagrams by their
second byte (RTCP packet types 192-223, RFC 5761 section 4) into two appsrc elements (rtpbin's RTP and RTCP sinks),
and rtpbin's outgoing RTCP (receiver reports, generic NACKs) comes out of an appsink and is sent from the same
socket to the address the stream comes from (symmetric RTP, so it goes back through the impairment relay).

The depayloaded access units (rtph264depay, alignment=au) are written as an Annex-B file; the caller compares them
with the sender's own bitstream. Statistics (rtprtxreceive's and the jitter buffer's) are printed as one JSON line
on stdout at the end. Plain RTP: the point is the repair, not the keys.

Usage: gstreamer-rtpbin-receiver.py --port P --output FILE --seconds S [--latency MS] [--pt 96] [--rtx-pt 97]
"""

import argparse
import json
import socket
import sys
import threading
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

RTCP_TYPES = range(192, 224)  # RFC 5761 section 4
GST_RTP_PROFILE_AVPF = 3  # GstRTPProfile: immediate feedback (NACK) allowed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True, help="UDP port to listen on (127.0.0.1)")
    parser.add_argument("--output", required=True, help="Annex-B file of the depayloaded access units")
    parser.add_argument("--seconds", type=float, required=True, help="stop this long after the first packet")
    parser.add_argument("--latency", type=int, default=300, help="jitter buffer latency, ms")
    parser.add_argument("--pt", type=int, default=96)
    parser.add_argument("--rtx-pt", type=int, default=97)
    parser.add_argument("--no-retransmission", action="store_true", help="no NACK, no RTX (for comparison)")
    args = parser.parse_args()
    if not (1 <= args.port <= 65535 and 0 < args.seconds <= 3600 and 10 <= args.latency <= 10_000):
        parser.error("--port must be 1-65535, --seconds 0-3600, --latency 10-10000")

    Gst.init(None)
    for name in ("rtpbin", "rtprtxreceive", "rtph264depay", "appsrc", "appsink"):
        if Gst.ElementFactory.find(name) is None:
            sys.exit(f"GStreamer element {name} missing: apt-get install gstreamer1.0-plugins-good "
                     "gstreamer1.0-plugins-base gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 python3-gi")

    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)
    sock.bind(("127.0.0.1", args.port))
    sock.settimeout(0.2)

    pipeline = Gst.Pipeline.new("receiver")
    rtpbin = Gst.ElementFactory.make("rtpbin")
    rtpbin.set_property("latency", args.latency)
    rtpbin.set_property("rtp-profile", GST_RTP_PROFILE_AVPF)
    rtpbin.set_property("do-retransmission", not args.no_retransmission)
    rtp_in = Gst.ElementFactory.make("appsrc", "rtp_in")
    rtcp_in = Gst.ElementFactory.make("appsrc", "rtcp_in")
    for source, caps in ((rtp_in, "application/x-rtp"), (rtcp_in, "application/x-rtcp")):
        source.set_property("caps", Gst.Caps.from_string(caps))
        source.set_property("is-live", True)
        source.set_property("format", Gst.Format.TIME)
        source.set_property("do-timestamp", True)
    rtcp_out = Gst.ElementFactory.make("appsink", "rtcp_out")
    rtcp_out.set_property("emit-signals", True)
    rtcp_out.set_property("sync", False)
    rtcp_out.set_property("async", False)
    depay = Gst.ElementFactory.make("rtph264depay")
    # A gap the jitter buffer gives up on makes the depayloader ask for a keyframe (rtpsession sends a PLI).
    depay.set_property("request-keyframe", True)
    depay.set_property("wait-for-keyframe", True)
    capsfilter = Gst.ElementFactory.make("capsfilter")
    capsfilter.set_property(
        "caps", Gst.Caps.from_string("video/x-h264,stream-format=byte-stream,alignment=au"))
    sink = Gst.ElementFactory.make("filesink")
    sink.set_property("location", args.output)
    sink.set_property("sync", False)
    sink.set_property("async", False)
    for element in (rtpbin, rtp_in, rtcp_in, rtcp_out, depay, capsfilter, sink):
        pipeline.add(element)
    depay.link(capsfilter)
    capsfilter.link(sink)

    def pt_map(_bin, _session, pt):
        if pt == args.pt:
            return Gst.Caps.from_string(
                f"application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload={pt},"
                "rtcp-fb-nack=(boolean)true,rtcp-fb-nack-pli=(boolean)true")
        if pt == args.rtx_pt:
            return Gst.Caps.from_string(
                f"application/x-rtp,media=video,clock-rate=90000,encoding-name=RTX,payload={pt},apt={args.pt}")
        return None

    rtpbin.connect("request-pt-map", pt_map)

    rtx_receivers = []

    def aux_receiver(_bin, session):
        if args.no_retransmission:
            return None
        rtx = Gst.ElementFactory.make("rtprtxreceive")
        rtx.set_property("payload-type-map", Gst.Structure.new_from_string(
            f"application/x-rtp-pt-map,{args.pt}=(uint){args.rtx_pt}"))
        rtx_receivers.append(rtx)
        wrapper = Gst.Bin.new(f"rtx_{session}")
        wrapper.add(rtx)
        wrapper.add_pad(Gst.GhostPad.new(f"sink_{session}", rtx.get_static_pad("sink")))
        wrapper.add_pad(Gst.GhostPad.new(f"src_{session}", rtx.get_static_pad("src")))
        return wrapper

    rtpbin.connect("request-aux-receiver", aux_receiver)

    jitterbuffers = []
    rtpbin.connect("new-jitterbuffer", lambda _bin, jb, _session, _ssrc: jitterbuffers.append(jb))

    def pad_added(_bin, pad):
        if not pad.get_name().startswith("recv_rtp_src_0_"):
            return
        if pad.get_name().endswith(f"_{args.pt}") and not depay.get_static_pad("sink").is_linked():
            pad.link(depay.get_static_pad("sink"))
            return
        # Any other stream (an RTX SSRC not associated, a second source) is drained, so it cannot stop the pipeline.
        drain = Gst.ElementFactory.make("fakesink")
        drain.set_property("sync", False)
        drain.set_property("async", False)
        pipeline.add(drain)
        drain.sync_state_with_parent()
        pad.link(drain.get_static_pad("sink"))
        print(f"drained stream {pad.get_name()}", file=sys.stderr)

    rtpbin.connect("pad-added", pad_added)

    # The signal handlers above are connected before the session exists: rtpbin asks for the aux receiver and the
    # payload maps when the pads are requested.
    rtp_in.get_static_pad("src").link(rtpbin.request_pad_simple("recv_rtp_sink_0"))
    rtcp_in.get_static_pad("src").link(rtpbin.request_pad_simple("recv_rtcp_sink_0"))
    rtpbin.request_pad_simple("send_rtcp_src_0").link(rtcp_out.get_static_pad("sink"))

    # rtpsession's defaults space regular RTCP at least 5 s apart and early (NACK) feedback by the RTCP bandwidth of
    # an unknown session: most NACKs never left. Tell it the session's bandwidth and allow reports every 100 ms.
    session = rtpbin.emit("get-internal-session", 0)
    session.set_property("bandwidth", 2_000_000)
    session.set_property("rtcp-fraction", 0.05)
    session.set_property("rtcp-min-interval", 100 * Gst.MSECOND)
    session.set_property("rtcp-reduced-size", True)

    peer = {"address": None}
    sent_rtcp = {"datagrams": 0}

    def rtcp_sample(appsink):
        sample = appsink.emit("pull-sample")
        buffer = sample.get_buffer()
        ok, info = buffer.map(Gst.MapFlags.READ)
        if ok:
            data = bytes(info.data)
            buffer.unmap(info)
            if peer["address"] is not None:
                sock.sendto(data, peer["address"])
                sent_rtcp["datagrams"] += 1
        return Gst.FlowReturn.OK

    rtcp_out.connect("new-sample", rtcp_sample)

    loop = GLib.MainLoop()
    counts = {"rtp": 0, "rtcp": 0}
    started = {"at": None}
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            try:
                data, address = sock.recvfrom(65535)
            except socket.timeout:
                if started["at"] is not None and time.monotonic() - started["at"] > args.seconds:
                    break
                continue
            if len(data) < 2:
                continue
            peer["address"] = address
            if started["at"] is None:
                started["at"] = time.monotonic()
            is_rtcp = data[1] in RTCP_TYPES
            counts["rtcp" if is_rtcp else "rtp"] += 1
            (rtcp_in if is_rtcp else rtp_in).emit("push-buffer", Gst.Buffer.new_wrapped(data))
            if time.monotonic() - started["at"] > args.seconds:
                break
        rtp_in.emit("end-of-stream")
        rtcp_in.emit("end-of-stream")

    bus = pipeline.get_bus()
    bus.add_signal_watch()

    def on_message(_bus, message):
        if message.type == Gst.MessageType.ERROR:
            error, debug = message.parse_error()
            print(f"GStreamer error: {error.message} ({debug})", file=sys.stderr)
            loop.quit()
        elif message.type == Gst.MessageType.EOS:
            loop.quit()

    bus.connect("message", on_message)
    pipeline.set_state(Gst.State.PLAYING)
    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    # EOS comes once both appsrcs ended; a guard against a pipeline that never drains.
    GLib.timeout_add_seconds(int(args.seconds) + 60, lambda: loop.quit() or False)
    loop.run()
    stop.set()
    thread.join(timeout=2)

    stats = {"rtp_datagrams": counts["rtp"], "rtcp_datagrams": counts["rtcp"], "rtcp_sent": sent_rtcp["datagrams"]}
    for rtx in rtx_receivers:
        for name in ("num-rtx-requests", "num-rtx-packets", "num-rtx-assoc-packets"):
            stats[name] = stats.get(name, 0) + rtx.get_property(name)
    for jb in jitterbuffers:
        structure = jb.get_property("stats")
        for name in ("num-pushed", "num-lost", "num-late", "num-duplicates", "rtx-count", "rtx-success-count"):
            ok, value = structure.get_uint64(name)
            if ok:
                stats[name] = stats.get(name, 0) + value
    pipeline.set_state(Gst.State.NULL)
    print(json.dumps(stats), flush=True)


if __name__ == "__main__":
    main()
