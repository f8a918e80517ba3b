#!/usr/bin/env bash
# Scenario 1: ffmpeg receives our stream (SRTP and plain RTP; Constrained Baseline and High).
#
# For each case: write the SDP with `rtc-h264 sdp`, start ffmpeg on it (framemd5 of every decoded frame),
# then `rtc-h264 send --save-annexb` the test pattern. Checks: ffmpeg decoded exactly FRAMES frames and
# its per-frame MD5s equal those of ffmpeg decoding the exact bitstream we sent (the --save-annexb copy).
# RTCP is not multiplexed (--no-rtcp-mux) in the first four cases, as for ffmpeg in general (the lead saw
# ffmpeg 5.1 fail on an SDP with a=rtcp-mux with "bind failed: Address already in use"). The fifth case sends
# with a=rtcp-mux: ffmpeg ignores the attribute, binds port and port+1, and our SRTCP reaches its RTP socket.
# Ports: 41000-41041 (RTP on 410x0, RTCP on 410x1).
source "$(dirname "$0")/lib.sh"
iop_init ffmpeg-receive
iop_require ffmpeg:ffmpeg ss:iproute2

FRAMES="${FRAMES:-90}"
SIZE="${SIZE:-640x360}"

# Runs one case. - Parameters: $1 label, $2 RTP port, $3 profile, $4 srtp|plain, $5 mux|nomux.
run_case() {
    local label="$1" port="$2" profile="$3" security="$4" mux="${5:-nomux}"
    local dir="$IOP_DIR/$label"
    mkdir -p "$dir"
    iop_port_free "$port" $((port + 1))
    local ssrc=$((0x10000000 + port))
    local sec=()
    if [ "$security" = srtp ]; then
        iop_new_key "$dir/key"
        sec=(--key-file "$dir/key")
    else
        sec=(--no-srtp)
    fi
    local common=(--to "127.0.0.1:$port" --size "$SIZE" --fps 30 --profile "$profile" --ssrc "$ssrc"
                  "${sec[@]}")
    [ "$mux" = mux ] || common+=(--no-rtcp-mux)
    "$RTC" sdp "${common[@]}" >"$dir/stream.sdp" || iop_fail "$label: rtc-h264 sdp failed"

    iop_bg "$label-ffmpeg" timeout 40 ffmpeg -nostdin -hide_banner -loglevel warning \
        -protocol_whitelist file,udp,rtp,srtp,crypto -i "$dir/stream.sdp" \
        -frames:v "$FRAMES" -f framemd5 "$dir/ffmpeg.framemd5"
    local ffpid=$IOP_LAST_PID
    iop_wait_udp "$port" 10
    sleep 0.5   # let ffmpeg finish opening the SDP demuxer after binding

    iop_bg "$label-send" "$RTC" send "${common[@]}" --frames "$FRAMES" --save-annexb "$dir/sent.h264" --quiet
    local sendpid=$IOP_LAST_PID
    iop_wait "$sendpid" 30 || iop_fail "$label: rtc-h264 send failed: $(tail -c 400 "$IOP_DIR/$label-send.err")"
    local rc=0
    iop_wait "$ffpid" 20 || rc=$?
    [ "$rc" -eq 0 ] || iop_fail "$label: ffmpeg exited with $rc (124 = timed out, frames missing): $(tail -c 600 "$IOP_DIR/$label-ffmpeg.err")"

    awk -F', *' '!/^#/ && NF >= 6 { print $6 }' "$dir/ffmpeg.framemd5" >"$dir/peer.md5"
    iop_framemd5 "$dir/sent.h264" "$dir/ref.md5"
    local nref
    nref=$(wc -l <"$dir/ref.md5")
    [ "$nref" -eq "$FRAMES" ] || iop_fail "$label: the saved bitstream decodes to $nref frames, expected $FRAMES"
    iop_compare_md5 "$dir/ref.md5" "$dir/peer.md5" "$label ($security, $profile, RTCP $mux, $SIZE, ffmpeg decoded $FRAMES frames sent)"
}

run_case srtp-baseline  41000 baseline srtp
run_case srtp-high      41010 high     srtp
run_case plain-baseline 41020 baseline plain
run_case plain-high     41030 high     plain
run_case srtp-rtcp-mux  41040 baseline srtp  mux
iop_log "PASS: ffmpeg decoded every frame of 5 streams, MD5-identical to our bitstream"
