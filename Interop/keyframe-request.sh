#!/usr/bin/env bash
# Scenario 6: a GStreamer receiver asks for keyframes (RTCP PLI) and our sender answers with IDRs.
#
# GStreamer: rtpbin rtp-profile=avpf (RTP on P, RTCP on P+1, its RTCP sent to our sender's port L+1)
#   ! identity drop-probability=0.05 (packet loss after the jitter buffer)
#   ! rtph264depay request-keyframe=true (on a gap it sends GstForceKeyUnit upstream; rtpsession turns it
#     into an RTCP PLI, RFC 4585 section 6.3.1) ! avdec_h264 ! fakesink.
# Our sender: `rtc-h264 send --no-srtp --no-rtcp-mux --local-port L --stats FILE` (RTCP listened on L+1).
# Checks: tshark sees GStreamer's RTCP arriving at L+1 with PLIs (PT 206, FMT 1), and our stats JSON lines
# show pliCount > 0 and keyFramesEncoded >= 2 (the first IDR plus at least one answering a PLI).
# Plain RTP: rtpbin would need srtpdec/srtpenc wired through its request-rtp-decoder/encoder signals,
# which gst-launch cannot do.
# Ports: 46000-46001 (receiver), 46010-46011 (sender).
source "$(dirname "$0")/lib.sh"
iop_init keyframe-request
iop_require gst-launch-1.0:gstreamer1.0-tools tshark:tshark ss:iproute2

FRAMES="${FRAMES:-150}"
port=46000
local_port=46010
iop_port_free $port $((port + 1)) $local_port $((local_port + 1))

iop_bg tshark tshark -i lo -f "udp dst port $((local_port + 1))" -w "$IOP_DIR/rtcp.pcapng"
tpid=$IOP_LAST_PID
waited=0
until grep -q "Capturing on" "$IOP_DIR/tshark.err" 2>/dev/null; do
    kill -0 "$tpid" 2>/dev/null || iop_fail "tshark could not capture on lo: $(tail -c 400 "$IOP_DIR/tshark.err")"
    [ "$waited" -lt 100 ] || iop_fail "tshark did not start capturing within 10 s"
    sleep 0.1; waited=$((waited + 1))
done

caps="application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)H264,payload=(int)96"
caps+=",rtcp-fb-nack-pli=(boolean)true"
iop_bg gst gst-launch-1.0 -e rtpbin name=rb rtp-profile=avpf \
    udpsrc address=127.0.0.1 port=$port caps="$caps" ! rb.recv_rtp_sink_0 \
    udpsrc address=127.0.0.1 port=$((port + 1)) ! rb.recv_rtcp_sink_0 \
    rb. ! identity drop-probability=0.05 ! rtph264depay request-keyframe=true ! avdec_h264 ! fakesink \
    rb.send_rtcp_src_0 ! udpsink host=127.0.0.1 port=$((local_port + 1)) sync=false async=false
gpid=$IOP_LAST_PID
iop_wait_udp $port 10
iop_wait_udp $((port + 1)) 10
sleep 0.5

iop_bg send "$RTC" send --to "127.0.0.1:$port" --local-port $local_port --no-srtp --no-rtcp-mux \
    --size 640x360 --fps 30 --frames "$FRAMES" --stats "$IOP_DIR/stats.jsonl" --quiet
iop_wait "$IOP_LAST_PID" 30 || iop_fail "rtc-h264 send failed: $(tail -c 400 "$IOP_DIR/send.err")"
sleep 0.5
kill -INT "$gpid" 2>/dev/null || true
iop_wait "$gpid" 10 || iop_fail "gst-launch did not stop cleanly: $(tail -c 400 "$IOP_DIR/gst.err")"
kill -TERM "$tpid" 2>/dev/null || true
iop_wait "$tpid" 10 || true

# On the wire: RTCP packets from GStreamer and the PLIs among them.
fields="$IOP_DIR/rtcp.txt"
tshark -r "$IOP_DIR/rtcp.pcapng" -d "udp.port==$((local_port + 1)),rtcp" -T fields -E occurrence=a -E aggregator=, \
    -e rtcp.pt -e rtcp.psfb.fmt >"$fields" 2>/dev/null || iop_fail "tshark could not dissect the RTCP capture"
datagrams=$(grep -c . "$fields" || true)
plis=$(awk -F'\t' '{ n = split($1, pt, ","); m = split($2, fmt, ",");
                     k = 0; for (i = 1; i <= n; i++) if (pt[i] == 206) { k++; if (fmt[k] == 1) plis++ } }
                   END { print plis + 0 }' "$fields")
[ "$datagrams" -gt 0 ] || iop_fail "no RTCP from GStreamer reached our sender's port $((local_port + 1))"
[ "$plis" -gt 0 ] || iop_fail "GStreamer sent $datagrams RTCP datagrams but no PLI (PT 206 FMT 1)"
iop_log "wire: GStreamer sent $datagrams RTCP datagrams to our sender, $plis PLI (PT 206, FMT 1)"

# Our sender's view (the last stats line holds the running totals).
[ -s "$IOP_DIR/stats.jsonl" ] || iop_fail "rtc-h264 send wrote no stats"
last="$IOP_DIR/stats.last"
tail -1 "$IOP_DIR/stats.jsonl" >"$last"
pli=$(iop_json_field "$last" pliCount); keyframes=$(iop_json_field "$last" keyFramesEncoded)
rtcp=$(iop_json_field "$last" rtcpPacketsReceived); latency=$(iop_json_field "$last" keyframeRequestLatency)
[ -n "$pli" ] && [ -n "$keyframes" ] || iop_fail "stats lack pliCount/keyFramesEncoded: $(head -c 300 "$last")"
[ "$pli" -gt 0 ] || iop_fail "rtc-h264 send counted no PLI (rtcpPacketsReceived=$rtcp) though $plis were on the wire"
[ "$keyframes" -ge 2 ] || iop_fail "rtc-h264 send encoded $keyframes keyframe(s) after $pli PLI; expected >= 2"
iop_log "rtc-h264 send stats: rtcpPacketsReceived=$rtcp pliCount=$pli keyFramesEncoded=$keyframes keyframeRequestLatency=${latency:-?}s"
iop_log "PASS: GStreamer's PLIs reached our sender, which answered with $((keyframes - 1)) extra IDR(s)"
