#!/usr/bin/env bash
# Scenario 7: browsers watch our stream through Janus. rtc-h264 send -> (UDP relay) -> Janus streaming mountpoint
# -> WebRTC -> two headless Chromium viewers, one joining mid-stream.
#
# Network: two network namespaces of our own joined by a veth pair, 10.77.0.1/24 (server: Janus, the relay, the
# sender, the page server) and 10.77.0.2/24 (viewer: Chromium). Janus gathers ICE candidates only on non-loopback
# interfaces, and this kernel has no `dummy` driver, so the veth is what keeps everything off real interfaces.
# Nothing here has a route off the machine; both namespaces are deleted on exit.
#
# Janus 1.1.x (Debian `janus`): a private configuration from Interop/janus-chromium/*.jcfg* loading only the
# streaming plugin and the HTTP transport, `interface` = the veth address. The mountpoint is created through the
# HTTP API: H.264, pt 96, fmtp profile-level-id=42e01f;packetization-mode=1, video port P, rtcpport P+1.
# Sender: `rtc-h264 send --no-rtcp-mux` (Janus never does rtcp-mux on the source side and learns where to send
# PLI/REMB from our Sender Reports on its rtcpport), 640x360, Constrained Baseline (headless Chromium offers no
# High), --bitrate 5M (more than the test pattern fills, so the browsers' first REMB is below the target).
# Viewer: Interop/janus-chromium/viewer.html, plain fetch() against the Janus REST API; it POSTs getStats()
# inbound-rtp to the page server (collector.py). driver.py opens the tabs through Chromium's DevTools HTTP
# endpoint, drives the timeline and checks:
#   - each viewer decodes >= 95 % of the frames sent while it was connected (frames sent: the relay's count of
#     access units, which must equal the sender's own framesSent);
#   - the joining viewer's first frame within 1 s of joining;
#   - after a 4 s loss burst (the relay drops the sender's RTP) the browsers' keyframe requests reach the sender
#     (pliCount rises; every PLI Janus sent was counted) and an IDR answers within 0.5 s; both viewers decode again;
#   - a REMB below the target lowers the target (sender stats targetBitrate).
# Passes: plain RTP; then SRTP into Janus (srtpsuite 80, srtpcrypto = our key) when `rtc-h264 send --help` lists
# --accept-plain-rtcp (Janus sends its feedback as plain RTCP even when the media is SRTP). Without the option the
# SRTP pass is reported as skipped, and fails the scenario only with JANUS_REQUIRE_SRTP=1.
#
# Needs root (network namespaces). Debian packages: janus, chromium, python3, iproute2, curl.
# Environment: JANUS_CHROMIUM_PASSES="plain srtp" (default) selects passes; KEEP=1 keeps the scratch directory;
# JANUS_SENDER_ARGS adds options to both senders; JANUS_SRTP_FORCE=1 runs the SRTP pass even without
# --accept-plain-rtcp (a diagnosis: it shows what fails without it).
source "$(dirname "$0")/lib.sh"
iop_init janus-chromium
iop_require janus:janus chromium:chromium python3:python3 ip:iproute2 curl:curl
[ "$(id -u)" = 0 ] || iop_fail "needs root to create network namespaces (ip netns add): run as root"

HERE="$(cd "$(dirname "$0")" && pwd)/janus-chromium"
SERVER_ADDR=10.77.0.1
VIEWER_ADDR=10.77.0.2
NS_SERVER="rtcj-srv-$$"
NS_VIEWER="rtcj-view-$$"
VETH_SERVER="rjs$$"
VETH_VIEWER="rjv$$"
JANUS_HTTP_PORT=8088
PAGE_PORT=8080
CDP_PORT=9222
JANUS_URL="http://$SERVER_ADDR:$JANUS_HTTP_PORT/janus"
PASSES="${JANUS_CHROMIUM_PASSES:-plain srtp}"
NAMESPACES=()

# Ends every process we started (by PID, as lib.sh does) and any process still inside our namespaces (by PID, from
# `ip netns pids`: Chromium's helpers), then deletes the namespaces; lib.sh's cleanup removes the scratch directory.
jc_cleanup() {
    local status=$? pid pids ns i
    set +e                                   # best effort from here; `(exit "$status")` below must not end the trap
    for pid in "${IOP_PIDS[@]:-}"; do
        [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${IOP_PIDS[@]:-}"; do
        [ -n "$pid" ] || continue
        for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    for ns in "${NAMESPACES[@]:-}"; do
        [ -n "$ns" ] || continue
        for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25; do
            pids=$(ip netns pids "$ns" 2>/dev/null)
            [ -n "$pids" ] || break
            for pid in $pids; do kill -KILL "$pid" 2>/dev/null || true; done
            sleep 0.2
        done
        ip netns del "$ns" 2>/dev/null || true
    done
    # Chromium's profile is the last thing written to; remove it first (retrying while its helpers finish exiting).
    for i in 1 2 3 4 5; do
        [ -n "$IOP_DIR" ] && [ "${KEEP:-0}" != 1 ] && [ -d "$IOP_DIR/chromium-profile" ] || break
        rm -rf "$IOP_DIR/chromium-profile" 2>/dev/null || sleep 0.3
    done
    (exit "$status")
    iop_cleanup
}
trap jc_cleanup EXIT

# Background processes are started as `ip netns exec NS CMD` directly (ip execs CMD, so the PID recorded is CMD's).
in_server() { ip netns exec "$NS_SERVER" "$@"; }
in_viewer() { ip netns exec "$NS_VIEWER" "$@"; }
elapsed() { echo $((SECONDS - START)); }
START=$SECONDS

# --- network: two namespaces and a veth pair, addresses only inside them
ip netns add "$NS_SERVER" || iop_fail "ip netns add failed (root and a kernel with network namespaces needed)"
NAMESPACES+=("$NS_SERVER")
ip netns add "$NS_VIEWER" || iop_fail "ip netns add $NS_VIEWER failed"
NAMESPACES+=("$NS_VIEWER")
ip -n "$NS_SERVER" link add "$VETH_SERVER" type veth peer name "$VETH_VIEWER" netns "$NS_VIEWER" \
    || iop_fail "could not create a veth pair (kernel module veth)"
ip -n "$NS_SERVER" addr add "$SERVER_ADDR/24" dev "$VETH_SERVER"
ip -n "$NS_VIEWER" addr add "$VIEWER_ADDR/24" dev "$VETH_VIEWER"
for spec in "$NS_SERVER:$VETH_SERVER" "$NS_VIEWER:$VETH_VIEWER"; do
    ip -n "${spec%%:*}" link set lo up
    ip -n "${spec%%:*}" link set "${spec#*:}" up
done
# Chromium gathers candidates only on the interface of its default route: give the viewer one, through the veth
# (the server namespace has no route anywhere else, so nothing leaves).
ip -n "$NS_VIEWER" route add default dev "$VETH_VIEWER"
iop_log "namespaces $NS_SERVER ($SERVER_ADDR) and $NS_VIEWER ($VIEWER_ADDR) joined by a veth pair"

# --- Janus: a private configuration, only the streaming plugin and the HTTP transport
JDIR="$IOP_DIR/janus"
mkdir -p "$JDIR/etc" "$JDIR/plugins" "$JDIR/transports" "$JDIR/events" "$JDIR/loggers"
JLIB=""
for candidate in /usr/lib/x86_64-linux-gnu/janus /usr/lib/aarch64-linux-gnu/janus /usr/lib/janus /usr/local/lib/janus /opt/janus/lib/janus; do
    [ -f "$candidate/plugins/libjanus_streaming.so" ] && { JLIB="$candidate"; break; }
done
[ -n "$JLIB" ] || iop_fail "Janus's streaming plugin (libjanus_streaming.so) not found: apt-get install janus"
[ -f "$JLIB/transports/libjanus_http.so" ] || iop_fail "Janus's HTTP transport not found: apt-get install janus"
ln -s "$JLIB/plugins/libjanus_streaming.so" "$JDIR/plugins/"
ln -s "$JLIB/transports/libjanus_http.so" "$JDIR/transports/"
sed -e "s|@DIR@|$JDIR|g" -e "s|@ADDR@|$SERVER_ADDR|g" -e "s|@RTP_RANGE@|20000-20199|" \
    "$HERE/janus.jcfg.in" >"$JDIR/etc/janus.jcfg"
sed -e "s|@HTTP_PORT@|$JANUS_HTTP_PORT|" "$HERE/janus.transport.http.jcfg.in" >"$JDIR/etc/janus.transport.http.jcfg"
cp "$HERE/janus.plugin.streaming.jcfg" "$JDIR/etc/"
iop_bg janus ip netns exec "$NS_SERVER" janus -C "$JDIR/etc/janus.jcfg" -F "$JDIR/etc"
JANUS_PID=$IOP_LAST_PID
waited=0
until in_server curl -sf "$JANUS_URL/info" >"$IOP_DIR/janus-info.json" 2>/dev/null; do
    kill -0 "$JANUS_PID" 2>/dev/null || iop_fail "Janus exited: $(tail -c 600 "$IOP_DIR/janus.out")"
    [ "$waited" -lt 100 ] || iop_fail "Janus's HTTP API did not answer within 10 s: $(tail -c 600 "$IOP_DIR/janus.out")"
    sleep 0.1; waited=$((waited + 1))
done
JANUS_VERSION=$(python3 -c 'import json,sys; print(json.load(sys.stdin).get("version_string","?"))' <"$IOP_DIR/janus-info.json")
plugins=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(",".join(sorted(d.get("plugins",{}))+sorted(d.get("transports",{}))))' <"$IOP_DIR/janus-info.json")
[ "$plugins" = "janus.plugin.streaming,janus.transport.http" ] || iop_fail "Janus loaded more than the streaming plugin and the HTTP transport: $plugins"
iop_log "Janus $JANUS_VERSION up (${plugins}), ICE on $SERVER_ADDR ($(elapsed) s)"

# --- the page server (viewer.html + report collector)
REPORTS="$IOP_DIR/reports.jsonl"
iop_bg collector ip netns exec "$NS_SERVER" python3 "$HERE/collector.py" --listen "$SERVER_ADDR" --port $PAGE_PORT --out "$REPORTS"
waited=0
until in_viewer curl -sf -o /dev/null "http://$SERVER_ADDR:$PAGE_PORT/viewer.html" 2>/dev/null; do
    [ "$waited" -lt 100 ] || iop_fail "the page server did not answer within 10 s: $(tail -c 400 "$IOP_DIR/collector.err")"
    sleep 0.1; waited=$((waited + 1))
done

# --- headless Chromium in the viewer namespace, driven through its DevTools HTTP endpoint (loopback there)
CHROMIUM_VERSION=$(chromium --version 2>/dev/null | grep -o 'Chromium [0-9.]*' || echo "Chromium ?")
iop_bg chromium ip netns exec "$NS_VIEWER" chromium --headless --no-sandbox --user-data-dir="$IOP_DIR/chromium-profile" \
    --autoplay-policy=no-user-gesture-required --use-fake-ui-for-media-stream --use-fake-device-for-media-stream \
    --unsafely-treat-insecure-origin-as-secure="http://$SERVER_ADDR:$PAGE_PORT" \
    --disable-features=WebRtcHideLocalIpsWithMdns --no-first-run --no-default-browser-check \
    --disable-background-networking --disable-component-update --disable-sync --disable-default-apps \
    --disable-background-timer-throttling --disable-renderer-backgrounding --disable-backgrounding-occluded-windows \
    --mute-audio --remote-debugging-port=$CDP_PORT about:blank
CHROMIUM_PID=$IOP_LAST_PID
waited=0
until in_viewer curl -sf -o /dev/null "http://127.0.0.1:$CDP_PORT/json/version" 2>/dev/null; do
    kill -0 "$CHROMIUM_PID" 2>/dev/null || iop_fail "Chromium exited: $(grep -v dbus "$IOP_DIR/chromium.err" | tail -c 600)"
    [ "$waited" -lt 300 ] || iop_fail "Chromium's DevTools endpoint did not answer within 30 s"
    sleep 0.1; waited=$((waited + 1))
done
iop_log "$CHROMIUM_VERSION headless up ($(elapsed) s)"

# --- one pass: relay, sender, driver (run), stop, driver (check)
# - Parameters: $1 label (plain|srtp), $2 mountpoint id, $3 base port (relay B, Janus B+100, sender B+200).
SUMMARY="$IOP_DIR/summary.jsonl"
run_pass() {
    local label="$1" mp="$2" base="$3"
    local relay_port=$base janus_port=$((base + 100)) sender_port=$((base + 200))
    local relay_log="$IOP_DIR/$label-relay.jsonl" stats="$IOP_DIR/$label-stats.jsonl" marks="$IOP_DIR/$label-marks.json"
    local media_args=(--no-srtp) key_args=() relay_args=()
    if [ "$label" = srtp ]; then
        iop_new_key "$IOP_DIR/srtp.key"
        media_args=(--key-file "$IOP_DIR/srtp.key")
        [ "$SRTP_OPTION" = 1 ] && media_args+=(--accept-plain-rtcp)
        key_args=(--key-file "$IOP_DIR/srtp.key")
        relay_args=(--srtp)
    fi
    iop_bg "$label-relay" ip netns exec "$NS_SERVER" python3 "$HERE/relay.py" --listen "$SERVER_ADDR" --port $relay_port \
        --janus "$SERVER_ADDR:$janus_port" --log "$relay_log" "${relay_args[@]}"
    local relay_pid=$IOP_LAST_PID
    local waited=0
    until grep -q '"start"' "$relay_log" 2>/dev/null; do
        kill -0 "$relay_pid" 2>/dev/null || iop_fail "$label: the relay exited: $(tail -c 400 "$IOP_DIR/$label-relay.err")"
        [ "$waited" -lt 50 ] || iop_fail "$label: the relay did not start within 5 s"
        sleep 0.1; waited=$((waited + 1))
    done
    iop_bg "$label-send" ip netns exec "$NS_SERVER" "$RTC" send --to "$SERVER_ADDR:$relay_port" --local-port $sender_port --no-rtcp-mux \
        --size 640x360 --fps 30 --profile baseline --bitrate 5M "${media_args[@]}" --stats "$stats" --quiet \
        ${JANUS_SENDER_ARGS:-}
    local send_pid=$IOP_LAST_PID
    sleep 0.3
    kill -0 "$send_pid" 2>/dev/null || iop_fail "$label: rtc-h264 send exited: $(tail -c 400 "$IOP_DIR/$label-send.err")"
    iop_log "$label: rtc-h264 send -> relay $SERVER_ADDR:$relay_port -> Janus mountpoint $mp ($SERVER_ADDR:$janus_port, rtcpport $((janus_port + 1)))"
    # The driver runs in the background and is waited for, so that SIGTERM reaches the trap at once.
    local rc=0
    ip netns exec "$NS_VIEWER" python3 "$HERE/driver.py" run --label "$label" --janus "$JANUS_URL" --mp "$mp" \
        --video-port $janus_port "${key_args[@]}" --cdp "http://127.0.0.1:$CDP_PORT" \
        --page "http://$SERVER_ADDR:$PAGE_PORT/viewer.html" --reports "$REPORTS" --relay-log "$relay_log" \
        --relay-pid "$relay_pid" --marks "$marks" --viewers "$label-A" "$label-B" &
    local driver_pid=$!
    IOP_PIDS+=("$driver_pid")
    wait "$driver_pid" || rc=$?
    kill -TERM "$send_pid" 2>/dev/null || true
    iop_wait "$send_pid" 10 || true
    kill -TERM "$relay_pid" 2>/dev/null || true
    iop_wait "$relay_pid" 5 || true
    if ! kill -0 "$JANUS_PID" 2>/dev/null; then
        iop_fail "$label: Janus died: $(grep -v -i srtpcrypto "$IOP_DIR/janus.out" | tail -c 600)"
    fi
    [ "$rc" -eq 0 ] || iop_fail "$label: the viewer run failed (see above; Janus said: $(grep -i -E 'error|warn' "$IOP_DIR/janus.out" | grep -v -i -E 'srtpcrypto|STUN|mDNS' | tail -3))"
    python3 "$HERE/driver.py" check --label "$label" --marks "$marks" --reports "$REPORTS" --relay-log "$relay_log" \
        --stats "$stats" --summary "$SUMMARY" || iop_fail "$label: checks failed (see above)"
    iop_log "$label pass done ($(elapsed) s)"
}

srtp_status="not run"
SRTP_OPTION=0
send_help=$("$RTC" send --help 2>&1 || true)    # not `| grep -q`: with pipefail, grep's early exit is a SIGPIPE
grep -q -- '--accept-plain-rtcp' <<<"$send_help" && SRTP_OPTION=1
for pass in $PASSES; do
    case "$pass" in
        plain) run_pass plain 1 40000 ;;
        srtp)
            if [ "$SRTP_OPTION" = 1 ] || [ "${JANUS_SRTP_FORCE:-0}" = 1 ]; then
                [ "$SRTP_OPTION" = 1 ] || iop_log "srtp: JANUS_SRTP_FORCE=1: running without --accept-plain-rtcp (expected to fail)"
                run_pass srtp 2 40010
                srtp_status="passed"
            elif [ "${JANUS_REQUIRE_SRTP:-0}" = 1 ]; then
                iop_fail "srtp: rtc-h264 send has no --accept-plain-rtcp (Janus sends its PLI/REMB as plain RTCP, which an SRTP sender rejects), and JANUS_REQUIRE_SRTP=1"
            else
                srtp_status="SKIPPED (rtc-h264 send has no --accept-plain-rtcp; set JANUS_REQUIRE_SRTP=1 to make this a failure)"
                iop_log "srtp: $srtp_status"
            fi ;;
        *) iop_fail "unknown pass '$pass' in JANUS_CHROMIUM_PASSES (plain, srtp)" ;;
    esac
done

# --- the summary over all passes
iop_log "summary: Janus $JANUS_VERSION, $CHROMIUM_VERSION headless, 640x360 Constrained Baseline (42e01f), $(elapsed) s"
python3 - "$SUMMARY" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])] if sys.argv[1] else []
print(f"{'pass':<6} {'viewer':<8} {'decoded/sent':>13} {'ratio':>7} {'join->1st frame':>16} {'1st PLI after burst':>20} {'PLI->IDR':>9} {'PLI->decoded':>13} {'recovery':>9}  decoder")
for r in rows:
    ms = lambda v: f"{v * 1000:.0f} ms" if v is not None else "-"
    s = lambda v: f"{v:.2f} s" if v is not None else "-"
    print(f"{r['pass']:<6} {r['viewer']:<8} {r['decoded']:>6}/{r['sent']:<6} {r['ratio']:>7.1%} {ms(r['join']):>16} "
          f"{s(r['firstPli']):>20} {ms(r['pliToIdr']):>9} {ms(r.get('pliToDecoded')):>13} {s(r['recovery']):>9}  {r['decoder']}")
EOF
iop_log "srtp pass: $srtp_status"
iop_log "PASS: two Chromium viewers watched rtc-h264 through Janus; keyframe requests and REMB reached the sender"
