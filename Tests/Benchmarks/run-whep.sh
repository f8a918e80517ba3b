#!/usr/bin/env bash
# WHEP server benchmark (issue 15): offer-to-first-decoded-frame over JOINS Chromium joins, and the server's CPU per
# viewer with N concurrent Chromium viewers of a 720p30 stream. Runs in a network namespace of its own (browsers
# gather no loopback candidates), removed on exit.
# Usage: Tests/Benchmarks/run-whep.sh [joins|viewers|all|--help] [JOINS] [VIEWERS]   (as root)
#        Tests/Benchmarks/run-whep.sh churn [CYCLES] [WARMUP]   (issue 20: RSS after WARMUP and after CYCLES
#        join/leave cycles of an answered viewer, POST then DELETE; loopback, no root, no browser; 1000 and 10)
#        Tests/Benchmarks/run-whep.sh scrape [VIEWERS] [SECONDS]   (issue 26: CPU per GET /metrics with VIEWERS
#        answered viewers, against the same time without scrapes, 3 rounds; loopback, no root, no browser; 8 and 5)
#        Tests/Benchmarks/run-whep.sh many [VIEWERS] [SECONDS] [INTERVAL]   (issue 23: VIEWERS receive --whep
#        --no-decode sessions of a 720p30 stream joining INTERVAL s apart: frames per viewer, the server's CPU per
#        viewer, offer -> first frame; loopback, no root, no browser; 100, 40 and 0.1)
#   RTC_BIN=/path/to/rtc-h264   measure that binary (default: this checkout's release build, built if missing)
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
cd "$(dirname "$0")/../.."
if [ "${1:-}" = churn ] || [ "${1:-}" = scrape ] || [ "${1:-}" = many ]; then
    if [ -z "${RTC_BIN:-}" ]; then
        swift build -c release --product rtc-h264 >&2
        RTC_BIN="$(swift build -c release --show-bin-path)/rtc-h264"
    fi
    if [ "$1" = many ]; then
        exec python3 Tests/Benchmarks/whep/many_viewers.py "$RTC_BIN" "${2:-100}" "${3:-40}" "${4:-0.1}"
    fi
    if [ "$1" = churn ]; then
        exec python3 Tests/Benchmarks/whep/churn.py "$RTC_BIN" "${2:-1000}" "${3:-10}"
    fi
    exec python3 Tests/Benchmarks/whep/scrape.py "$RTC_BIN" "${2:-8}" "${3:-5}"
fi
PART=${1:-all}
JOINS=${2:-20}
VIEWERS=${3:-8}
source Tests/WebRTCTests/Interop/netns.sh
require_root run-whep
require_tool chromium chromium
require_tool ip iproute2
if [ -z "${RTC_BIN:-}" ]; then
    swift build -c release --product rtc-h264 >&2
    RTC_BIN="$(swift build -c release --show-bin-path)/rtc-h264"
fi
NS="rtch264-whepbench-$$"
trap 'netns_down "$NS"' EXIT
netns_up "$NS" wb0 10.78.0.1 wb1 10.78.0.2
ip netns exec "$NS" python3 Tests/Benchmarks/whep/whep_bench.py --rtc-h264 "$RTC_BIN" --part "$PART" \
    --joins "$JOINS" --viewers "$VIEWERS"
