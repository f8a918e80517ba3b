#!/usr/bin/env bash
# `rtc-h264 send --whip` publishes through Debian's coturn when nothing more direct works: three network namespaces,
# the publisher and the aiortc WHIP endpoint (aiortc_whip_server.py) on two subnets joined by a router that forwards
# TCP (the WHIP HTTP exchange) and drops every forwarded UDP datagram (iptables), the TURN server on the router:
#
#   publisher 10.83.1.2 --- 10.83.1.1 [router: coturn listens here, relays from 10.83.2.1] 10.83.2.1 --- 10.83.2.2 endpoint
#
#   1. --ice-server turn:10.83.1.1 with --ice-username and --ice-credential-file (and stun:10.83.1.1, whose answer is
#      the host address: no srflx candidate, RFC 8445 section 5.1.3): the relayed candidate is in the
#      offer (typ relay, raddr/rport), ICE selects it (`send` prints "relay via turn:..."; the endpoint's nominated
#      remote candidate is the relay's 10.83.2.1), 150 frames decoded bit-exact (MD5 against a decode of our own
#      bitstream), the direct checks dropped at the router; the credential never printed.
#   2. no --ice-server: the TURN server comes from the endpoint's `Link` header (RFC 9725 section 4.6), its relayed
#      candidate gathered after the offer and trickled to it (PATCH with the ETag, RFC 9725 section 4.3.1); frames as
#      in 1.
#   Both runs: coturn logs one channel bound and the allocation released (Refresh, lifetime 0) at the end.
#   3. a wrong credential: `send` names the TURN server's refusal, and ICE (the direct pair blocked) fails.
#   4. no UDP at all leaves the publisher (iptables OUTPUT in its namespace): TURN over TCP
#      (turn:10.83.1.1?transport=tcp), media relayed as padded ChannelData on the connection, frames as in 1.
#   5. the same over TLS (turns:10.83.1.1, coturn's certificate from a CA the test makes, --ca-file): frames as in 1;
#      runs 4 and 5 each bind one channel and release the allocation over their connection at the end.
#   6. turns: without --ca-file: the certificate refused and named (unknown issuer), nothing relayed.
#   7. NAT: UDP forwarded again, but the router masquerades the publisher (iptables MASQUERADE) and drops whatever the
#      publisher did not start; with stun:10.83.2.2:3479 (a STUN-only coturn outside the NAT) the offer holds a
#      server-reflexive candidate (the router's address, raddr the host), the endpoint nominates the router's address (as srflx or
#      peer-reflexive), its checks to the private host address are dropped, and every frame arrives bit-exact.
#
# Usage: Tests/WebRTCTests/Interop/whip-turn.sh   (as root; after `swift build`; RTC_H264 = the binary)
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=Tests/WebRTCTests/Interop
source "$HERE/netns.sh"
rtc_binary whip-turn
require_tool ip iproute2
require_tool iptables iptables
require_tool turnserver coturn
require_root whip-turn

aiortc_venv
PY="$AIORTC_PYTHON"

WORK=$(mktemp -d /tmp/whip-turn.XXXXXX)
SERVER_PID=""
cleanup() {
    local status=$?
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    turn_lab_down
    [ "${KEEP:-0}" = 1 ] && echo "whip-turn: kept $WORK" >&2 || rm -rf "$WORK"
    exit $status
}
trap cleanup EXIT
turn_lab_up "$WORK"
printf '%s\n' "wrong-$PASSWORD" >"$WORK/wrong.password"
chmod 600 "$WORK/wrong.password"

# start_server PORT REPORT [args...]: the endpoint, waited for until it listens (SERVER_PID).
start_server() { aiortc_endpoint_start "$@"; }


# check_relayed NAME REPORT SENT_LOG ANNEXB [RELAY]: the relay (RELAY, by default turn:10.83.1.1:3478) was selected on
# both sides and every frame arrived bit-exact.
check_relayed() {
    local name=$1 report=$2 log=$3 annexb=$4 relay=${5:-turn:10.83.1.1:3478}
    grep -qF "relay via $relay" "$log" || { echo "FAIL: $name: the selected pair is not relayed: $(grep -o 'ICE .*' "$log" | head -1)" >&2; exit 1; }
    if grep -q "$PASSWORD" "$log"; then echo "FAIL: $name: the TURN credential was printed" >&2; exit 1; fi
    "$PY" - "$report" <<'EOF' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
nominated = report.get("nominated") or {}
if nominated.get("host") != "10.83.2.1":
    print("FAIL: the endpoint's nominated remote candidate is %s, not the relay 10.83.2.1" % nominated, file=sys.stderr)
    sys.exit(1)
EOF
    RESULT=$(cd "$HERE" && "$PY" whip_compare.py "$report" "$annexb" --last-frame-pending) \
        || { echo "FAIL: $name: frame comparison: $RESULT" >&2; exit 1; }
    echo "whip-turn $name: $RESULT; $(grep -o 'ICE .*' "$log" | head -1)"
}

# expect_refused NAME PORT URI CREDENTIAL_FILE REASON: a publish through URI fails, its error names REASON (grep),
# and the TURN credential is never printed.
expect_refused() {
    local name=$1 port=$2 uri=$3 credential=$4 reason=$5
    start_server "$port" "$WORK/report-$name.json"
    if ip netns exec "$PUB" "$RTC" send --whip "http://10.83.2.2:$port/whip" --ice-server "$uri" \
        --ice-username "$USER_NAME" --ice-credential-file "$credential" --frames 30 --size 320x240 --quiet \
        2>"$WORK/send-$name.err"; then
        echo "FAIL: $name: send through $uri succeeded" >&2
        exit 1
    fi
    grep -q "$reason" "$WORK/send-$name.err" || { echo "FAIL: $name: the reason is not named: $(cat "$WORK/send-$name.err")" >&2; exit 1; }
    if grep -q "$PASSWORD" "$WORK/send-$name.err"; then echo "FAIL: $name: the TURN credential was printed" >&2; exit 1; fi
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
    echo "whip-turn $name: $(head -c 400 "$WORK/send-$name.err" | tr '\n' ' ')"
}

# 1. The TURN server given with --ice-server: the relayed candidate offered and selected.
start_server 8301 "$WORK/report-configured.json"
ip netns exec "$PUB" "$RTC" send --whip http://10.83.2.2:8301/whip --ice-server stun:10.83.1.1 --ice-server turn:10.83.1.1 \
    --ice-username "$USER_NAME" --ice-credential-file "$WORK/turn.password" --frames 150 --size 320x240 --fps 30 \
    --save-annexb "$WORK/sent-configured.h264" 2>"$WORK/send-configured.err" \
    || { echo "FAIL: send through TURN exited $?: $(tail -c 800 "$WORK/send-configured.err")" >&2; exit 1; }
wait "$SERVER_PID" || true
SERVER_PID=""
"$PY" - "$WORK/report-configured.json" <<'EOF' || exit 1
import json, sys
lines = json.load(open(sys.argv[1]))["offer_candidate_lines"]
relay = [line for line in lines if " typ relay " in line]
if any(" typ srflx " in line for line in lines):
    print("FAIL: a server-reflexive candidate equal to the host address was offered: %s" % lines, file=sys.stderr)
    sys.exit(1)
if len(relay) != 1 or " 10.83.2.1 " not in relay[0] or "raddr 10.83.1.2" not in relay[0]:
    print("FAIL: the offer's candidates hold no relayed 10.83.2.1 with raddr 10.83.1.2: %s" % lines, file=sys.stderr)
    sys.exit(1)
EOF
check_relayed "--ice-server" "$WORK/report-configured.json" "$WORK/send-configured.err" "$WORK/sent-configured.h264"
if grep -q "ICE server not used" "$WORK/send-configured.err"; then
    echo "FAIL: an ICE server gave no candidate: $(grep 'ICE server not used' "$WORK/send-configured.err")" >&2
    exit 1
fi
[ "$(turn_lab_dropped_udp)" -gt 0 ] || { echo "FAIL: no direct UDP datagram reached the router's filter: nothing proves the direct pair was tried" >&2; exit 1; }
echo "whip-turn: $(turn_lab_dropped_udp) direct UDP datagrams dropped at the router"

# 2. The TURN server from the endpoint's Link header only.
start_server 8302 "$WORK/report-link.json" --trickle \
    --link "<turn:10.83.1.1:3478?transport=udp>; rel=\"ice-server\"; username=\"$USER_NAME\"; credential=\"$PASSWORD\"; credential-type=\"password\""
ip netns exec "$PUB" "$RTC" send --whip http://10.83.2.2:8302/whip --frames 150 --size 320x240 --fps 30 \
    --log-level debug --log-format json --save-annexb "$WORK/sent-link.h264" 2>"$WORK/send-link.err" \
    || { echo "FAIL: send through the Link header's TURN server exited $?: $(tail -c 800 "$WORK/send-link.err")" >&2; exit 1; }
wait "$SERVER_PID" || true
SERVER_PID=""
# Its JSON log: every entry parses, the publisher logged the relayed connection, and (check_relayed below) no line
# holds the TURN credential the endpoint handed out.
"$PY" - "$WORK/send-link.err" <<'EOF' || exit 1
import json, sys
entries = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
connected = [e for e in entries if e.get("message") == "WHIP connected"]
if not connected or connected[0].get("candidate") != "relay" or not connected[0].get("relay", "").startswith("turn:") \
        or connected[0].get("relay_protocol") != "udp":
    print("FAIL: no 'WHIP connected' log entry over the relay: %s" % connected, file=sys.stderr)
    sys.exit(1)
for needed in ("WHIP session created", "trickled candidates", "sender started", "WHIP session ended"):
    if not any(e.get("message") == needed for e in entries):
        print("FAIL: no '%s' log entry in %d entries" % (needed, len(entries)), file=sys.stderr)
        sys.exit(1)
print("whip-turn Link: %d JSON log entries; connected %s" % (len(entries), {k: connected[0][k] for k in ("candidate", "relay", "relay_protocol", "suite", "connect_ms")}))
EOF
check_relayed "Link header" "$WORK/report-link.json" "$WORK/send-link.err" "$WORK/sent-link.h264"
"$PY" - "$WORK/report-link.json" <<'EOF' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
trickled, nominated = report.get("trickled", []), report.get("nominated") or {}
# (aioice may still nominate the pair it learned from our checks first, as peer-reflexive: they race the PATCH.)
if not any(line.startswith("10.83.2.1 ") and line.endswith("typ relay") for line in trickled):
    print("FAIL: the relayed candidate was not trickled (trickled %s, nominated %s)" % (trickled, nominated), file=sys.stderr)
    sys.exit(1)
print("whip-turn Link: trickled %s; the endpoint nominated a %s candidate" % (trickled, nominated.get("type")))
EOF
turn_lab_coturn_logged 2
echo "whip-turn: coturn relayed (client side, then peer side): $(grep -o 'usage: .*' "$WORK/turnserver.log" | sed 's/realm=<[^>]*>, username=<[^>]*>, //' | tr '\n' ';')"

# 3. A wrong credential: the refusal named, no relayed candidate, and ICE fails (the direct pair is blocked).
expect_refused wrong-credential 8303 turn:10.83.1.1 "$WORK/wrong.password" \
    "turn:10.83.1.1:3478: TURN server 10.83.1.1:3478 refused the credential"

# 4-6: no UDP leaves the publisher at all (a network that allows only TCP): TURN over TCP, then over TLS.
ip netns exec "$PUB" iptables -A OUTPUT -o tpub0 -p udp -j DROP
dropped_out() { ip netns exec "$PUB" iptables -L OUTPUT -v -x -n | awk '$3 == "DROP" && ($4 == "udp" || $4 == "17") { print $1 }'; }
# run_stream NAME PORT URI RELAY [args...]: one publish through the TURN server over a stream, checked as run 1.
run_stream() {
    local name=$1 port=$2 uri=$3 relay=$4
    shift 4
    start_server "$port" "$WORK/report-$name.json"
    ip netns exec "$PUB" "$RTC" send --whip "http://10.83.2.2:$port/whip" --ice-server "$uri" \
        --ice-username "$USER_NAME" --ice-credential-file "$WORK/turn.password" --frames 150 --size 320x240 --fps 30 \
        --save-annexb "$WORK/sent-$name.h264" "$@" 2>"$WORK/send-$name.err" \
        || { echo "FAIL: send through $uri exited $?: $(tail -c 800 "$WORK/send-$name.err")" >&2; exit 1; }
    wait "$SERVER_PID" || true
    SERVER_PID=""
    check_relayed "$name" "$WORK/report-$name.json" "$WORK/send-$name.err" "$WORK/sent-$name.h264" "$relay"
}
run_stream tcp 8304 "turn:10.83.1.1?transport=tcp" "turn:10.83.1.1:3478?transport=tcp"
[ "$(dropped_out)" -gt 0 ] || { echo "FAIL: no UDP datagram of the publisher was dropped: nothing proves UDP was blocked" >&2; exit 1; }
echo "whip-turn tcp: $(dropped_out) UDP datagrams of the publisher dropped on its way out"
run_stream tls 8305 "turns:10.83.1.1" "turns:10.83.1.1:5349" --ca-file "$WORK/tls/ca.pem"
turn_lab_coturn_logged 4
grep -q "TLS" "$WORK/turnserver.log" || { echo "FAIL: coturn logged no TLS session" >&2; exit 1; }

# 6. turns: without the test CA: the certificate is refused and named; nothing connects (no UDP, no relay).
expect_refused untrusted-turns 8306 turns:10.83.1.1 "$WORK/turn.password" "turns:10.83.1.1:5349: .*unknown issuer"

# 7. Behind a NAT: UDP out again, masqueraded; nothing in that the publisher did not start.
ip netns exec "$PUB" iptables -D OUTPUT -o tpub0 -p udp -j DROP
turn_lab_nat
start_server 8307 "$WORK/report-nat.json"
ip netns exec "$PUB" "$RTC" send --whip http://10.83.2.2:8307/whip --ice-server stun:10.83.2.2:3479 --frames 150 \
    --size 320x240 --fps 30 --save-annexb "$WORK/sent-nat.h264" 2>"$WORK/send-nat.err" \
    || { echo "FAIL: send behind the NAT exited $?: $(tail -c 800 "$WORK/send-nat.err")" >&2; exit 1; }
wait "$SERVER_PID" || true
SERVER_PID=""
"$PY" - "$WORK/report-nat.json" <<'EOF' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
lines, nominated = report["offer_candidate_lines"], report.get("nominated") or {}
srflx = [line for line in lines if " typ srflx " in line]
if len(srflx) != 1 or " 10.83.2.1 " not in srflx[0] or "raddr 10.83.1.2" not in srflx[0]:
    print("FAIL: the offer holds no server-reflexive 10.83.2.1 with raddr 10.83.1.2: %s" % lines, file=sys.stderr)
    sys.exit(1)
if nominated.get("host") != "10.83.2.1" or nominated.get("type") == "host":
    print("FAIL: the endpoint nominated %s, not the router's address" % nominated, file=sys.stderr)
    sys.exit(1)
EOF
RESULT=$(cd "$HERE" && "$PY" whip_compare.py "$WORK/report-nat.json" "$WORK/sent-nat.h264" --last-frame-pending) \
    || { echo "FAIL: NAT: frame comparison: $RESULT" >&2; exit 1; }
inbound_dropped=$(turn_lab_nat_dropped)
[ "${inbound_dropped:-0}" -gt 0 ] || { echo "FAIL: no unsolicited datagram toward the private address was dropped" >&2; exit 1; }
echo "whip-turn NAT: $RESULT; $(grep -o 'ICE .*' "$WORK/send-nat.err" | head -1); $inbound_dropped unsolicited datagrams dropped at the NAT"
echo "whip-turn: PASS"
