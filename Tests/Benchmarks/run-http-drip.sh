#!/usr/bin/env bash
# HTTP drip benchmark (issue 20, item 3): 1,000 connections sending a request head one byte every 5 s (from
# 127.0.0.2-127.0.0.5, reconnecting 5 s after the server closes one) against `serve --whep` or its `--control`
# endpoint, while a legitimate client on 127.0.0.1 times a whole request every 2 s (GET / for WHEP, POST /bitrate for
# the control endpoint); the server's CPU and RSS from /proc before, during and after. Loopback only; bounded.
# Usage: Tests/Benchmarks/run-http-drip.sh [whep|control] [NOFILE] [CONNECTIONS] [PREFILL]
#   NOFILE       the server's descriptor limit (ulimit -n; default 4096; 256 reproduces the issue's spin)
#   PREFILL      bytes of head each connection sends at once before dripping (default 0; 75000 for the memory case)
#   RTC_BIN=/path/to/rtc-h264   measure that binary (default: this checkout's release build, built if missing)
#   DURATION=40  seconds of drip; OUT=file.json  also write the summary there
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
cd "$(dirname "$0")/../.."
ENDPOINT=${1:-whep}
NOFILE=${2:-4096}
CONNECTIONS=${3:-1000}
PREFILL=${4:-0}
if [ -z "${RTC_BIN:-}" ]; then
    swift build -c release --product rtc-h264 >&2
    RTC_BIN="$(swift build -c release --show-bin-path)/rtc-h264"
fi
WHEP_PORT=$((20000 + RANDOM % 20000))
CONTROL_PORT=$((WHEP_PORT + 1))
# One serve process holds both endpoints; one frame, then the encoder idles (its CPU would hide the HTTP side's).
bash -c "ulimit -n $NOFILE && exec \"$RTC_BIN\" serve --whep 127.0.0.1:$WHEP_PORT --control 127.0.0.1:$CONTROL_PORT \
    --frames 1 --quiet" >/dev/null 2>&1 &
SERVER=$!
sleep 0.2
kill -0 $SERVER 2>/dev/null || { echo "the server did not start (ulimit -n $NOFILE above the hard limit $(ulimit -Hn)?)" >&2; exit 1; }
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    (exec 3<>/dev/tcp/127.0.0.1/$CONTROL_PORT) 2>/dev/null && break
    sleep 0.1
done
PORT=$WHEP_PORT
[ "$ENDPOINT" = control ] && PORT=$CONTROL_PORT
ulimit -n $((CONNECTIONS + 1024))  # the load generator's own descriptors
echo "rtc-h264 serve (pid $SERVER, ulimit -n $NOFILE): $ENDPOINT on 127.0.0.1:$PORT, $CONNECTIONS drip connections"
python3 Tests/Benchmarks/http/http_drip.py --pid "$SERVER" --port "$PORT" --endpoint "$ENDPOINT" \
    --connections "$CONNECTIONS" --prefill "$PREFILL" --duration "${DURATION:-40}" ${OUT:+--out "$OUT"}
