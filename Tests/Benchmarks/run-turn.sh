#!/usr/bin/env bash
# TURN benchmark (issue 22): `send --whip` to aiortc (aiortc_whip_server.py) through Debian's coturn, in the three
# namespaces of whip-turn.sh (turn_lab_up in netns.sh), over four paths: direct (the router forwards UDP for this
# one), TURN over UDP, TURN over TCP and TURN over TLS (for the last two no UDP leaves the publisher at all).
#   1. join: ROUNDS publishes per path (1280x720, 1.5 Mbit/s, 60 frames): the offer's arrival at the endpoint to its
#      first decoded frame (target: at most 1 s through TURN over UDP and TCP), and `send`'s own "connected N ms after
#      the answer" (ICE and DTLS).
#   2. CPU: one 20 s publish per path (600 frames, 1280x720, 1.5 Mbit/s): `send`'s user + system CPU seconds (target:
#      TURN at most 5 % above direct).
#   3. loss: 5 % of the datagrams between the relay and the endpoint dropped, both ways (iptables statistic, on the
#      way into the endpoint and into the router), 600 frames of 1280x720 at 1.5 Mbit/s through TURN over UDP and over TCP: the frames the endpoint
#      decoded bit-exact and in order (target: at least 99.5 %).
# Usage: Tests/Benchmarks/run-turn.sh [ROUNDS]   (as root; 5 by default)
#   RTC_BIN=/path/to/rtc-h264   measure that binary (default: this checkout's release build, built if missing)
#   PARTS="join cpu loss"       the parts to run (all by default); PATHS="direct udp tcp tls" the paths of join and cpu;
#   KEEP=1 keeps the work directory, CAPTURE=1 records the endpoint's traffic there (tshark)
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
cd "$(dirname "$0")/../.."
ROUNDS=${1:-5}
HERE=Tests/WebRTCTests/Interop
source "$HERE/netns.sh"
require_tool ip iproute2
require_tool iptables iptables
require_tool turnserver coturn
require_root run-turn
if [ -z "${RTC_BIN:-}" ]; then
    swift build -c release --product rtc-h264 >&2
    RTC_BIN="$(swift build -c release --show-bin-path)/rtc-h264"
fi
aiortc_venv
PY="$AIORTC_PYTHON"
WORK=$(mktemp -d /tmp/run-turn.XXXXXX)
SERVER_PID=""
cleanup() {
    local status=$?
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    turn_lab_down
    [ "${KEEP:-0}" = 1 ] && echo "run-turn: kept $WORK" >&2 || rm -rf "$WORK"
    exit $status
}
trap cleanup EXIT
turn_lab_up "$WORK"
# CAPTURE=1: what reaches the endpoint, in WORK/endpoint.pcap (with KEEP=1).
[ "${CAPTURE:-0}" = 1 ] && { ip netns exec "$END" tshark -q -i tend0 -w "$WORK/endpoint.pcap" >/dev/null 2>&1 & sleep 1; }

# path_args PATH: the --ice-server options of a path (none for direct).
path_args() {
    case $1 in
        direct) ;;
        udp) echo "--ice-server turn:10.83.1.1" ;;
        tcp) echo "--ice-server turn:10.83.1.1?transport=tcp" ;;
        tls) echo "--ice-server turns:10.83.1.1 --ca-file $WORK/tls/ca.pem" ;;
    esac
}
# path_up PATH / path_down PATH: the firewall for a path (direct: forwarded UDP allowed; tcp, tls: no UDP out).
path_up() {
    case $1 in
        direct) ip netns exec "$RTR" iptables -D FORWARD -p udp -j DROP ;;
        tcp|tls) ip netns exec "$PUB" iptables -A OUTPUT -o tpub0 -p udp -j DROP ;;
    esac
}
path_down() {
    case $1 in
        direct) ip netns exec "$RTR" iptables -A FORWARD -p udp -j DROP ;;
        tcp|tls) ip netns exec "$PUB" iptables -D OUTPUT -o tpub0 -p udp -j DROP ;;
    esac
}
# publish NAME PATH FRAMES: one publish; prints "first_frame_ms connect_ms cpu_seconds fraction_decoded".
publish() {
    local name=$1 path=$2 frames=$3 args
    PORT=$((8400 + $(wc -l <"$RESULTS")))
    aiortc_endpoint_start "$PORT" "$WORK/$name.json"
    args=$(path_args "$path")
    [ "$path" = direct ] || args="$args --ice-username $USER_NAME --ice-credential-file $WORK/turn.password"
    TIMEFORMAT='%U %S'
    { time ip netns exec "$PUB" "$RTC_BIN" send --whip "http://10.83.2.2:$PORT/whip" $args --frames "$frames" \
        --size 1280x720 --fps 30 --bitrate 1.5M --save-annexb "$WORK/$name.h264" 2>"$WORK/$name.err" ; } 2>"$WORK/$name.time" \
        || { echo "run-turn: $name: send exited $?: $(tail -c 600 "$WORK/$name.err")" >&2; wait "$SERVER_PID" || true; SERVER_PID=""; return 1; }
    wait "$SERVER_PID" || true
    SERVER_PID=""
    local compare
    compare=$(cd "$HERE" && "$PY" whip_compare.py "$WORK/$name.json" "$WORK/$name.h264" --last-frame-pending 2>/dev/null || true)
    "$PY" - "$WORK/$name.json" "$WORK/$name.err" "$WORK/$name.time" "$compare" <<'EOF'
import json, re, sys
report = json.load(open(sys.argv[1]))
log = open(sys.argv[2]).read()
user, system = (float(x) for x in open(sys.argv[3]).read().split()[-2:])
connected = re.search(r"connected (\d+) ms after the answer", log)
try:
    fraction = json.loads(sys.argv[4])["bit_exact_in_order"] / max(1, json.loads(sys.argv[4])["sent"])
except Exception:
    fraction = 0.0
print(report.get("first_frame_ms", -1), connected.group(1) if connected else -1, round(user + system, 2), round(fraction, 4))
EOF
}

RESULTS="$WORK/results.txt"
: >"$RESULTS"
PARTS=${PARTS:-join cpu loss}
for path in ${PATHS:-direct udp tcp tls}; do
    case " $PARTS " in *" join "*|*" cpu "*) ;; *) continue ;; esac
    path_up "$path"
    for round in $(seq "$ROUNDS"); do
        case " $PARTS " in *" join "*) ;; *) break ;; esac
        line=$(publish "join-$path-$round" "$path" 60) || line="-1 -1 0 0"
        echo "join $path $line" | tee -a "$RESULTS" >&2
    done
    case " $PARTS " in *" cpu "*) ;; *) path_down "$path"; continue ;; esac
    line=$(publish "cpu-$path" "$path" 600) || line="-1 -1 0 0"
    echo "cpu $path $line" | tee -a "$RESULTS" >&2
    path_down "$path"
done
# 5 % loss each way on the relay's leg (coturn's relayed address to the endpoint and back).
case " $PARTS " in *" loss "*) ;; *) PARTS_LOSS=no ;; esac
[ "${PARTS_LOSS:-yes}" = no ] || {
# Both on the way in (INPUT): a datagram dropped in OUTPUT fails its sendto with EPERM, and coturn then closes the whole
# allocation ("udp send: Operation not permitted").
ip netns exec "$END" iptables -A INPUT -i tend0 -p udp -m statistic --mode random --probability 0.05 -j DROP
ip netns exec "$RTR" iptables -A INPUT -i tend1 -p udp -m statistic --mode random --probability 0.05 -j DROP
for path in udp tcp; do
    path_up "$path"
    line=$(publish "loss-$path" "$path" 600) || line="-1 -1 0 0"
    echo "loss $path $line" | tee -a "$RESULTS" >&2
    path_down "$path"
done
}
dropped=$( { ip netns exec "$END" iptables -L INPUT -v -x -n; ip netns exec "$RTR" iptables -L INPUT -v -x -n; } \
    | awk '$3 == "DROP" { s += $1 } END { print s + 0 }')
python3 - "$RESULTS" "$dropped" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
def of(kind, path):
    return [tuple(float(x) for x in row[2:]) for row in rows if row[0] == kind and row[1] == path]
print("path    first frame after the offer (median / max ms)   connected after the answer (median ms)   CPU s (20 s)")
cpu = {}
for path in ("direct", "udp", "tcp", "tls"):
    joins = [row for row in of("join", path) if row[0] >= 0]
    cpu[path] = of("cpu", path)[0][2] if of("cpu", path) else float("nan")
    if not joins:
        print(f"{path:7} no publish passed")
        continue
    first = [row[0] for row in joins]
    connect = [row[1] for row in joins]
    print(f"{path:7} {statistics.median(first):6.0f} / {max(first):6.0f} ({len(joins)} runs)"
          f"{'':24}{statistics.median(connect):6.0f}{'':30}{cpu[path]:.2f}")
for path in ("udp", "tcp"):
    joins = [row[0] for row in of("join", path) if row[0] >= 0]
    if joins:
        print(f"target: first frame within 1 s through TURN over {path.upper()}: {'met' if max(joins) <= 1000 else 'MISSED'}")
for path in ("udp", "tcp", "tls"):
    if cpu.get("direct") and cpu.get(path) == cpu.get(path):
        extra = (cpu[path] / cpu["direct"] - 1) * 100
        print(f"CPU through TURN over {path.upper()}: {extra:+.1f} % against direct (target at most +5 %: {'met' if extra <= 5 else 'MISSED'})")
for path in ("udp", "tcp"):
    loss = of("loss", path)
    if loss:
        fraction = loss[0][3] * 100
        print(f"5 % loss each way on the relay's leg, TURN over {path.upper()}: {fraction:.1f} % of the frames decoded bit-exact in order "
              f"(target 99.5 %: {'met' if fraction >= 99.5 else 'MISSED'})")
print(f"datagrams dropped by the loss rules: {sys.argv[2]}")
PY
