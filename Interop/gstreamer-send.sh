#!/usr/bin/env bash
# Scenario 4: GStreamer sends, `rtc-h264 receive` decodes.
#
# GStreamer: videotestsrc ! openh264enc ! h264parse ! tee, one branch to a byte-stream file (the exact
# bitstream), the other through rtph264pay config-interval=-1 aggregate-mode=zero-latency ! srtpenc ! udpsink.
# Our receiver gets a hand-written SDP (RTP/SAVP, a=crypto AES_CM_128_HMAC_SHA1_80, packetization-mode=1,
# no sprop-parameter-sets: SPS/PPS come in band). Checks: the receiver's JSON summary says every frame was
# decoded (framesDecoded = FRAMES, no decode error, no SRTP failure, no loss), the Y4M holds FRAMES frames,
# and their MD5s equal those of ffmpeg decoding GStreamer's own bitstream file.
# Cases: one slice per frame (openh264enc defaults); four slices per frame with an IDR every 30 frames.
# Ports: 44000-44011.
source "$(dirname "$0")/lib.sh"
iop_init gstreamer-send
iop_require gst-launch-1.0:gstreamer1.0-tools ffmpeg:ffmpeg ss:iproute2
for element in videotestsrc openh264enc h264parse rtph264pay srtpenc udpsink; do
    gst-inspect-1.0 "$element" >/dev/null 2>&1 \
        || iop_fail "GStreamer element $element missing: apt-get install gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad"
done

FRAMES="${FRAMES:-90}"
WIDTH=640
HEIGHT=360

# Runs one case. - Parameters: $1 label, $2 RTP port, then openh264enc properties.
run_case() {
    local label="$1" port="$2"; shift 2
    local encoder=("$@")
    local dir="$IOP_DIR/$label"
    mkdir -p "$dir"
    iop_port_free "$port" $((port + 1))
    iop_new_key "$dir/key"
    iop_write_receiver_sdp "$port" "$dir/key" "$dir/stream.sdp" GStreamer

    iop_bg "$label-receive" "$RTC" receive --listen "127.0.0.1:$port" --sdp "$dir/stream.sdp" \
        --output "$dir/received.y4m" --frames "$FRAMES" --idle-timeout 3 --json
    local rpid=$IOP_LAST_PID
    iop_wait_udp "$port" 10

    iop_bg "$label-gst" gst-launch-1.0 -q -e \
        videotestsrc is-live=true num-buffers="$FRAMES" \
        ! "video/x-raw,format=I420,width=$WIDTH,height=$HEIGHT,framerate=30/1" \
        ! openh264enc "${encoder[@]}" ! h264parse ! tee name=t \
        t. ! queue ! video/x-h264,stream-format=byte-stream ! filesink location="$dir/gst.h264" \
        t. ! queue ! rtph264pay config-interval=-1 aggregate-mode=zero-latency pt=96 \
        ! srtpenc key="$(iop_key_hex "$dir/key")" rtp-cipher=aes-128-icm rtp-auth=hmac-sha1-80 \
                  rtcp-cipher=aes-128-icm rtcp-auth=hmac-sha1-80 \
        ! udpsink host=127.0.0.1 port="$port"
    iop_wait "$IOP_LAST_PID" 30 || iop_fail "$label: gst-launch failed: $(tail -c 600 "$IOP_DIR/$label-gst.err")"
    local rc=0
    iop_wait "$rpid" 15 || rc=$?
    [ "$rc" -eq 0 ] || iop_fail "$label: rtc-h264 receive exited with $rc: $(tail -c 600 "$IOP_DIR/$label-receive.err")"

    local summary="$IOP_DIR/$label-receive.out"
    iop_check_receive_summary "$summary" "$FRAMES" "$label"

    iop_framemd5 "$dir/gst.h264" "$dir/ref.md5"
    iop_framemd5 "$dir/received.y4m" "$dir/ours.md5"
    local nref
    nref=$(wc -l <"$dir/ref.md5")
    [ "$nref" -eq "$FRAMES" ] || iop_fail "$label: GStreamer's bitstream decodes to $nref frames, expected $FRAMES"
    iop_compare_md5 "$dir/ref.md5" "$dir/ours.md5" \
        "$label (openh264enc ${encoder[*]:-defaults}, rtph264pay+srtpenc -> rtc-h264 receive: framesDecoded=$(iop_json_field "$summary" framesDecoded), packetsReceived=$(iop_json_field "$summary" packetsReceived), keyFramesDecoded=$(iop_json_field "$summary" keyFramesDecoded))"
}

run_case one-slice   44000
run_case four-slices 44010 slice-mode=n-slices num-slices=4 gop-size=30
iop_log "PASS: rtc-h264 receive decoded every frame GStreamer sent, MD5-identical to GStreamer's bitstream"
