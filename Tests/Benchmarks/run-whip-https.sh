#!/usr/bin/env bash
# What HTTPS adds to the WHIP POST (issue 22: at most 100 ms on loopback): `send --whip` publishes to aiortc's WHIP
# endpoint (Tests/WebRTCTests/Interop/aiortc_whip_server.py) over https (a P-256 certificate from a CA made here,
# --ca-file) and over http, alternately, ROUNDS times each; each run's `post_ms` (the "WHIP session created" log
# entry: connection, TLS handshake, the POST and the endpoint's answer) is printed, then the medians.
# Usage: Tests/Benchmarks/run-whip-https.sh [ROUNDS]   (8 by default)
#   RTC_BIN=/path/to/rtc-h264   measure that binary (default: this checkout's debug build, built if missing)
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
cd "$(dirname "$0")/../.."
source Tests/WebRTCTests/Interop/netns.sh
aiortc_venv
if [ -z "${RTC_BIN:-}" ]; then
    swift build --product rtc-h264 >&2
    RTC_BIN="$(swift build --show-bin-path)/rtc-h264"
fi
WORK=$(mktemp -d /tmp/whip-https.XXXXXX)
SERVER_PID=""
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
make_test_certificate "$WORK" 127.0.0.1
for round in $(seq "${1:-8}"); do
    for scheme in https http; do
        port=$((8600 + 2 * round)); tls=(); ca=()
        if [ "$scheme" = https ]; then
            port=$((port + 1)); tls=(--tls-cert "$WORK/server.pem" --tls-key "$WORK/server.key"); ca=(--ca-file "$WORK/ca.pem")
        fi
        "$AIORTC_PYTHON" Tests/WebRTCTests/Interop/aiortc_whip_server.py --listen 127.0.0.1 --port "$port" \
            --report "$WORK/report.json" --timeout 30 "${tls[@]}" >"$WORK/server.out" 2>"$WORK/server.err" &
        SERVER_PID=$!
        for _ in $(seq 100); do grep -q listening "$WORK/server.out" 2>/dev/null && break; sleep 0.1; done
        "$RTC_BIN" send --whip "$scheme://127.0.0.1:$port/whip" "${ca[@]}" --frames 15 --size 320x240 \
            --log-format json --log-level info 2>"$WORK/send.log" >/dev/null \
            || { echo "FAIL: send over $scheme: $(tail -c 600 "$WORK/send.log")" >&2; exit 1; }
        wait "$SERVER_PID" || true
        SERVER_PID=""
        ms=$(grep -o '"post_ms":"[0-9.]*"' "$WORK/send.log" | grep -o '[0-9.]*')
        echo "$scheme $ms" | tee -a "$WORK/all"
    done
done
for scheme in https http; do
    awk -v s="$scheme" '$1 == s { print $2 }' "$WORK/all" | sort -n \
        | awk -v s="$scheme" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s: median %.1f ms, max %.1f ms over %d POSTs\n", s, m, v[NR], NR }'
done
