#!/usr/bin/env bash
# Scenario 5: ffmpeg (libx264) sends over SRTP, `rtc-h264 receive` decodes.
#
# libx264 encodes the lavfi testsrc2 pattern to an Annex-B file first (so the exact bitstream is known),
# then ffmpeg streams that file in real time, unchanged: `ffmpeg -re -i x264.h264 -c copy -f rtp
# -srtp_out_suite AES_CM_128_HMAC_SHA1_80 -srtp_out_params KEY srtp://127.0.0.1:P?pkt_size=1200`
# (ffmpeg's RTP muxer: packetization mode 1, SPS/PPS in band, FU-A; RTCP SR and BYE to P+1).
# Our receiver gets a hand-written SDP with the same key. Checks: every frame decoded (framesDecoded =
# FRAMES, nothing dropped/lost/failed), and the per-frame MD5s of our Y4M equal ffmpeg's decode of the file.
# Cases (Baseline first, so a High failure still shows the Baseline result): Constrained Baseline with
# 4 slices, then High profile with 4 slices per frame (-x264-params slices=4, -tune zerolatency: no B-frames, as a
# real-time peer sends).
# ffmpeg takes the SRTP key on its command line (visible in the process list of this machine only; the key
# is random per run). Its SDP goes to a 0600 file, not to stdout, since it holds the key.
# Ports: 45000-45011.
source "$(dirname "$0")/lib.sh"
iop_init ffmpeg-send
iop_require ffmpeg:ffmpeg ss:iproute2
[[ "$(ffmpeg -hide_banner -encoders 2>/dev/null)" == *libx264* ]] || iop_fail "ffmpeg lacks libx264: apt-get install ffmpeg (Debian's build has it)"

FRAMES="${FRAMES:-90}"

# Runs one case. - Parameters: $1 label, $2 RTP port, then libx264 options.
run_case() {
    local label="$1" port="$2"; shift 2
    local x264=("$@")
    local dir="$IOP_DIR/$label"
    mkdir -p "$dir"
    iop_port_free "$port" $((port + 1))
    ffmpeg -nostdin -hide_banner -loglevel error -f lavfi -i "testsrc2=size=640x360:rate=30" \
        -frames:v "$FRAMES" -pix_fmt yuv420p -c:v libx264 "${x264[@]}" "$dir/x264.h264" \
        || iop_fail "$label: libx264 encoding failed"
    iop_new_key "$dir/key"
    iop_write_receiver_sdp "$port" "$dir/key" "$dir/stream.sdp" ffmpeg

    iop_bg "$label-receive" "$RTC" receive --listen "127.0.0.1:$port" --sdp "$dir/stream.sdp" \
        --output "$dir/received.y4m" --frames "$FRAMES" --idle-timeout 3 --json
    local rpid=$IOP_LAST_PID
    iop_wait_udp "$port" 10

    iop_bg "$label-ffmpeg" ffmpeg -nostdin -hide_banner -loglevel error -re -i "$dir/x264.h264" -c copy \
        -f rtp -sdp_file "$dir/ffmpeg.sdp" -srtp_out_suite AES_CM_128_HMAC_SHA1_80 \
        -srtp_out_params "$(cat "$dir/key")" "srtp://127.0.0.1:$port?pkt_size=1200"
    iop_wait "$IOP_LAST_PID" 30 || iop_fail "$label: ffmpeg sender failed: $(tail -c 600 "$IOP_DIR/$label-ffmpeg.err")"
    local rc=0
    iop_wait "$rpid" 15 || rc=$?
    [ "$rc" -eq 0 ] || iop_fail "$label: rtc-h264 receive exited with $rc: $(tail -c 600 "$IOP_DIR/$label-receive.err")"

    local summary="$IOP_DIR/$label-receive.out"
    iop_check_receive_summary "$summary" "$FRAMES" "$label (libx264 ${x264[*]})"
    iop_framemd5 "$dir/x264.h264" "$dir/ref.md5"
    iop_framemd5 "$dir/received.y4m" "$dir/ours.md5"
    iop_compare_md5 "$dir/ref.md5" "$dir/ours.md5" \
        "$label (libx264 ${x264[*]}, ffmpeg -f rtp srtp:// -> rtc-h264 receive: framesDecoded=$(iop_json_field "$summary" framesDecoded), packetsReceived=$(iop_json_field "$summary" packetsReceived))"
}

run_case baseline-4-slices 45010 -profile:v baseline -tune zerolatency -x264-params slices=4
run_case high-4-slices     45000 -profile:v high -tune zerolatency -x264-params slices=4
iop_log "PASS: rtc-h264 receive decoded every frame ffmpeg/libx264 sent over SRTP, MD5-identical"
