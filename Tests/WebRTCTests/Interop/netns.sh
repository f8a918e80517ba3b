# Sourced by the scripts that run WebRTC peers in a network namespace of their own (run-in-namespace.sh,
# whip-aiortc.sh, whip-turn.sh, whip-janus.sh, Tests/Benchmarks/run-whep.sh): browsers, aioice and Janus gather no loopback
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
