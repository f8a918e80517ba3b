#!/usr/bin/env bash
# Runs every Interop scenario in turn and prints `N passed, M failed` as its last line.
# Exits non-zero if any scenario failed. RTC_H264 selects the binary (default: `swift build`, then its bin path).
# Usage: Interop/run-all.sh [scenario-name ...]   (names as in SCENARIOS below; default: all)
set -uo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
SCENARIOS=(ffmpeg-receive gstreamer-receive tshark-dissect gstreamer-send ffmpeg-send keyframe-request janus-chromium resolution-switch gstreamer-rtpbin-nack)
[ "$#" -eq 0 ] || SCENARIOS=("$@")

if [ -z "${RTC_H264:-}" ]; then
    echo "[run-all] building rtc-h264 with swift build"
    (cd "$ROOT" && swift build >/dev/null) || { echo "[run-all] swift build failed"; echo "0 passed, ${#SCENARIOS[@]} failed"; exit 1; }
    RTC_H264="$(cd "$ROOT" && swift build --show-bin-path)/rtc-h264"
fi
export RTC_H264

passed=0; failed=0; failures=()
for scenario in "${SCENARIOS[@]}"; do
    script="$HERE/$scenario.sh"
    echo "[run-all] === $scenario"
    start=$SECONDS
    if [ -x "$script" ] && "$script"; then
        passed=$((passed + 1)); echo "[run-all] $scenario: passed ($((SECONDS - start)) s)"
    else
        [ -x "$script" ] || echo "[run-all] no executable $script"
        failed=$((failed + 1)); failures+=("$scenario"); echo "[run-all] $scenario: FAILED ($((SECONDS - start)) s)"
    fi
done
[ "$failed" -eq 0 ] || echo "[run-all] failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
