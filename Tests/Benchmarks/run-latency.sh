#!/usr/bin/env bash
# Glass-to-glass latency benchmark (issue 25, item 3): `serve --whep` at 1280x720, 30 fps, 1.5 Mbit/s watched by
# headless Chromium, whose requestVideoFrameCallback metadata give each frame's capture time (from abs-capture-time),
# receive time and presentation time: capture -> received / presented, p50/p95/p99 and the worst second, with
# `--playout-delay 0-0` and without it; then our own receiver's capture -> decoded on the same stream (send ->
# receive on loopback). Runs in a network namespace of its own (a veth pair with a default route: Chromium gathers no
# loopback candidates). Tests/Benchmarks/latency/latency.py says what each figure is.
# Usage: Tests/Benchmarks/run-latency.sh [SECONDS]   (as root; 20 by default)
#   RTC_BIN=/path/to/rtc-h264   measure that binary (default: this checkout's release build, built if missing)
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
cd "$(dirname "$0")/../.."
source Tests/WebRTCTests/Interop/netns.sh
require_root run-latency
require_tool chromium chromium
require_tool ip iproute2
if [ -z "${RTC_BIN:-}" ]; then
    swift build -c release --product rtc-h264 >&2
    RTC_BIN="$(swift build -c release --show-bin-path)/rtc-h264"
fi
NS="rtch264-latency-$$"
trap 'netns_down "$NS"' EXIT
netns_up "$NS" wlat0 10.76.0.1 wlat1 10.76.0.2
ip -n "$NS" route add default via 10.76.0.1 dev wlat1
ip netns exec "$NS" python3 Tests/Benchmarks/latency/latency.py --rtc-h264 "$RTC_BIN" --host 10.76.0.2 --seconds "${1:-20}"
