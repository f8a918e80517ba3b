#!/usr/bin/env bash
# ICE restart benchmark (issue 22): ROUNDS runs of Tests/WebRTCTests/Interop/whip-restart.sh (send --whip to Janus
# through simple-whip-server, the publisher's address deleted mid-stream and another added 0.5 s later, headless
# Chromium watching the room) and a summary of the gaps: from the new address being up to Chromium's first decoded
# frame after it (target: at most 2 s), the publisher's own restart time (trigger to the new pair carrying media),
# and the keyframes encoded after the change (target: at most one).
# Usage: Tests/Benchmarks/run-restart.sh [ROUNDS]   (as root; 5 by default)
#   RTC_BIN=/path/to/rtc-h264   measure that binary (default: this checkout's release build, built if missing)
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
cd "$(dirname "$0")/../.."
ROUNDS=${1:-5}
if [ -z "${RTC_BIN:-}" ]; then
    swift build -c release --product rtc-h264 >&2
    RTC_BIN="$(swift build -c release --show-bin-path)/rtc-h264"
fi
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
for round in $(seq "$ROUNDS"); do
    RTC_H264="$RTC_BIN" bash Tests/WebRTCTests/Interop/whip-restart.sh 2>/dev/null | grep "^whip-restart (" | tee -a "$OUT" >&2 \
        || echo "round $round failed" >&2
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import re, statistics, sys
lines = open(sys.argv[1]).read().splitlines()
rounds = int(sys.argv[2])
def numbers(pattern):
    return [float(m.group(1)) for line in lines for m in [re.search(pattern, line)] if m]
back = numbers(r"picture back (\d+) ms after the new address")
stall = numbers(r"\((\d+) ms without a frame\)")
restart = numbers(r"media back (\d+) ms after it began")
keyframes = numbers(r"keyframes after the change (\d+)")
plis = numbers(r"PLIs after it (\d+)")
if not back:
    sys.exit("no round passed")
print(f"{len(back)} of {rounds} rounds passed")
print(f"picture back after the new address is up: median {statistics.median(back):.0f} ms, max {max(back):.0f} ms "
      f"(target 2000 ms: {'met' if max(back) <= 2000 else 'MISSED'})")
print(f"stall (last frame before to first frame after, incl. 0.5 s without an address): median "
      f"{statistics.median(stall):.0f} ms, max {max(stall):.0f} ms")
print(f"publisher's restart (trigger to the new pair carrying media): median {statistics.median(restart):.0f} ms, "
      f"max {max(restart):.0f} ms")
restart_keyframes = [k - p for k, p in zip(keyframes, plis)]
print(f"keyframes after the change: {[int(k) for k in keyframes]}, PLIs after it: {[int(p) for p in plis]}; "
      f"keyframes not asked for by a PLI: {[int(k) for k in restart_keyframes]} (target at most 1: "
      f"{'met' if restart_keyframes and max(restart_keyframes) <= 1 else 'MISSED'})")
PY
