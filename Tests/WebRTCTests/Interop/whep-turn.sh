#!/usr/bin/env bash
# `rtc-h264 serve --whep` reached by a viewer that cannot reach it directly, through Debian's coturn: the server in the
# publisher's namespace of turn_lab_up (netns.sh), aiortc as the WHEP viewer (serve_aiortc_viewer.py) on the other
# subnet, the router forwarding TCP (the WHEP HTTP exchange) and dropping every forwarded UDP datagram:
#
#   serve 10.83.1.2 --- 10.83.1.1 [router: coturn listens here, relays from 10.83.2.1] 10.83.2.1 --- 10.83.2.2 viewer
#
#   1. --ice-server turn:10.83.1.1 (UDP): the answer carries the viewer's relayed candidate (typ relay) beside the
#      host one, the server's full agent selects the relayed pair (its statistics say relay/udp), every decoded
#      picture matches the server's bitstream (MD5, in order), DELETE ends the session; coturn logs one channel bound
#      and the allocation released; the direct checks were dropped at the router; the credential never printed.
#   2. no UDP leaves the server at all (iptables OUTPUT in its namespace): turn:10.83.1.1?transport=tcp, relay/tcp,
#      frames as in 1.
#   3. NAT: UDP forwarded again, but the router masquerades the server and drops every new flow toward it except
#      the WHEP port (a port forward for HTTP only); with stun:10.83.2.2:3479 (a STUN-only coturn outside) the answer
#      holds the server-reflexive candidate (the router's address) and the server's checks open the NAT for the
#      viewer's: frames as in 1.
#
# Usage: Tests/WebRTCTests/Interop/whep-turn.sh   (as root; after `swift build`; RTC_H264 = the binary)
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=Tests/WebRTCTests/Interop
source "$HERE/netns.sh"
rtc_binary whep-turn
require_tool ip iproute2
require_tool iptables iptables
require_tool turnserver coturn
require_root whep-turn

aiortc_venv
PY="$AIORTC_PYTHON"

WORK=$(mktemp -d /tmp/whep-turn.XXXXXX)
cleanup() {
    local status=$?
    turn_lab_down
    [ "${KEEP:-0}" = 1 ] && echo "whep-turn: kept $WORK" >&2 || rm -rf "$WORK"
    exit $status
}
trap cleanup EXIT
turn_lab_up "$WORK"

# watch NAME PORT CANDIDATE PROTOCOL [serve args...]: serve in the server's namespace, aiortc watching from the
# viewer's; the answer's CANDIDATE type and the selected pair's (PROTOCOL, or "" for none) checked.
watch() {
    local name=$1 port=$2 candidate=$3 protocol=$4
    shift 4
    local expect=(--expect-candidate "$candidate")
    [ -n "$protocol" ] && expect+=(--expect-relay-protocol "$protocol")
    ip netns exec "$END" "$PY" "$HERE/serve_aiortc_viewer.py" --rtc-h264 "$RTC" --host 10.83.1.2 --port "$port" \
        --serve-prefix "ip netns exec $PUB" --serve-args "$*" "${expect[@]}" --secret-file "$WORK/turn.password" \
        --min-frames 90 --timeout 30 >"$WORK/$name.out" 2>"$WORK/$name.err" \
        || { echo "FAIL: whep-turn $name: $(tail -c 1500 "$WORK/$name.err")" >&2; exit 1; }
    echo "whep-turn $name: $(tail -1 "$WORK/$name.out")"
}

CREDENTIALS="--ice-username $USER_NAME --ice-credential-file $WORK/turn.password"

# 1. TURN over UDP.
watch udp 8401 relay udp --ice-server turn:10.83.1.1 $CREDENTIALS
turn_lab_coturn_logged 1
[ "$(turn_lab_dropped_udp)" -gt 0 ] || { echo "FAIL: no direct UDP datagram reached the router's filter: nothing proves the direct pair was tried" >&2; exit 1; }
echo "whep-turn: $(turn_lab_dropped_udp) direct UDP datagrams dropped at the router"

# 2. No UDP out of the server's namespace: TURN over TCP.
ip netns exec "$PUB" iptables -A OUTPUT -o tpub0 -p udp -j DROP
watch tcp 8402 relay tcp --ice-server "turn:10.83.1.1?transport=tcp" $CREDENTIALS
turn_lab_coturn_logged 2
ip netns exec "$PUB" iptables -D OUTPUT -o tpub0 -p udp -j DROP

# 3. Behind a NAT with only the WHEP port forwarded: STUN.
turn_lab_nat 8403
watch nat 8403 srflx "" --ice-server stun:10.83.2.2:3479
inbound_dropped=$(turn_lab_nat_dropped)
[ "${inbound_dropped:-0}" -gt 0 ] || { echo "FAIL: no unsolicited datagram toward the server's private address was dropped" >&2; exit 1; }
echo "whep-turn nat: $inbound_dropped unsolicited datagrams dropped at the NAT"
echo "whep-turn: PASS"
