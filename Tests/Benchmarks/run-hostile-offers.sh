#!/usr/bin/env bash
# Issue 20, item 1: `serve --whep` answering WHEP offers of at most 64 KiB built to cost payload types x lines: the
# time to each reply (median and worst of ROUNDS) and the server's RSS growth. Targets: under 50 ms, under 2 MB.
# Usage: Tests/Benchmarks/run-hostile-offers.sh [ROUNDS]
#   RTC_BIN=/path/to/rtc-h264   measure that binary (default: this checkout's release build, built if missing)
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
cd "$(dirname "$0")/../.."
if [ -z "${RTC_BIN:-}" ]; then
    swift build -c release --product rtc-h264 >&2
    RTC_BIN="$(swift build -c release --show-bin-path)/rtc-h264"
fi
python3 Tests/Benchmarks/whep/hostile_offers.py --rtc-h264 "$RTC_BIN" --rounds "${1:-20}"
