#!/usr/bin/env bash
# Scenario: the sender's resolution adaptation (issue 13), followed by ffmpeg and GStreamer receivers.
#
# For each case the sender runs in real time (640x360 at 30 fps, Constrained Baseline, 800 kbit/s,
# `--degradation-preference maintain-framerate`, DURATION = 12 seconds of media) with its control endpoint on
# 127.0.0.1; once it has sent LOW_AT frames (2 s) the script lowers the bitrate to LOW = 100k through the
# endpoint (`rtc-h264 control ... bitrate`), once it has sent HIGH_AT frames (6 s) it raises it back to 800k.
# The commands are timed on the sender's `framesSent` (polled with `rtc-h264 control ... stats`), i.e. on the
# media timeline, so a loaded machine does not shift them.
#
# Checks, on the exact bitstream sent (`--save-annexb`):
#   (a) the sender switched: `rtc-h264 inspect` lists an SPS smaller than 640x360 and the last SPS is
#       640x360, every SPS keeps the SDP's profile-level-id; ffprobe's per-frame sizes show at least one frame
#       at a smaller size, the step down within 60 frames (2 s) of the command and the last 10 frames at
#       640x360; every change of size is an IDR access unit carrying SPS+PPS, and there is no other IDR;
#       frames in the file = the sender's `framesSent`.
#   (b) the peer decoded every frame sent: its per-frame MD5s equal those of ffmpeg decoding the saved
#       bitstream, frame by frame, at each frame's own size.
# Frames of different sizes are hashed at their own size: ffmpeg (reference and receiver) runs with
# `-autoscale 0` (no scaler appended to the filter graph when the decoded size changes; rawvideo then
# encodes each frame at its size) and `-fps_mode passthrough`; GStreamer hashes each decoded buffer with
# `checksumsink hash=md5` (avdec_h264 direct-rendering=false: tightly packed I420, the same bytes as
# ffmpeg's rawvideo packet), and `gst-launch-1.0 -v` shows the caps renegotiated at each switch.
# ffmpeg stops at our RTCP BYE (SIGINT if it has not within a few seconds); gst-launch is stopped with
# SIGINT one second after the sender ends.
# Cases (CASES selects): ffmpeg-plain, gstreamer-plain, ffmpeg-srtp (AES_CM_128_HMAC_SHA1_80, key from our
# SDP), all three at 100k (the sender goes straight to 320x180); gstreamer-270, plain RTP at 200k (480x270:
# cropped SPS, odd chroma height 135; a frame at 480x270 is required); and issue 13's live step at 1280x720,
# 2.5M -> 300k -> 2.5M (down to 640x360 and back): ffmpeg-720p (ffmpeg, MD5s as above) and rtc-720p (our
# receiver, `rtc-h264 receive --json`: it decoded as many frames as the saved bitstream has access units, with no
# decode error, no frame dropped and no packet lost; it cannot write per-frame MD5s across sizes). The timings
# of the 720p step (down within 2 s, up within 15 s, no freeze over 100 ms) are the benchmark's:
# Tests/Benchmarks/live_step.py. About 85 s in all.
# RTCP on port+1 (--no-rtcp-mux). Ports: 47000-47052 (RTP 470x0, RTCP 470x1, control endpoint TCP 470x2).
source "$(dirname "$0")/lib.sh"
iop_init resolution-switch
iop_require ffmpeg:ffmpeg ffprobe:ffmpeg gst-launch-1.0:gstreamer1.0-tools ss:iproute2
for element in udpsrc rtph264depay avdec_h264 checksumsink; do
    gst-inspect-1.0 "$element" >/dev/null 2>&1 \
        || iop_fail "GStreamer element $element missing: apt-get install gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav"
done

SIZE=640x360
FULL_W=640; FULL_H=360
BITRATE="${BITRATE:-800k}"
HD_BITRATE="${HD_BITRATE:-2.5M}"   # the 1280x720 cases (issue 13's live step)
HD_LOW="${HD_LOW:-300k}"           # between the 640x360 and 960x540 floors (207k, 467k): 640x360
LOW="${LOW:-100k}"           # below the 480x270 floor (116.6k at 30 fps): straight to 320x180
LOW_270="${LOW_270:-200k}"   # between the 480x270 and 640x360 floors (116.6k, 207.4k): 480x270 (chroma 240x135)
DURATION="${DURATION:-12}"   # seconds of media at 30 fps (the step up comes about 4 s after the command)
LOW_AT="${LOW_AT:-60}"       # frames sent before the bitrate is lowered (2 s)
HIGH_AT="${HIGH_AT:-180}"    # frames sent before it is raised again (6 s)
CASES="${CASES:-ffmpeg-plain gstreamer-plain ffmpeg-srtp gstreamer-270 ffmpeg-720p rtc-720p}"

# Fails if a TCP port is already listening on this machine (the control endpoint's).
port_free_tcp() {
    if ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; then
        iop_fail "TCP port $1 already in use on this machine"
    fi
}

# Prints the sender's framesSent from its control endpoint (empty if it does not answer).
# - Parameters: $1 control port.
frames_sent() {
    "$RTC" control --to "127.0.0.1:$1" stats 2>/dev/null | grep -o '"framesSent":[0-9]*' | head -1 | cut -d: -f2 || true
}

# Waits until the sender has sent at least $2 frames (or has ended), then sets the bitrate to $3.
# Sets CMD_FRAME to the framesSent seen just before the command.
# - Parameters: $1 control port, $2 frames, $3 bitrate, $4 sender PID, $5 label.
bitrate_at_frame() {
    local port="$1" at="$2" rate="$3" pid="$4" label="$5" n="" reply
    while :; do
        kill -0 "$pid" 2>/dev/null || iop_fail "$label: the sender ended before frame $at: $(tail -c 400 "$IOP_DIR/$label-send.err")"
        n=$(frames_sent "$port")
        [ -n "$n" ] && [ "$n" -ge "$at" ] && break
        sleep 0.1
    done
    CMD_FRAME="$n"
    reply=$("$RTC" control --to "127.0.0.1:$port" bitrate "$rate" 2>&1) \
        || iop_fail "$label: control bitrate $rate failed: $reply"
    case "$reply" in *'"ok":true'*) ;; *) iop_fail "$label: control bitrate $rate refused: $reply" ;; esac
    iop_log "$label: bitrate -> $rate after frame $n ($(awk -v n="$n" 'BEGIN { printf "%.2f", n / 30 }') s of media): $reply"
}

# Prints runs of equal lines as "VALUE xCOUNT, ...".
runs() { uniq -c | awk '{ printf "%s%s x%d", sep, $2, $1; sep = ", " }'; }

# Checks (a) on the saved bitstream and writes the reference MD5s ($dir/ref.md5) and sizes ($dir/ref.sizes).
# - Parameters: $1 case directory, $2 label, $3 the frame of the "lower" command, $4 the SDP file,
#   $5 a size some frame must have (optional).
check_sent() {
    local dir="$1" label="$2" low_frame="$3" sdp="$4" rung="${5:-}"
    local sent="$dir/sent.h264"
    [ -s "$sent" ] || iop_fail "$label: the sender saved no bitstream"

    # The reference decode, each frame at its own size.
    ffmpeg -nostdin -hide_banner -loglevel error -i "$sent" -autoscale 0 -fps_mode passthrough -f framemd5 - \
        2>"$dir/ref.err" | awk -F', *' '!/^#/ && NF >= 6 { print $6 }' >"$dir/ref.md5" \
        || iop_fail "$label: ffmpeg could not decode the saved bitstream: $(head -c 400 "$dir/ref.err")"
    ffprobe -v error -select_streams v:0 -show_entries frame=width,height -of csv=p=0 "$sent" \
        | tr ',' 'x' >"$dir/ref.sizes" || iop_fail "$label: ffprobe failed on the saved bitstream"
    "$RTC" inspect "$sent" >"$dir/inspect.txt" || iop_fail "$label: rtc-h264 inspect: $(tail -c 400 "$dir/inspect.txt")"

    local aus nref nsizes sent_stat
    aus=$(sed -n 's/.* \([0-9][0-9]*\) access units$/\1/p' "$dir/inspect.txt")
    nref=$(wc -l <"$dir/ref.md5"); nsizes=$(wc -l <"$dir/ref.sizes")
    sent_stat=$(grep -o '"framesSent":[0-9]*' "$dir/stats.jsonl" 2>/dev/null | tail -1 | cut -d: -f2 || true)
    [ -n "$aus" ] && [ "$aus" -gt 0 ] || iop_fail "$label: inspect found no access unit"
    [ "$nref" -eq "$aus" ] && [ "$nsizes" -eq "$aus" ] \
        || iop_fail "$label: the saved bitstream has $aus access units but ffmpeg decodes $nref frames (ffprobe $nsizes)"
    [ -z "$sent_stat" ] || [ "$sent_stat" -eq "$aus" ] \
        || iop_fail "$label: the sender's framesSent is $sent_stat, the saved bitstream has $aus access units"

    # SPS sizes and profile-level-id.
    local plid sps_sizes last_sps smaller
    plid=$(grep -o 'profile-level-id=[0-9a-fA-F]*' "$sdp" | head -1 | cut -d= -f2)
    sps_sizes=$(sed -n 's/^SPS [^,]*, level [^,]*, \([0-9]*x[0-9]*\).*/\1/p' "$dir/inspect.txt")
    [ -n "$sps_sizes" ] || iop_fail "$label: no SPS in the saved bitstream"
    grep '^SPS ' "$dir/inspect.txt" | grep -v "profile-level-id $plid," >/dev/null \
        && iop_fail "$label: an SPS does not keep the SDP's profile-level-id $plid: $(grep '^SPS ' "$dir/inspect.txt" | grep -v "profile-level-id $plid," | head -1)"
    last_sps=$(printf '%s\n' "$sps_sizes" | tail -1)
    smaller=$(printf '%s\n' "$sps_sizes" | awk -F x -v w=$FULL_W -v h=$FULL_H '$1 * $2 < w * h' | head -1)
    [ -n "$smaller" ] || iop_fail "$label: no SPS smaller than $SIZE: the sender never stepped down (SPS: $(echo $sps_sizes))"
    [ "$last_sps" = "$SIZE" ] || iop_fail "$label: the last SPS is $last_sps, not $SIZE: the sender did not step back up"

    # Per-frame sizes: a smaller frame, the step down soon after the command, the end at full size.
    local first_small switches tail_bad
    first_small=$(awk -F x -v w=$FULL_W -v h=$FULL_H '$1 * $2 < w * h { print NR - 1; exit }' "$dir/ref.sizes")
    [ -n "$first_small" ] || iop_fail "$label: every decoded frame is $SIZE"
    [ "$first_small" -ge "$low_frame" ] && [ "$first_small" -le $((low_frame + 60)) ] \
        || iop_fail "$label: first smaller frame is frame $first_small, the bitrate was lowered after frame $low_frame (expected within 60 frames)"
    [ -z "$rung" ] || grep -qx "$rung" "$dir/ref.sizes" \
        || iop_fail "$label: no frame at $rung (per-frame sizes: $(runs <"$dir/ref.sizes"))"
    tail_bad=$(tail -10 "$dir/ref.sizes" | grep -vx "$SIZE" | head -1 || true)
    [ -z "$tail_bad" ] || iop_fail "$label: the last 10 frames are not all $SIZE (found $tail_bad)"

    # Every size change is an IDR access unit with SPS+PPS; no other IDR (the GOP is 7200 frames).
    switches=$(awk 'NR == 1 || $0 != prev { print NR - 1 } { prev = $0 }' "$dir/ref.sizes" | tr '\n' ' ')
    local keys
    keys=$(sed -n 's/^AU \([0-9]*\) @[0-9]* [0-9]* bytes key: sps([0-9]*) pps([0-9]*) idr.*/\1/p' "$dir/inspect.txt" | tr '\n' ' ')
    local allkeys
    allkeys=$(sed -n 's/^AU \([0-9]*\) @[0-9]* [0-9]* bytes key:.*/\1/p' "$dir/inspect.txt" | tr '\n' ' ')
    [ "$keys" = "$allkeys" ] || iop_fail "$label: a keyframe without SPS+PPS before its IDR (keyframes: $allkeys; with SPS+PPS: $keys)"
    [ "$switches" = "$keys" ] \
        || iop_fail "$label: size changes at frames [$switches] but IDRs with SPS+PPS at [$keys]"
    local changes nswitch
    changes=$(grep -o '"resolutionChanges":[0-9]*' "$dir/stats.jsonl" 2>/dev/null | tail -1 | cut -d: -f2 || true)
    nswitch=$(($(echo $switches | wc -w) - 1))
    [ -z "$changes" ] || [ "$changes" -eq "$nswitch" ] \
        || iop_fail "$label: the sender's stats count $changes resolution changes, the bitstream has $nswitch"

    iop_log "$label: sent $aus frames; SPS sizes: $(echo $sps_sizes) (profile-level-id $plid); per-frame sizes: $(runs <"$dir/ref.sizes"); each size starts with SPS+PPS+IDR at frames [${switches% }]; stepped down $((first_small - low_frame)) frame(s) after the command; stats: resolutionChanges=${changes:-?}"
}

# Runs one case. - Parameters: $1 label (PEER-plain, PEER-srtp, PEER-270 = plain RTP to the 480x270 rung,
# PEER-720p = plain RTP at 1280x720), $2 RTP port, $3 the low bitrate, $4 the size, $5 the high bitrate,
# $6 a size some frame must have (optional). SIZE, FULL_W, FULL_H and BITRATE are the case's for check_sent.
run_case() {
    local label="$1" port="$2" low="$3" SIZE="$4" BITRATE="$5" rung="${6:-}"
    local FULL_W="${SIZE%x*}" FULL_H="${SIZE#*x}"
    local peer="${label%%-*}" security="${label#*-}" transport
    local ctl=$((port + 2))
    local dir="$IOP_DIR/$label"
    mkdir -p "$dir"
    iop_port_free "$port" $((port + 1))
    port_free_tcp "$ctl"
    local ssrc=$((0x30000000 + port))
    local sec=()
    transport="plain RTP"
    if [ "$security" = srtp ]; then
        transport="SRTP"
        iop_new_key "$dir/key"
        sec=(--key-file "$dir/key")
    else
        sec=(--no-srtp)
    fi
    local common=(--to "127.0.0.1:$port" --size "$SIZE" --fps 30 --profile baseline --ssrc "$ssrc"
                  --bitrate "$BITRATE" --no-rtcp-mux "${sec[@]}")
    "$RTC" sdp "${common[@]}" >"$dir/stream.sdp" || iop_fail "$label: rtc-h264 sdp failed"

    local peerpid
    if [ "$peer" = rtc ]; then
        iop_bg "$label-peer" "$RTC" receive --listen "127.0.0.1:$port" --sdp "$dir/stream.sdp" --json --idle-timeout 10
    elif [ "$peer" = ffmpeg ]; then
        iop_bg "$label-peer" timeout 60 ffmpeg -nostdin -hide_banner -loglevel warning \
            -protocol_whitelist file,udp,rtp,srtp,crypto -i "$dir/stream.sdp" \
            -autoscale 0 -fps_mode passthrough -f framemd5 "$dir/peer.framemd5"
    else
        local caps="application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)H264"
        caps+=",payload=(int)96,ssrc=(uint)$ssrc"
        iop_bg "$label-peer" gst-launch-1.0 -v -e \
            udpsrc address=127.0.0.1 port="$port" caps="$caps" ! rtph264depay \
            ! avdec_h264 direct-rendering=false ! checksumsink hash=md5 sync=false
    fi
    peerpid=$IOP_LAST_PID
    iop_wait_udp "$port" 10
    sleep 0.5

    local start=$SECONDS
    iop_bg "$label-send" "$RTC" send "${common[@]}" --degradation-preference maintain-framerate \
        --duration "$DURATION" --control "127.0.0.1:$ctl" --save-annexb "$dir/sent.h264" \
        --stats "$dir/stats.jsonl" --quiet
    local sendpid=$IOP_LAST_PID
    CMD_FRAME=""
    bitrate_at_frame "$ctl" "$LOW_AT" "$low" "$sendpid" "$label"
    local low_frame="$CMD_FRAME"
    bitrate_at_frame "$ctl" "$HIGH_AT" "$BITRATE" "$sendpid" "$label"
    iop_wait "$sendpid" $((DURATION + 30)) \
        || iop_fail "$label: rtc-h264 send failed: $(tail -c 400 "$IOP_DIR/$label-send.err")"
    local send_s=$((SECONDS - start))

    local rc=0 interrupted=0
    if [ "$peer" = rtc ]; then
        # Our receiver ends at the sender's RTCP BYE (or after 10 s without packets).
        iop_wait "$peerpid" 20 && rc=0 || rc=$?
    elif [ "$peer" = ffmpeg ]; then
        # ffmpeg's RTP demuxer ends at our RTCP BYE; give it 5 s, then stop it with SIGINT (it then
        # flushes its decoder and output, and exits with 255).
        local waited=0
        while kill -0 "$peerpid" 2>/dev/null && [ "$waited" -lt 50 ]; do sleep 0.1; waited=$((waited + 1)); done
        if kill -0 "$peerpid" 2>/dev/null; then
            iop_log "$label: ffmpeg still running 5 s after the sender's BYE: SIGINT"
            kill -INT "$peerpid" 2>/dev/null || true
            interrupted=1
        fi
        iop_wait "$peerpid" 15 && rc=0 || rc=$?
        [ "$interrupted" -eq 0 ] || [ "$rc" -ne 255 ] || rc=0
    else
        sleep 1
        kill -INT "$peerpid" 2>/dev/null || true
        interrupted=1
        iop_wait "$peerpid" 15 && rc=0 || rc=$?
    fi
    [ "$rc" -eq 0 ] || iop_fail "$label: $peer exited with $rc (interrupted: $interrupted): $(tail -c 600 "$IOP_DIR/$label-peer.err")"

    check_sent "$dir" "$label" "$low_frame" "$dir/stream.sdp" "$rung"

    local peer_sizes
    if [ "$peer" = rtc ]; then
        local summary aus decoded
        summary=$(tail -1 "$IOP_DIR/$label-peer.out")
        aus=$(wc -l <"$dir/ref.md5")
        decoded=$(printf '%s' "$summary" | grep -o '"framesDecoded":[0-9]*' | cut -d: -f2)
        for field in decodeErrors framesDropped packetsLost; do
            printf '%s' "$summary" | grep -q "\"$field\":0[,}]" \
                || iop_fail "$label: our receiver's $field is not 0: $summary"
        done
        [ -n "$decoded" ] && [ "$decoded" -eq "$aus" ] \
            || iop_fail "$label: our receiver decoded ${decoded:-no} frames, the saved bitstream has $aus access units: $summary"
        iop_log "$label: PASS: rtc-h264 receive decoded all $aus frames sent ($transport, Constrained Baseline, $SIZE, $BITRATE -> $low -> $BITRATE; sender ran ${send_s} s); longest freeze (browser definition) $(printf '%s' "$summary" | grep -o '"longestFreeze":[0-9.e-]*' | cut -d: -f2) s"
        return 0
    fi
    if [ "$peer" = ffmpeg ]; then
        awk -F', *' '!/^#/ && NF >= 6 { print $6 }' "$dir/peer.framemd5" >"$dir/peer.md5"
        # Decoded sizes in bytes (w*h*3/2), named after the reference's sizes.
        peer_sizes=$(awk -F', *' '!/^#/ && NF >= 6 { print $5 }' "$dir/peer.framemd5" \
            | awk -v list="640x360 480x270 320x180 960x540 1280x720 160x90" \
                'BEGIN { n = split(list, s, " "); for (i = 1; i <= n; i++) { split(s[i], d, "x"); name[d[1] * d[2] * 3 / 2] = s[i] } }
                 { print (($1 in name) ? name[$1] : $1 " bytes") }' | runs)
    else
        grep -E '^[0-9]+:[0-9]{2}:[0-9]{2}\.[0-9]+ [0-9a-f]{32}$' "$IOP_DIR/$label-peer.out" | awk '{ print $2 }' >"$dir/peer.md5"
        peer_sizes="caps $(grep 'avdec_h264.*\.GstPad:src: caps = ' "$IOP_DIR/$label-peer.out" \
            | sed -n 's/.*width=(int)\([0-9]*\), height=(int)\([0-9]*\).*/\1x\2/p' | tr '\n' ' ')"
        local ncaps
        ncaps=$(grep -c 'avdec_h264.*\.GstPad:src: caps = ' "$IOP_DIR/$label-peer.out" || true)
        [ "$ncaps" -ge 3 ] || iop_fail "$label: avdec_h264 negotiated its output caps $ncaps times, expected at least 3 (two switches): $peer_sizes"
    fi
    iop_log "$label: $peer decoded sizes: $peer_sizes"
    iop_compare_md5 "$dir/ref.md5" "$dir/peer.md5" \
        "$label ($transport, Constrained Baseline, $SIZE, $BITRATE -> $low -> $BITRATE, $peer decoded every frame sent at its own size; sender ran ${send_s} s)"
}

# Case table: label, RTP port, the low bitrate, the size, the high bitrate, the size a frame must have at the low
# bitrate ("" = any smaller).
case_args() {
    case "$1" in
        ffmpeg-plain)    echo "47000 $LOW $SIZE $BITRATE" ;;
        gstreamer-plain) echo "47010 $LOW $SIZE $BITRATE" ;;
        ffmpeg-srtp)     echo "47020 $LOW $SIZE $BITRATE" ;;
        gstreamer-270)   echo "47030 $LOW_270 $SIZE $BITRATE 480x270" ;;
        ffmpeg-720p)     echo "47040 $HD_LOW 1280x720 $HD_BITRATE 640x360" ;;
        rtc-720p)        echo "47050 $HD_LOW 1280x720 $HD_BITRATE 640x360" ;;
        *) iop_fail "unknown case $1 (known: ffmpeg-plain gstreamer-plain ffmpeg-srtp gstreamer-270 ffmpeg-720p rtc-720p)" ;;
    esac
}
n=0
for c in $CASES; do
    # shellcheck disable=SC2046
    run_case "$c" $(case_args "$c")
    n=$((n + 1))
done
iop_log "PASS: $n streams switched to a smaller size and back on the bitrate steps; every frame decoded by the peer (ffmpeg and GStreamer MD5-identical to our bitstream)"
