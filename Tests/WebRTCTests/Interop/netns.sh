# Sourced by the scripts that run WebRTC peers in a network namespace of their own (run-in-namespace.sh,
# whip-aiortc.sh, whip-turn.sh, whip-janus.sh, Tests/Benchmarks/run-whep.sh, run-turn.sh): browsers, aioice and Janus gather no loopback
# candidates, so each run gets a veth pair with both ends inside a namespace nothing else uses. Run from the package
# root (each script cds there first).

# require_tool COMMAND PACKAGE: exits naming the install step when COMMAND is missing.
require_tool() {
    command -v "$1" >/dev/null || { echo "$1 is missing: apt-get install $2 (Tests/install-deps.sh)" >&2; exit 1; }
}

# require_root SCRIPT: exits unless run as root (a namespace needs it).
require_root() {
    [ "$(id -u)" = 0 ] || { echo "$1: needs root (ip netns add)" >&2; exit 1; }
}

# rtc_binary SCRIPT: sets RTC to $RTC_H264, or else this checkout's debug build; exits if it is not there.
rtc_binary() {
    RTC="${RTC_H264:-$(swift build --show-bin-path)/rtc-h264}"
    [ -x "$RTC" ] || { echo "$1: $RTC is missing: run swift build" >&2; exit 1; }
}

# netns_up NS DEV0 ADDR0 DEV1 ADDR1: creates namespace NS with loopback up and a veth pair DEV0 (ADDR0/24) <->
# DEV1 (ADDR1/24), both ends in NS and up.
netns_up() {
    local ns=$1 dev0=$2 addr0=$3 dev1=$4 addr1=$5
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip -n "$ns" link add "$dev0" type veth peer name "$dev1"
    ip -n "$ns" addr add "$addr0/24" dev "$dev0"
    ip -n "$ns" addr add "$addr1/24" dev "$dev1"
    ip -n "$ns" link set "$dev0" up
    ip -n "$ns" link set "$dev1" up
    segment_like_a_nic "$ns" lo "$dev0" "$dev1"
}

# segment_like_a_nic NS DEV...: each device cuts UDP GSO writes into datagrams as it sends them, as a NIC does
# (`tx-udp-segmentation off`). Our senders hand the kernel runs of equal-sized packets as one write (UDP_SEGMENT); a
# virtual device that passes such a write on whole would show iptables rules further on (random loss, a policer) one
# packet where a router sees several.
segment_like_a_nic() {
    local ns=$1 dev
    shift
    require_tool ethtool ethtool
    for dev in "$@"; do
        ip netns exec "$ns" ethtool -K "$dev" tx-udp-segmentation off >/dev/null \
            || { echo "ethtool could not turn $dev's UDP segmentation offload off in $ns" >&2; exit 1; }
    done
}

# netns_down NS: kills whatever still runs in NS and removes it (the veth pair goes with it); never fails.
netns_down() {
    local pid
    for pid in $(ip netns pids "$1" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns delete "$1" 2>/dev/null || true
}

# aiortc_venv: makes .build/aiortc-venv (aiortc and PyAV) unless it works already; sets AIORTC_PYTHON to its python.
aiortc_venv() {
    local venv=.build/aiortc-venv
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import aiortc, av" 2>/dev/null; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q aiortc || { echo "pip install aiortc failed (Tests/install-deps.sh)" >&2; exit 1; }
    fi
    AIORTC_PYTHON="$PWD/$venv/bin/python"
}

# make_test_certificate DIR IP: a throwaway CA (DIR/ca.pem, 2 days) and a server certificate for IP signed by it
# (DIR/server.pem, DIR/server.key) for the HTTPS endpoints of the WHIP scenarios: `send --whip` sends a token over
# http:// only to loopback, and trusts the CA with --ca-file.
make_test_certificate() {
    local dir=$1 ip=$2
    openssl ecparam -name prime256v1 -genkey -noout -out "$dir/ca.key" 2>/dev/null
    openssl req -x509 -new -key "$dir/ca.key" -sha256 -days 2 -subj "/CN=rtc-h264 interop CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" -out "$dir/ca.pem" 2>/dev/null
    openssl ecparam -name prime256v1 -genkey -noout -out "$dir/server.key" 2>/dev/null
    openssl req -new -key "$dir/server.key" -subj "/CN=$ip" -out "$dir/server.csr" 2>/dev/null
    printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:%s\n' "$ip" >"$dir/server.ext"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -sha256 -days 2 \
        -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null \
        || { echo "FAIL: cannot make the test certificate with openssl" >&2; exit 1; }
}

# turn_lab_up WORK: the TURN scenarios' three namespaces (whip-turn.sh, Tests/Benchmarks/run-turn.sh), the publisher and
# the endpoint on two subnets joined by a router that forwards TCP and drops every forwarded UDP datagram:
#
#   publisher 10.83.1.2 --- 10.83.1.1 [router: coturn listens here, relays from 10.83.2.1] 10.83.2.1 --- 10.83.2.2 endpoint
#
# coturn (long-term credentials, realm rtc-h264.test) on UDP and TCP 3478 and TLS 5349, its certificate for 10.83.1.1
# from a CA in WORK/tls/ca.pem. Sets PUB, RTR, END (the namespaces), USER_NAME, PASSWORD (also in WORK/turn.password),
# TURN_PID; coturn logs to WORK/turnserver.log. turn_lab_down undoes it.
turn_lab_up() {
    local work=$1 ns pair
    PUB="rtch264-turn-pub-$$"
    RTR="rtch264-turn-rtr-$$"
    END="rtch264-turn-end-$$"
    for ns in "$PUB" "$RTR" "$END"; do
        ip netns add "$ns"
        ip -n "$ns" link set lo up
    done
    ip link add tpub0 netns "$PUB" type veth peer name tpub1 netns "$RTR"
    ip link add tend0 netns "$END" type veth peer name tend1 netns "$RTR"
    ip -n "$PUB" addr add 10.83.1.2/24 dev tpub0
    ip -n "$RTR" addr add 10.83.1.1/24 dev tpub1
    ip -n "$RTR" addr add 10.83.2.1/24 dev tend1
    ip -n "$END" addr add 10.83.2.2/24 dev tend0
    for pair in "$PUB tpub0" "$RTR tpub1" "$RTR tend1" "$END tend0"; do
        set -- $pair
        ip -n "$1" link set "$2" up
    done
    segment_like_a_nic "$PUB" lo tpub0
    segment_like_a_nic "$END" lo tend0
    ip -n "$PUB" route add default via 10.83.1.1
    ip -n "$END" route add default via 10.83.2.1
    ip netns exec "$RTR" sysctl -qw net.ipv4.ip_forward=1
    # The firewall: no UDP between the subnets, only to and from the router (the TURN server) itself.
    ip netns exec "$RTR" iptables -A FORWARD -p udp -j DROP

    USER_NAME="robot"
    PASSWORD="turn-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
    printf '%s\n' "$PASSWORD" >"$work/turn.password"
    chmod 600 "$work/turn.password"
    mkdir -p "$work/tls"
    make_test_certificate "$work/tls" 10.83.1.1
    ip netns exec "$RTR" turnserver -n --listening-ip=10.83.1.1 --listening-port=3478 --tls-listening-port=5349 \
        --relay-ip=10.83.2.1 --cert="$work/tls/server.pem" --pkey="$work/tls/server.key" \
        --min-port=50000 --max-port=50099 --lt-cred-mech --user="$USER_NAME:$PASSWORD" --realm=rtc-h264.test \
        --no-dtls --no-cli --no-tcp-relay --log-file=stdout --simple-log --verbose \
        --userdb="$work/turndb.sqlite" --pidfile="$work/turn.pid" >"$work/turnserver.log" 2>&1 &
    TURN_PID=$!
    disown "$TURN_PID"  # killed at the end: no job notice
}

# turn_lab_dropped_udp: how many UDP datagrams the router's filter of turn_lab_up has dropped so far.
turn_lab_dropped_udp() {
    ip netns exec "$RTR" iptables -L FORWARD -v -x -n | awk '$3 == "DROP" && ($4 == "udp" || $4 == "17") { print $1 }'
}

# turn_lab_coturn_logged COUNT: coturn's own account (--verbose, WORK/turnserver.log) of the relayed runs so far: each
# bound one channel and was released at the end (a Refresh with lifetime 0, sent before the socket or connection
# closed). Fails naming what was logged how often otherwise.
turn_lab_coturn_logged() {
    local count=$1 what
    sleep 1
    for what in "CHANNEL_BIND processed, success" "refreshed, realm=<rtc-h264.test>, username=<$USER_NAME>, lifetime=0"; do
        [ "$(grep -c "$what" "$WORK/turnserver.log")" = "$count" ] \
            || { echo "FAIL: coturn logged '$what' $(grep -c "$what" "$WORK/turnserver.log") times, not $count (one per relayed run)" >&2; exit 1; }
    done
}

# turn_lab_nat [TCP_PORT]: turns turn_lab_up's router into a NAT for the publisher's subnet: UDP forwarded again, the
# publisher's side masqueraded (iptables MASQUERADE), every new flow toward it dropped (but TCP to TCP_PORT, a port
# forward, when given), and a STUN-only coturn outside it on 10.83.2.2:3479 (one on the router would see the private
# address). Sets STUN_PID (turn_lab_down stops it); the counter of dropped unsolicited flows: turn_lab_nat_dropped.
turn_lab_nat() {
    ip netns exec "$RTR" iptables -D FORWARD -p udp -j DROP
    ip netns exec "$RTR" iptables -t nat -A POSTROUTING -o tend1 -j MASQUERADE
    [ -n "${1:-}" ] && ip netns exec "$RTR" iptables -A FORWARD -i tend1 -o tpub1 -p tcp --dport "$1" -j ACCEPT
    ip netns exec "$RTR" iptables -A FORWARD -i tend1 -o tpub1 -m conntrack --ctstate NEW -j DROP
    ip netns exec "$END" turnserver -n --stun-only --listening-ip=10.83.2.2 --listening-port=3479 --no-tls --no-dtls \
        --no-cli --log-file=stdout --pidfile="$WORK/stun.pid" >"$WORK/stunserver.log" 2>&1 &
    STUN_PID=$!
    disown "$STUN_PID"
}

# turn_lab_nat_dropped: how many unsolicited flows toward the publisher's subnet the NAT of turn_lab_nat dropped.
turn_lab_nat_dropped() {
    ip netns exec "$RTR" iptables -L FORWARD -v -x -n | awk '$3 == "DROP" && /ctstate NEW/ { print $1 }'
}

# turn_lab_down: stops coturn and removes the namespaces of turn_lab_up; never fails.
turn_lab_down() {
    [ -n "${TURN_PID:-}" ] && kill -9 "$TURN_PID" 2>/dev/null || true
    [ -n "${STUN_PID:-}" ] && kill -9 "$STUN_PID" 2>/dev/null || true
    for ns in "${PUB:-}" "${END:-}" "${RTR:-}"; do [ -n "$ns" ] && netns_down "$ns"; done
    return 0
}

# aiortc_endpoint_start PORT REPORT [args...]: aiortc_whip_server.py (PY and WORK set) in namespace ENDPOINT_NS (END by
# default) on ENDPOINT_ADDR:PORT (10.83.2.2, turn_lab_up's endpoint, by default), waited for until it listens; sets
# SERVER_PID.
aiortc_endpoint_start() {
    local port=$1 report=$2
    shift 2
    ip netns exec "${ENDPOINT_NS:-$END}" "$PY" Tests/WebRTCTests/Interop/aiortc_whip_server.py \
        --listen "${ENDPOINT_ADDR:-10.83.2.2}" --port "$port" \
        --report "$report" --timeout 60 "$@" >"$WORK/server-$port.out" 2>"$WORK/server-$port.err" &
    SERVER_PID=$!
    for _ in $(seq 100); do
        grep -q listening "$WORK/server-$port.out" 2>/dev/null && return 0
        kill -0 "$SERVER_PID" 2>/dev/null || { echo "FAIL: the endpoint exited: $(tail -c 600 "$WORK/server-$port.err")" >&2; exit 1; }
        sleep 0.1
    done
    echo "FAIL: the endpoint did not listen within 10 s" >&2
    exit 1
}

# impaired_path_up SRV BRG VWR PREFIX DELAY_MS LOSS_FRACTION LOG: namespaces SRV (10.79.0.1) and VWR (10.79.0.2), each
# a default route to the other, joined through BRG by Tests/Benchmarks/latency/impair_bridge.py (a user-space bridge:
# DELAY_MS each way, LOSS_FRACTION of the UDP datagrams lost each way; this kernel has no netem). Interfaces are
# named PREFIX{srv,vwr}{0,1}. Sets BRIDGE_PID; the caller kills it and takes the namespaces down. Exits unless a TCP
# handshake crosses the path.
impaired_path_up() {
    local srv=$1 brg=$2 vwr=$3 prefix=$4 delay=$5 loss=$6 log=$7 ns pair
    for ns in "$srv" "$brg" "$vwr"; do
        ip netns add "$ns"
        ip -n "$ns" link set lo up
    done
    ip link add "${prefix}srv0" netns "$srv" type veth peer name "${prefix}srv1" netns "$brg"
    ip link add "${prefix}vwr0" netns "$vwr" type veth peer name "${prefix}vwr1" netns "$brg"
    ip -n "$srv" addr add 10.79.0.1/24 dev "${prefix}srv0"
    ip -n "$vwr" addr add 10.79.0.2/24 dev "${prefix}vwr0"
    for pair in "$srv ${prefix}srv0" "$brg ${prefix}srv1" "$brg ${prefix}vwr1" "$vwr ${prefix}vwr0"; do
        set -- $pair
        ip -n "$1" link set "$2" up
        # Whole, checksummed frames only: what the bridge reads it writes as it is.
        ip netns exec "$1" ethtool -K "$2" tx off tso off gso off gro off >/dev/null \
            || { echo "ethtool could not turn $2's offloads off: the bridge would see partial checksums" >&2; exit 1; }
    done
    ip -n "$srv" route add default via 10.79.0.2 dev "${prefix}srv0"
    ip -n "$vwr" route add default via 10.79.0.1 dev "${prefix}vwr0"
    ip netns exec "$brg" python3 Tests/Benchmarks/latency/impair_bridge.py "${prefix}srv1" "${prefix}vwr1" \
        --delay-ms "$delay" --loss "$loss" >"$log" 2>&1 &
    BRIDGE_PID=$!
    for _ in $(seq 50); do grep -q bridging "$log" 2>/dev/null && break; sleep 0.1; done
    local handshake
    handshake=$(ip netns exec "$vwr" python3 -c 'import socket; socket.create_connection(("10.79.0.1", 9), timeout=3)' 2>&1 || true)
    [[ "$handshake" == *refused* ]] || { echo "the impaired path does not carry a TCP handshake: $handshake" >&2; exit 1; }
}
