#!/usr/bin/env bash
# Scenario 2: GStreamer receives our SRTP stream (udpsrc ! srtpdec ! rtph264depay ! avdec_h264 ! y4menc).
#
# Cases: packetization mode 1 and mode 0, each at MTU 1200 and 500 (profiles alternate). For each case the
# sender saves the exact bitstream (--save-annexb); checks: GStreamer decoded exactly FRAMES frames and the
# per-frame MD5s of its Y4M (read back by ffmpeg framemd5) equal those of ffmpeg decoding our bitstream.
# srtpdec takes the key from the udpsrc caps (srtp-key=(buffer)HEX plus the SSRC); avdec_h264 needs
# direct-rendering=false before y4menc. RTCP is not multiplexed (srtpdec's RTP pad would see SRTCP).
# gst-launch runs with -e and is stopped with SIGINT one second after the sender ends (udpsrc never ends).
# Ports: 42000-42031.
source "$(dirname "$0")/lib.sh"
iop_init gstreamer-receive
iop_require gst-launch-1.0:gstreamer1.0-tools ffmpeg:ffmpeg ss:iproute2
for element in udpsrc srtpdec rtph264depay avdec_h264 y4menc; do
    gst-inspect-1.0 "$element" >/dev/null 2>&1 \
        || iop_fail "GStreamer element $element missing: apt-get install gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav"
done

FRAMES="${FRAMES:-90}"
SIZE="${SIZE:-640x360}"

# Runs one case. - Parameters: $1 label, $2 RTP port, $3 packetization mode, $4 MTU, $5 profile.
run_case() {
    local label="$1" port="$2" mode="$3" mtu="$4" profile="$5"
    local dir="$IOP_DIR/$label"
    mkdir -p "$dir"
    iop_port_free "$port"
    local ssrc=$((0x20000000 + port))
    iop_new_key "$dir/key"
    local caps
    caps="application/x-srtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)H264"
    caps+=",payload=(int)96,ssrc=(uint)$ssrc,srtp-key=(buffer)$(iop_key_hex "$dir/key")"
    caps+=",srtp-cipher=(string)aes-128-icm,srtp-auth=(string)hmac-sha1-80"
    caps+=",srtcp-cipher=(string)aes-128-icm,srtcp-auth=(string)hmac-sha1-80,roc=(uint)0"

    iop_bg "$label-gst" gst-launch-1.0 -q -e \
        udpsrc address=127.0.0.1 port="$port" caps="$caps" ! srtpdec ! rtph264depay \
        ! avdec_h264 direct-rendering=false ! y4menc ! filesink location="$dir/gst.y4m"
    local gstpid=$IOP_LAST_PID
    caps=""
    iop_wait_udp "$port" 10
    sleep 0.5

    iop_bg "$label-send" "$RTC" send --to "127.0.0.1:$port" --size "$SIZE" --fps 30 --profile "$profile" \
        --ssrc "$ssrc" --key-file "$dir/key" --no-rtcp-mux --packetization-mode "$mode" --mtu "$mtu" \
        --frames "$FRAMES" --save-annexb "$dir/sent.h264" --quiet
    iop_wait "$IOP_LAST_PID" 30 || iop_fail "$label: rtc-h264 send failed: $(tail -c 400 "$IOP_DIR/$label-send.err")"
    sleep 1
    kill -INT "$gstpid" 2>/dev/null || true
    local rc=0
    iop_wait "$gstpid" 15 || rc=$?
    [ "$rc" -eq 0 ] || iop_fail "$label: gst-launch exited with $rc: $(tail -c 600 "$IOP_DIR/$label-gst.err")"
    [ -s "$dir/gst.y4m" ] || iop_fail "$label: GStreamer wrote no frames: $(tail -c 600 "$IOP_DIR/$label-gst.err")"

    iop_framemd5 "$dir/sent.h264" "$dir/ref.md5"
    iop_framemd5 "$dir/gst.y4m" "$dir/peer.md5"
    local nref
    nref=$(wc -l <"$dir/ref.md5")
    [ "$nref" -eq "$FRAMES" ] || iop_fail "$label: the saved bitstream decodes to $nref frames, expected $FRAMES"
    iop_compare_md5 "$dir/ref.md5" "$dir/peer.md5" \
        "$label (SRTP, packetization-mode=$mode, MTU $mtu, $profile, $SIZE, GStreamer decoded $FRAMES frames sent)"
}

run_case mode1-mtu1200 42000 1 1200 high
run_case mode1-mtu500  42010 1 500  baseline
run_case mode0-mtu1200 42020 0 1200 baseline
run_case mode0-mtu500  42030 0 500  high
iop_log "PASS: GStreamer (srtpdec, rtph264depay, avdec_h264) decoded every frame of 4 streams, MD5-identical"
