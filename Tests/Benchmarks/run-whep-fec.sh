#!/usr/bin/env bash
# FlexFEC in Chromium (issue 24): `serve --whep` watched by headless Chromium across a long lossy path, with
# `--fec` and without (NACK alone): Chromium's own freezes, frames decoded, FEC packets received and used.
# `serve` runs in one namespace, Chromium in another, joined by latency/impair_bridge.py (a user-space bridge:
# DELAY_MS each way, LOSS_PERCENT of the UDP datagrams lost each way; this kernel has no netem).
# Usage: Tests/Benchmarks/run-whep-fec.sh [SECONDS] (as root; 40 by default)
#   RTC_BIN=/path/to/rtc-h264   measure that binary (default: this checkout's release build, built if missing)
#   IMPAIR=DELAY_MS:LOSS_PERCENT  the path (default 150:5)
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
cd "$(dirname "$0")/../.."
source Tests/WebRTCTests/Interop/netns.sh
require_root run-whep-fec
require_tool chromium chromium
require_tool ip iproute2
require_tool ethtool ethtool
IMPAIR="${IMPAIR:-150:5}"
[[ "$IMPAIR" =~ ^([0-9]+):([0-9]+(\.[0-9]+)?)$ ]] && awk -v p="${BASH_REMATCH[2]}" 'BEGIN { exit !(p < 100) }' \
    || { echo "IMPAIR must be DELAY_MS:LOSS_PERCENT with the loss under 100, e.g. 150:5" >&2; exit 1; }
delay=${BASH_REMATCH[1]}
loss=${BASH_REMATCH[2]}
if [ -z "${RTC_BIN:-}" ]; then
    swift build -c release --product rtc-h264 >&2
    RTC_BIN="$(swift build -c release --show-bin-path)/rtc-h264"
fi
SRV="rtch264-fec-srv-$$"
BRG="rtch264-fec-brg-$$"
VWR="rtch264-fec-vwr-$$"
BRIDGE_PID=""
BRIDGE_LOG=$(mktemp /tmp/impair-bridge.XXXXXX)
cleanup() {
    [ -n "$BRIDGE_PID" ] && kill "$BRIDGE_PID" 2>/dev/null && wait "$BRIDGE_PID" 2>/dev/null
    for ns in "$SRV" "$BRG" "$VWR"; do netns_down "$ns"; done
    rm -f "$BRIDGE_LOG"
}
trap cleanup EXIT
impaired_path_up "$SRV" "$BRG" "$VWR" fe "$delay" "$(awk -v p="$loss" 'BEGIN { print p / 100 }')" "$BRIDGE_LOG"
echo "impaired path: ${delay} ms each way, ${loss} % of the UDP datagrams lost each way" >&2
ip netns exec "$VWR" python3 Tests/Benchmarks/fec/chromium_fec.py --rtc-h264 "$RTC_BIN" --host 10.79.0.2 \
    --seconds "${1:-40}" --serve-prefix "ip netns exec $SRV" --serve-host 10.79.0.1
echo "bridge: $(tail -1 "$BRIDGE_LOG")" >&2
