#!/usr/bin/env bash
# `rtc-h264 send --whip` publishes to Janus 1.1 (Debian `janus`, VideoRoom plugin) through Debian's
# `simple-whip-server` (Meetecho's WHIP front end for Janus); an aiortc subscriber and headless Chromium watch the room
# through Janus's HTTP API: the frames aiortc decodes are MD5-compared with a decode of the bitstream we sent
# (--save-annexb), Chromium's getStats() counts what it decoded.
#
# Network: one namespace of our own with a veth pair, 10.82.0.1 <-> 10.82.0.2 (Janus gathers no loopback candidates;
# this kernel has no dummy interfaces); Janus's ICE on 10.82.0.1. Removed on exit, success or not.
#
#   1. POST /whip/create makes endpoint "rtch264" (room 1234, a bearer token); `send --whip` publishes 450 frames of
#      640x360 Constrained Baseline; the subscriber joins while it runs. Passes when the subscriber decodes at least
#      99 % of the frames sent from the first one it decoded on, each bit-exact and in order, and `send` exits 0 (the
#      DELETE answered 200). Chromium (chromium_videoroom_viewer.py) decodes at least 99 % of the frames it received,
#      at least 150, with no packet lost. Janus's REMB (the room's 800 kbit/s) caps the sender's 1.5 Mbit/s target.
#   2. A wrong token: simple-whip-server answers 403; `send` fails naming it, the token never printed.
#   3. An endpoint's certificate from an unknown CA: a clear certificate error, nothing published.
#   4. Simulcast: `send --whip --simulcast 3` publishes 1280x720, 640x360 and 320x180 (RIDs f, h, q) to room 1235
#      (REMB 4 Mbit/s); three aiortc subscribers ask Janus for substream 2, substream 0, and 2 then 0 after 5 s. Passes
#      when the first ends on 1280x720 and the second on 320x180 (each at least 150 frames of that size, with Janus's
#      substream event), and the third decodes 1280x720 then 320x180, playing on after the switch; headless Chromium
#      on substream 1 decodes at least 150 frames, ending at 640x360, and 99 % of the frames it received.
#
# simple-whip-server is unpacked, not installed (fetch-simple-whip-server.sh says why) into .build/simple-whip-server.
# Usage: Tests/WebRTCTests/Interop/whip-janus.sh   (as root; after `swift build`; RTC_H264 = the binary)
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=Tests/WebRTCTests/Interop
source "$HERE/netns.sh"
rtc_binary whip-janus
for tool in janus:janus node:nodejs ip:iproute2 curl:curl chromium:chromium; do
    require_tool "${tool%%:*}" "${tool#*:}"
done
require_root whip-janus
JLIB=""
for candidate in /usr/lib/x86_64-linux-gnu/janus /usr/lib/aarch64-linux-gnu/janus /usr/lib/janus; do
    [ -f "$candidate/plugins/libjanus_videoroom.so" ] && { JLIB="$candidate"; break; }
done
[ -n "$JLIB" ] || { echo "Janus's VideoRoom plugin is missing: apt-get install janus" >&2; exit 1; }

SWS="$PWD/.build/simple-whip-server"
bash "$HERE/janus-whip/fetch-simple-whip-server.sh" "$SWS" 2> >(grep -v "unsandboxed" >&2)
aiortc_venv
PY="$AIORTC_PYTHON"

ADDR=10.82.0.1
WHIP_PORT=7443  # simple-whip-server over HTTPS (its config names the certificate and key made below)
HTTP_PORT=8088
WORK=$(mktemp -d /tmp/whip-janus.XXXXXX)
NS="rtch264-wjanus-$$"
PIDS=()
cleanup() {
    local status=$?
    for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done
    sleep 0.3
    netns_down "$NS"
    if [ "$status" != 0 ]; then
        for log in janus.out sws.out sws.err subscriber.err chromium.out chromium.err sc-chromium.out sc-chromium.err send.err; do
            [ -f "$WORK/$log" ] && { echo "--- $log (tail)" >&2; tail -n 15 "$WORK/$log" >&2; }
        done
    fi
    [ "${KEEP:-0}" = 1 ] && echo "whip-janus: kept $WORK" >&2 || rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT
in_ns() { ip netns exec "$NS" "$@"; }

netns_up "$NS" wjan0 "$ADDR" wjan1 10.82.0.2
# Chromium gathers candidates only on the interface of its default route: one through the veth (nothing leaves the
# namespace: both ends are in it).
ip -n "$NS" route add default dev wjan1

# Janus: a private configuration with the VideoRoom plugin, the WebSocket and HTTP transports only.
JDIR="$WORK/janus"
mkdir -p "$JDIR/etc" "$JDIR/plugins" "$JDIR/transports" "$JDIR/events" "$JDIR/loggers"
ln -s "$JLIB/plugins/libjanus_videoroom.so" "$JDIR/plugins/"
ln -s "$JLIB/transports/libjanus_websockets.so" "$JDIR/transports/"
ln -s "$JLIB/transports/libjanus_http.so" "$JDIR/transports/"
sed -e "s|@DIR@|$JDIR|g" -e "s|@ADDR@|$ADDR|g" "$HERE/janus-whip/janus.jcfg.in" >"$JDIR/etc/janus.jcfg"
sed -e "s|@HTTP_PORT@|$HTTP_PORT|" "$HERE/janus-whip/janus.transport.http.jcfg.in" >"$JDIR/etc/janus.transport.http.jcfg"
cp "$HERE/janus-whip/janus.transport.websockets.jcfg" "$HERE/janus-whip/janus.plugin.videoroom.jcfg" "$JDIR/etc/"
in_ns janus -C "$JDIR/etc/janus.jcfg" -F "$JDIR/etc" >"$WORK/janus.out" 2>&1 &
PIDS+=($!)
for i in $(seq 100); do
    in_ns curl -sf "http://$ADDR:$HTTP_PORT/janus/info" >"$WORK/janus-info.json" 2>/dev/null && break
    [ "$i" = 100 ] && { echo "FAIL: Janus's HTTP API did not answer within 10 s" >&2; exit 1; }
    sleep 0.1
done
JANUS_VERSION=$(python3 -c 'import json,sys; print(json.load(sys.stdin).get("version_string","?"))' <"$WORK/janus-info.json")

# simple-whip-server, configured for this Janus.
mkdir -p "$WORK/sws/src"
cp "$SWS/usr/share/simple-whip-server/src/server.js" "$SWS/usr/share/simple-whip-server/src/whip-janus.js" "$WORK/sws/src/"
# HTTPS with a CA made here: `send` trusts it with --ca-file (and sends its token over http:// only to loopback).
make_test_certificate "$WORK" "$ADDR"
sed -e "s|@WHIP_PORT@|$WHIP_PORT|" -e "s|@CERT@|$WORK/server.pem|" -e "s|@KEY@|$WORK/server.key|" \
    "$HERE/janus-whip/config.js.in" >"$WORK/sws/src/config.js"
(cd "$WORK/sws" && exec ip netns exec "$NS" env \
    NODE_PATH="$SWS/usr/share/nodejs:$SWS/usr/lib/nodejs:$SWS/usr/lib/x86_64-linux-gnu/nodejs" \
    DEBUG="whip:error,whip:warn,whip:info" node src/server.js >"$WORK/sws.out" 2>"$WORK/sws.err") &
PIDS+=($!)
for i in $(seq 100); do
    in_ns curl -sf --cacert "$WORK/ca.pem" "https://$ADDR:$WHIP_PORT/whip/endpoints" >/dev/null 2>&1 && break
    [ "$i" = 100 ] && { echo "FAIL: simple-whip-server did not answer within 10 s" >&2; exit 1; }
    sleep 0.1
done
TOKEN="whip-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
printf '%s\n' "$TOKEN" >"$WORK/token"
printf '%s\n' "wrong-$TOKEN" >"$WORK/wrong-token"
in_ns curl -sf --cacert "$WORK/ca.pem" -X POST -H "Content-Type: application/json" \
    -d "{\"id\":\"rtch264\",\"room\":1234,\"token\":\"$TOKEN\",\"label\":\"rtc-h264\"}" \
    "https://$ADDR:$WHIP_PORT/whip/create" >/dev/null || { echo "FAIL: could not create the WHIP endpoint" >&2; exit 1; }

# 1. Publish, and watch through Janus.
(cd "$HERE" && exec ip netns exec "$NS" "$PY" janus_videoroom_subscriber.py --janus "http://$ADDR:$HTTP_PORT/janus" \
    --room 1234 --report "$WORK/subscriber.json" --timeout 60 >"$WORK/subscriber.out" 2>"$WORK/subscriber.err") &
SUBSCRIBER=$!
PIDS+=($SUBSCRIBER)
(cd "$HERE" && exec ip netns exec "$NS" python3 chromium_videoroom_viewer.py --janus "http://$ADDR:$HTTP_PORT/janus" \
    --room 1234 --timeout 60 >"$WORK/chromium.out" 2>"$WORK/chromium.err") &
VIEWER=$!
PIDS+=($VIEWER)
# Publish once Chromium has loaded its page (it then polls the room every 200 ms): a browser slow to start on a loaded
# CI machine joined 5-10 s into the stream and saw 133-222 of its frames.
for i in $(seq 300); do
    grep -q "page served" "$WORK/chromium.err" 2>/dev/null && break
    [ "$i" = 300 ] && { echo "FAIL: Chromium did not load its page within 30 s: $(tail -c 800 "$WORK/chromium.err")" >&2; exit 1; }
    sleep 0.1
done
in_ns "$RTC" send --whip "https://$ADDR:$WHIP_PORT/whip/endpoint/rtch264" --ca-file "$WORK/ca.pem" --token-file "$WORK/token" --frames 450 \
    --size 640x360 --fps 30 --profile baseline --save-annexb "$WORK/sent.h264" --stats "$WORK/stats.jsonl" 2>"$WORK/send.err" \
    || { echo "FAIL: rtc-h264 send --whip to Janus exited $?: $(tail -c 800 "$WORK/send.err")" >&2; exit 1; }
wait "$SUBSCRIBER" || { echo "FAIL: the subscriber failed: $(tail -c 800 "$WORK/subscriber.err")" >&2; exit 1; }
if grep -q "$TOKEN" "$WORK/send.err"; then echo "FAIL: the token was printed" >&2; exit 1; fi
# Janus's REMB (the room's 800 kbit/s) reached the sender over SRTCP and capped its 1.5 Mbit/s target.
TARGET=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["targetBitrate"])' "$WORK/stats.jsonl")
[ "$TARGET" -le 800000 ] || { echo "FAIL: the target is $TARGET bit/s: Janus's 800 kbit/s REMB did not reach the sender" >&2; exit 1; }
RESULT=$(cd "$HERE" && "$PY" whip_compare.py "$WORK/subscriber.json" "$WORK/sent.h264" --joined --last-frame-pending) \
    || { echo "FAIL: frame comparison: $RESULT" >&2; exit 1; }
echo "whip-janus ($JANUS_VERSION, simple-whip-server): $RESULT; target $TARGET bit/s after Janus's REMB; $(grep -o 'ICE .*' "$WORK/send.err" | head -1)"
wait "$VIEWER" || { echo "FAIL: the Chromium viewer failed: $(tail -c 800 "$WORK/chromium.err")" >&2; exit 1; }
# Chromium: at least 99 % of the frames it received decoded, no packet lost, and at least 150 of the 450 sent
# (it joins a few seconds into the 15 s stream: 5.3 s in one loaded CI run, 142 frames of a 10 s stream).
python3 - "$WORK/chromium.out" <<'EOF' || exit 1
import json, sys
lines = [line for line in open(sys.argv[1]) if line.strip()]
report = json.loads(lines[-1]) if lines else {"error": "no report"}
problems = []
if "error" in report:
    problems.append(report["error"])
else:
    if report["frames"] < 150:
        problems.append("Chromium decoded only %d frames" % report["frames"])
    if report["frames"] < 0.99 * report.get("received", 0):
        problems.append("Chromium decoded %d of %d frames received" % (report["frames"], report["received"]))
    if report.get("packetsLost", 0) > 0:
        problems.append("Chromium lost %d packets" % report["packetsLost"])
    if not report.get("codec", "").startswith("video/H264"):
        problems.append("codec %s" % report.get("codec"))
if problems:
    print("FAIL: Chromium: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
print("whip-janus Chromium: %d frames decoded of %d received, %dx%d, first frame %s ms after its answer, %s, %s"
      % (report["frames"], report.get("received", 0), report.get("width", 0), report.get("height", 0),
         report.get("firstFrameMs"), report.get("codec", "?"), report.get("srtp", "?"))
      + ("" if report.get("destroyed") else "; leaving the room failed: %s" % report.get("destroyError")))
EOF

# 2. A wrong token: 403 named, the token not printed.
if in_ns "$RTC" send --whip "https://$ADDR:$WHIP_PORT/whip/endpoint/rtch264" --ca-file "$WORK/ca.pem" --token-file "$WORK/wrong-token" \
    --frames 30 --size 320x240 --quiet 2>"$WORK/send-403.err"; then
    echo "FAIL: send --whip with a wrong token succeeded" >&2
    exit 1
fi
grep -q "HTTP 403" "$WORK/send-403.err" || { echo "FAIL: the 403 is not named: $(cat "$WORK/send-403.err")" >&2; exit 1; }
if grep -q "$TOKEN" "$WORK/send-403.err"; then echo "FAIL: the token was printed" >&2; exit 1; fi
echo "whip-janus wrong token: $(head -c 300 "$WORK/send-403.err" | tr '\n' ' ')"

# 3. Without the test CA the endpoint's certificate is not trusted: a clear certificate error before anything is
#    published (the POST never leaves the TLS handshake, so Janus sees no publisher).
if in_ns "$RTC" send --whip "https://$ADDR:$WHIP_PORT/whip/endpoint/rtch264" --token-file "$WORK/token" \
    --frames 30 --size 320x240 --quiet --save-annexb "$WORK/untrusted.h264" 2>"$WORK/send-untrusted.err"; then
    echo "FAIL: send --whip trusted a certificate from an unknown CA" >&2
    exit 1
fi
grep -qi "certificate" "$WORK/send-untrusted.err" \
    || { echo "FAIL: the certificate error is not named: $(cat "$WORK/send-untrusted.err")" >&2; exit 1; }
if [ -s "$WORK/untrusted.h264" ]; then echo "FAIL: frames were encoded for an endpoint that was never reached" >&2; exit 1; fi
if grep -q "$TOKEN" "$WORK/send-untrusted.err"; then echo "FAIL: the token was printed" >&2; exit 1; fi
echo "whip-janus unknown CA: $(head -c 300 "$WORK/send-untrusted.err" | tr '\n' ' ')"
# 4. Simulcast: three layers, subscribers on substreams 2 and 0, and one switching from 2 to 0.
in_ns curl -sf --cacert "$WORK/ca.pem" -X POST -H "Content-Type: application/json" \
    -d "{\"id\":\"rtch264sc\",\"room\":1235,\"token\":\"$TOKEN\",\"label\":\"rtc-h264 simulcast\"}" \
    "https://$ADDR:$WHIP_PORT/whip/create" >/dev/null || { echo "FAIL: could not create the simulcast endpoint" >&2; exit 1; }
SUBSCRIBERS=()
for spec in "high --substream 2" "low --substream 0" "switch --substream 2 --switch-to 0 --switch-after 5"; do
    name=${spec%% *}
    # shellcheck disable=SC2086
    (cd "$HERE" && exec ip netns exec "$NS" "$PY" janus_videoroom_subscriber.py --janus "http://$ADDR:$HTTP_PORT/janus" \
        --room 1235 --report "$WORK/sc-$name.json" --timeout 60 ${spec#* } >"$WORK/sc-$name.out" 2>"$WORK/sc-$name.err") &
    SUBSCRIBERS+=($!)
    PIDS+=($!)
done
(cd "$HERE" && exec ip netns exec "$NS" python3 chromium_videoroom_viewer.py --janus "http://$ADDR:$HTTP_PORT/janus" \
    --room 1235 --substream 1 --timeout 60 >"$WORK/sc-chromium.out" 2>"$WORK/sc-chromium.err") &
SC_VIEWER=$!
PIDS+=($SC_VIEWER)
for i in $(seq 300); do
    grep -q "page served" "$WORK/sc-chromium.err" 2>/dev/null && break
    [ "$i" = 300 ] && { echo "FAIL: Chromium did not load its page within 30 s" >&2; exit 1; }
    sleep 0.1
done
in_ns "$RTC" send --whip "https://$ADDR:$WHIP_PORT/whip/endpoint/rtch264sc" --ca-file "$WORK/ca.pem" --token-file "$WORK/token" \
    --simulcast 3 --frames 450 --size 1280x720 --fps 30 --bitrate 3.2M --profile baseline --stats "$WORK/sc-stats.jsonl" \
    2>"$WORK/sc-send.err" \
    || { echo "FAIL: rtc-h264 send --whip --simulcast exited $?: $(tail -c 800 "$WORK/sc-send.err")" >&2; exit 1; }
for pid in "${SUBSCRIBERS[@]}"; do
    wait "$pid" || { echo "FAIL: a simulcast subscriber failed: $(tail -c 800 "$WORK"/sc-*.err)" >&2; exit 1; }
done
if grep -q "$TOKEN" "$WORK/sc-send.err"; then echo "FAIL: the token was printed" >&2; exit 1; fi
if grep -q "takes no simulcast" "$WORK/sc-send.err"; then echo "FAIL: Janus's answer took no simulcast" >&2; exit 1; fi
wait "$SC_VIEWER" || { echo "FAIL: the simulcast Chromium viewer failed: $(tail -c 800 "$WORK/sc-chromium.err")" >&2; exit 1; }
python3 - "$WORK" <<'EOF' || exit 1
import json, os, sys
work = sys.argv[1]
reports = {name: json.load(open(os.path.join(work, "sc-%s.json" % name))) for name in ("high", "low", "switch")}
problems = []
lines = [line for line in open(os.path.join(work, "sc-chromium.out")) if line.strip()]
chromium = json.loads(lines[-1]) if lines else {"error": "no report"}
if "error" in chromium:
    problems.append("Chromium: %s" % chromium["error"])
elif (chromium.get("width"), chromium.get("height")) != (640, 360) or chromium.get("frames", 0) < 150:
    problems.append("Chromium on substream 1: %s frames, ends %sx%s (sizes %s), expected at least 150 and 640x360"
                    % (chromium.get("frames"), chromium.get("width"), chromium.get("height"), chromium.get("sizes")))
elif chromium.get("frames", 0) < 0.99 * chromium.get("received", 0):
    problems.append("Chromium decoded %d of %d frames received" % (chromium["frames"], chromium["received"]))
def last_run(report):
    return report["sizes"][-1] if report["sizes"] else [0, 0, 0]
for name, size, substream in (("high", [1280, 720], 2), ("low", [320, 180], 0)):
    run = last_run(reports[name])
    if run[:2] != size or run[2] < 150:
        problems.append("%s: ends on %s (%d frames), expected at least 150 of %dx%d; sizes %s"
                        % (name, run[:2], run[2], size[0], size[1], reports[name]["sizes"]))
    if substream not in reports[name]["substreams"]:
        problems.append("%s: no substream %d event from Janus (%s)" % (name, substream, reports[name]["substreams"]))
switch = reports["switch"]
sizes = [run[:2] for run in switch["sizes"]]
if [1280, 720] not in sizes or sizes[-1] != [320, 180] or sizes.index([1280, 720]) > len(sizes) - 2:
    problems.append("switch: sizes %s, expected 1280x720 then 320x180" % switch["sizes"])
elif last_run(switch)[2] < 60:
    problems.append("switch: only %d frames after the switch to 320x180" % last_run(switch)[2])
if problems:
    print("FAIL: simulcast: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
print("whip-janus simulcast: aiortc substream 2 -> %s, substream 0 -> %s, switching 2 -> 0 -> %s (substream events %s); "
      "Chromium substream 1 -> %d of %d frames decoded, sizes %s"
      % (reports["high"]["sizes"], reports["low"]["sizes"], switch["sizes"], switch["substreams"],
         chromium["frames"], chromium.get("received", 0), chromium.get("sizes")))
EOF
echo "whip-janus: PASS"
