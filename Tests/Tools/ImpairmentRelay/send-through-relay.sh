#!/bin/bash
# Sends the test pattern with `rtc-h264 send` through the impairment relay to `rtc-h264 receive` on loopback and
# prints the receiver's summary and the relay's counters (issue 12's measurement set-up).
#
# Usage: send-through-relay.sh [-b path/to/rtc-h264] [-s seconds] [-o outdir] "fwd params" "rev params" [send options...]
#   e.g. send-through-relay.sh "delay_ms=25,loss=0.02" "delay_ms=25,loss=0.02" --size 1280x720 --bitrate 1.5M
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary="$here/../../../.build/debug/rtc-h264"
seconds=10
out=$(mktemp -d)
while getopts "b:s:o:" option; do
    case $option in
        b) binary=$OPTARG ;;
        s) seconds=$OPTARG ;;
        o) out=$OPTARG; mkdir -p "$out" ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
fwd=${1:-}; rev=${2:-}
shift 2 || true
relay_port=${RELAY_PORT:-36000}
receive_port=${RECEIVE_PORT:-36004}
key=$(python3 -c "import os, base64; print(base64.b64encode(os.urandom(30)).decode())")

python3 "$here/impairment_relay.py" --listen "127.0.0.1:$relay_port" --to "127.0.0.1:$receive_port" \
    --fwd "$fwd" --rev "$rev" --duration $((seconds + 5)) --stats-json "$out/relay.json" >/dev/null 2>"$out/relay.err" &
relay=$!
sleep 0.3
"$binary" receive --listen "127.0.0.1:$receive_port" --key "$key" --duration $((seconds + 2)) --idle-timeout 3 --json \
    >"$out/receive.json" 2>"$out/receive.err" &
receiver=$!
sleep 0.3
"$binary" send --to "127.0.0.1:$relay_port" --key "$key" --duration "$seconds" --quiet "$@" >"$out/send.out" 2>"$out/send.err"
wait $receiver || true
wait $relay || true
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
receive = json.load(open(f"{out}/receive.json"))
relay = json.load(open(f"{out}/relay.json"))
keys = ["framesReceived", "framesDecoded", "framesDropped", "packetsReceived", "packetsLost", "pliCount",
        "keyFramesDecoded"]
print("receiver:", {k: receive.get(k) for k in keys})
for direction in ("fwd", "rev"):
    print(f"relay {direction}:", relay[direction])
print("relay timing:", relay["timing"])
print("files in", out)
PY
