#!/usr/bin/env bash
# Scenario 3: Wireshark's dissectors (tshark) check our plain-RTP packets on the wire.
#
# For each case: capture `udp port P` on lo with tshark while `rtc-h264 send --no-srtp` streams to a
# GStreamer `udpsrc ! fakesink` sink (so the port is open), then dissect with
# `-d udp.port==P,rtp -d rtp.pt==96,h264` and check with rtp-check.awk: no malformed packet and no tshark
# expert error or warning other than H.264 "[Not decoded yet]" (slice data), sequence numbers continuous,
# the marker bit closes each access unit, the timestamp step averages 90000/fps +-10% (real-time pacing
# takes timestamps from a monotonic clock), SPS and PPS precede every IDR (in a STAP-A in mode 1), FU-A
# start/end bits pair up, no FU-A/STAP-A in mode 0, every IP datagram <= MTU, one marker per frame sent.
# --keyframe-interval 30 gives several IDRs per run. RTCP goes to P+1 (--no-rtcp-mux), outside the filter.
# Ports: 43000-43021.
#
# The capture runs in a network namespace of its own whose lo cuts UDP GSO writes into datagrams as it sends them,
# as a NIC does (`ethtool -K lo tx-udp-segmentation off`): our sender hands the kernel runs of equal-sized packets as
# one write (UDP_SEGMENT), and a capture on a device that takes such writes whole (the machine's lo) shows the write,
# not the datagrams on the wire.
if [ -z "${IOP_TSHARK_NETNS:-}" ]; then
    [ "$(id -u)" = 0 ] || { echo "[tshark-dissect] FAIL: needs root (a network namespace for the capture)" >&2; exit 1; }
    for tool in ip:iproute2 ethtool:ethtool; do
        command -v "${tool%%:*}" >/dev/null \
            || { echo "[tshark-dissect] FAIL: ${tool%%:*} is missing: apt-get install ${tool#*:} (Tests/install-deps.sh)" >&2; exit 1; }
    done
    ns="rtch264-tshark-$$"
    ip netns add "$ns" || exit 1
    status=0
    { ip -n "$ns" link set lo up && ip netns exec "$ns" ethtool -K lo tx-udp-segmentation off >/dev/null \
        && IOP_TSHARK_NETNS="$ns" ip netns exec "$ns" "$0" "$@"; } || status=$?
    ip netns delete "$ns" 2>/dev/null
    exit "$status"
fi
source "$(dirname "$0")/lib.sh"
iop_init tshark-dissect
iop_require tshark:tshark gst-launch-1.0:gstreamer1.0-tools ss:iproute2
HERE="$(cd "$(dirname "$0")" && pwd)"

FRAMES="${FRAMES:-60}"
FPS=30

# Runs one case. - Parameters: $1 label, $2 RTP port, $3 packetization mode, $4 MTU, $5 profile, $6 size.
run_case() {
    local label="$1" port="$2" mode="$3" mtu="$4" profile="$5" size="$6"
    local dir="$IOP_DIR/$label"
    mkdir -p "$dir"
    iop_port_free "$port"
    # A fixed source port too: an ephemeral one inside 33434-33534 made tshark flag the flow as a possible traceroute.
    local source_port=$((port + 100))
    iop_port_free "$source_port" "$((source_port + 1))"  # RTP, and RTCP beside it (--no-rtcp-mux)

    iop_bg "$label-sink" gst-launch-1.0 -q udpsrc address=127.0.0.1 port="$port" ! fakesink
    iop_wait_udp "$port" 10
    iop_bg "$label-tshark" tshark -i lo -f "udp dst port $port" -w "$dir/capture.pcapng"
    local tpid=$IOP_LAST_PID
    local waited=0
    until grep -q "Capturing on" "$IOP_DIR/$label-tshark.err" 2>/dev/null; do
        kill -0 "$tpid" 2>/dev/null || iop_fail "$label: tshark could not capture on lo (root or the wireshark group needed): $(tail -c 400 "$IOP_DIR/$label-tshark.err")"
        [ "$waited" -lt 100 ] || iop_fail "$label: tshark did not start capturing within 10 s"
        sleep 0.1; waited=$((waited + 1))
    done

    iop_bg "$label-send" "$RTC" send --to "127.0.0.1:$port" --size "$size" --fps "$FPS" --profile "$profile" \
        --local-port "$source_port" --no-srtp --no-rtcp-mux --packetization-mode "$mode" --mtu "$mtu" --keyframe-interval 30 \
        --frames "$FRAMES" --quiet
    iop_wait "$IOP_LAST_PID" 30 || iop_fail "$label: rtc-h264 send failed: $(tail -c 400 "$IOP_DIR/$label-send.err")"
    sleep 0.5
    kill -TERM "$tpid" 2>/dev/null || true
    iop_wait "$tpid" 10 || true
    [ -s "$dir/capture.pcapng" ] || iop_fail "$label: empty capture"

    local decode=(-d "udp.port==$port,rtp" -d "rtp.pt==96,h264")
    tshark -r "$dir/capture.pcapng" "${decode[@]}" -T fields -E separator='|' -E occurrence=a -E aggregator=, \
        -e frame.number -e udp.length -e rtp.seq -e rtp.timestamp -e rtp.marker -e h264.nal_unit_hdr \
        -e h264.nal_unit_type -e h264.start.bit -e h264.end.bit -e _ws.malformed \
        >"$dir/fields.txt" 2>"$dir/fields.err" || iop_fail "$label: tshark dissection failed: $(tail -c 400 "$dir/fields.err")"
    tshark -r "$dir/capture.pcapng" "${decode[@]}" -q -z expert >"$dir/expert.txt" 2>/dev/null \
        || iop_fail "$label: tshark expert summary failed"
    # Expert lines look like "   30  Undecoded   H.264  [Not decoded yet]"; only that one is allowed.
    local unexpected
    unexpected=$(awk '/^ +[0-9]+ / && !/Not decoded yet/' "$dir/expert.txt")
    [ -z "$unexpected" ] || iop_fail "$label: tshark expert information: $unexpected"

    local result rc=0
    result=$(awk -v mtu="$mtu" -v mode="$mode" -v fps="$FPS" -v frames="$FRAMES" -f "$HERE/rtp-check.awk" \
        "$dir/fields.txt") || rc=$?
    if [ "$rc" -ne 0 ]; then
        printf '%s\n' "$result" | head -20 >&2
        iop_fail "$label: the dissection breaks RFC 6184 rules above (mode $mode, MTU $mtu)"
    fi
    iop_log "$label (plain RTP, mode $mode, MTU $mtu, $profile, $size): tshark $(printf '%s' "$result" | head -1)"
    iop_log "$label: $(printf '%s\n' "$result" | tail -1); tshark expert: only H.264 [Not decoded yet]"
}

run_case mode1-mtu1200 43000 1 1200 baseline 1280x720
run_case mode1-mtu500  43010 1 500  high     640x360
run_case mode0-mtu500  43020 0 500  baseline 640x360
iop_log "PASS: tshark dissected 3 captures with no malformed packet and every RFC 6184 check holding"
