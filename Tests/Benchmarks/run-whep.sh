#!/usr/bin/env bash
# WHEP server benchmark (issue 15): offer-to-first-decoded-frame over JOINS Chromium joins, and the server's CPU per
# viewer with N concurrent Chromium viewers of a 720p30 stream. Runs in a network namespace of its own (browsers
# gather no loopback candidates), removed on exit.
# Usage: Tests/Benchmarks/run-whep.sh [joins|viewers|all] [JOINS] [VIEWERS]   (as root)
#   RTC_BIN=/path/to/rtc-h264   measure that binary (default: this checkout's release build, built if missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
PART=${1:-all}
JOINS=${2:-20}
VIEWERS=${3:-8}
command -v chromium >/dev/null || { echo "chromium is missing: apt-get install chromium (Tests/install-deps.sh)" >&2; exit 1; }
if [ -z "${RTC_BIN:-}" ]; then
    swift build -c release --product rtc-h264 >&2
    RTC_BIN="$(swift build -c release --show-bin-path)/rtc-h264"
fi
NS="rtch264-whepbench-$$"
cleanup() {
    for pid in $(ip netns pids "$NS" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns delete "$NS" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" link add wb0 type veth peer name wb1
ip -n "$NS" addr add 10.78.0.1/24 dev wb0
ip -n "$NS" addr add 10.78.0.2/24 dev wb1
ip -n "$NS" link set wb0 up
ip -n "$NS" link set wb1 up
ip netns exec "$NS" python3 Tests/Benchmarks/whep/whep_bench.py --rtc-h264 "$RTC_BIN" --part "$PART" \
    --joins "$JOINS" --viewers "$VIEWERS"
