#!/usr/bin/env bash
# Glass-to-glass latency benchmark (issue 25, item 3): `serve --whep` at 1280x720, 30 fps, 1.5 Mbit/s watched by
# headless Chromium, whose requestVideoFrameCallback metadata give each frame's capture time (from abs-capture-time),
# receive time and presentation time: capture -> received / presented, p50/p95/p99 and the worst second, with
# `--playout-delay 0-0` and without it; then our own receiver's capture -> decoded on the same stream (send ->
# receive on loopback). Runs in a network namespace of its own (a veth pair with a default route: Chromium gathers no
# loopback candidates). Tests/Benchmarks/latency/latency.py says what each figure is.
# Usage: Tests/Benchmarks/run-latency.sh [SECONDS]   (as root; 20 by default)
#   RTC_BIN=/path/to/rtc-h264   measure that binary (default: this checkout's release build, built if missing)
#   IMPAIR=DELAY_MS:LOSS_PERCENT  across an impaired path instead (e.g. 25:2): serve and send in one namespace,
#                                 Chromium and receive in another, joined by latency/impair_bridge.py (a user-space
#                                 bridge in a third namespace: DELAY_MS each way, LOSS_PERCENT of the UDP datagrams
#                                 lost in each direction; this kernel has no netem)
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
cd "$(dirname "$0")/../.."
source Tests/WebRTCTests/Interop/netns.sh
require_root run-latency
require_tool chromium chromium
require_tool ip iproute2
if [ -n "${IMPAIR:-}" ]; then
    [[ "$IMPAIR" =~ ^([0-9]+):([0-9]+(\.[0-9]+)?)$ ]] && awk -v p="${BASH_REMATCH[2]}" 'BEGIN { exit !(p < 100) }' \
        || { echo "IMPAIR must be DELAY_MS:LOSS_PERCENT with the loss under 100, e.g. 25:2" >&2; exit 1; }
    delay=${BASH_REMATCH[1]}
    loss=${BASH_REMATCH[2]}
fi
if [ -z "${RTC_BIN:-}" ]; then
    swift build -c release --product rtc-h264 >&2
    RTC_BIN="$(swift build -c release --show-bin-path)/rtc-h264"
fi
LATENCY="Tests/Benchmarks/latency"
seconds=${1:-20}
if [ -z "${IMPAIR:-}" ]; then
    NS="rtch264-latency-$$"
    trap 'netns_down "$NS"' EXIT
    netns_up "$NS" wlat0 10.76.0.1 wlat1 10.76.0.2
    ip -n "$NS" route add default via 10.76.0.1 dev wlat1
    ip netns exec "$NS" python3 "$LATENCY/latency.py" --rtc-h264 "$RTC_BIN" --host 10.76.0.2 --seconds "$seconds"
    exit 0
fi
require_tool ethtool ethtool
SRV="rtch264-latency-srv-$$"
BRG="rtch264-latency-brg-$$"
VWR="rtch264-latency-vwr-$$"
BRIDGE_PID=""
BRIDGE_LOG=$(mktemp /tmp/impair-bridge.XXXXXX)
cleanup() {
    [ -n "$BRIDGE_PID" ] && kill "$BRIDGE_PID" 2>/dev/null && wait "$BRIDGE_PID" 2>/dev/null
    for ns in "$SRV" "$BRG" "$VWR"; do netns_down "$ns"; done
    rm -f "$BRIDGE_LOG"
}
trap cleanup EXIT
impaired_path_up "$SRV" "$BRG" "$VWR" il "$delay" "$(awk -v p="$loss" 'BEGIN { print p / 100 }')" "$BRIDGE_LOG"
echo "impaired path: ${delay} ms each way, ${loss} % of the UDP datagrams lost each way" >&2
ip netns exec "$VWR" python3 "$LATENCY/latency.py" --rtc-h264 "$RTC_BIN" --host 10.79.0.2 --seconds "$seconds" \
    --serve-prefix "ip netns exec $SRV" --serve-host 10.79.0.1
kill "$BRIDGE_PID" 2>/dev/null && wait "$BRIDGE_PID" 2>/dev/null || true
BRIDGE_PID=""
echo "bridge: $(tail -1 "$BRIDGE_LOG")" >&2
