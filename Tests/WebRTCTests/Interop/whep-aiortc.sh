#!/usr/bin/env bash
# `rtc-h264 receive --whep` plays an aiortc WHEP endpoint (aiortc_whip_server.py --whep: aiortc answers our recvonly
# offer and sends a 320x240 pattern at 30 fps, H.264 from libx264 through PyAV, aiortc's own packetizer, RTX, and the
# DTLS role aiortc picks), inside a network namespace of our own (aioice gathers no loopback candidates): a veth pair,
# 10.82.0.1 <-> 10.82.0.2, both ends in the namespace; removed on exit, success or not.
#
#   1. HTTPS with a token and a 307 redirect: `receive --whep` decodes 90 frames at 320x240 with no decode error and
#      no SRTP failure, writes them as Y4M, reports its first frame, and DELETEs the session; the offer was recvonly
#      with a=setup:actpass; the token is never printed.
#   2. A wrong token: `receive --whep` fails naming the WHEP endpoint's 401, the token never printed.
#
# Usage: Tests/WebRTCTests/Interop/whep-aiortc.sh   (as root; after `swift build`; RTC_H264 = the binary)
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=Tests/WebRTCTests/Interop
source "$HERE/netns.sh"
rtc_binary whep-aiortc
require_tool ip iproute2
require_root whep-aiortc

aiortc_venv
PY="$AIORTC_PYTHON"

WORK=$(mktemp -d /tmp/whep-aiortc.XXXXXX)
NS="rtch264-whep-aio-$$"
SERVER_PID=""
cleanup() {
    local status=$?
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    netns_down "$NS"
    [ "${KEEP:-0}" = 1 ] && echo "whep-aiortc: kept $WORK" >&2 || rm -rf "$WORK"
    exit $status
}
trap cleanup EXIT
netns_up "$NS" whepa0 10.82.0.1 whepa1 10.82.0.2

TOKEN="whep-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
printf '%s\n' "$TOKEN" >"$WORK/token"
make_test_certificate "$WORK" 10.82.0.1
TLS=(--tls-cert "$WORK/server.pem" --tls-key "$WORK/server.key")
start_server() { ENDPOINT_NS=$NS ENDPOINT_ADDR=10.82.0.1 aiortc_endpoint_start "$1" "$2" "${TLS[@]}" --whep "${@:3}"; }

# 1. Play 90 frames through HTTPS, a token and a 307.
start_server 8201 "$WORK/report.json" --token "$TOKEN" --redirect
ip netns exec "$NS" "$RTC" receive --whep https://10.82.0.1:8201/whep --ca-file "$WORK/ca.pem" --token-file "$WORK/token" \
    --frames 90 --output "$WORK/out.y4m" --json --log-level info >"$WORK/receive.json" 2>"$WORK/receive.err" \
    || { echo "FAIL: rtc-h264 receive --whep exited $?: $(tail -c 800 "$WORK/receive.err")" >&2; exit 1; }
wait "$SERVER_PID" || true
SERVER_PID=""
if grep -q "$TOKEN" "$WORK/receive.err" "$WORK/receive.json"; then echo "FAIL: the token was printed" >&2; exit 1; fi
"$PY" - "$WORK/report.json" "$WORK/receive.json" "$WORK/out.y4m" <<'EOF' || exit 1
import json, os, sys
report = json.load(open(sys.argv[1]))
played = json.load(open(sys.argv[2]))
problems = []
if report["redirected"] != 1: problems.append("the 307 was not followed (redirected=%d)" % report["redirected"])
if report["unauthorized"] != 0: problems.append("%d requests lacked the token" % report["unauthorized"])
if not report.get("offer_recvonly"): problems.append("the offer is not recvonly")
if not report["offer_actpass"]: problems.append("the offer is not a=setup:actpass")
if not report["deleted"]: problems.append("the session was not DELETEd")
session = played["sessions"][0]
stats = session.get("stats") or {}
if session.get("error"): problems.append("the session ended early: %s" % session["error"])
if stats.get("framesDecoded") != 90: problems.append("decoded %s frames, not 90" % stats.get("framesDecoded"))
if stats.get("decodeErrors", 1) != 0: problems.append("%s decode errors" % stats.get("decodeErrors"))
if stats.get("srtpUnprotectFailures", 1) != 0: problems.append("%s SRTP failures" % stats.get("srtpUnprotectFailures"))
if not session.get("firstFrameMs"): problems.append("no first-frame time")
# 90 frames of 320x240 in the Y4M file: a 320x240 header, then FRAME + 115200 bytes each.
size = os.path.getsize(sys.argv[3])
with open(sys.argv[3], "rb") as y4m:
    header = y4m.readline()
if b" W320 H240 " not in header: problems.append("the Y4M header is %r" % header)
if size != len(header) + 90 * (6 + 320 * 240 * 3 // 2): problems.append("the Y4M file has %d bytes" % size)
if problems:
    print("FAIL: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
print("whep-aiortc: 90 of %d frames sent decoded at 320x240, first frame %.0f ms after the offer; aiortc answered "
      "a=setup:%s with %s" % (report.get("sent", 0), session["firstFrameMs"], report.get("answer_setup"),
                                ", ".join(report.get("answer_codecs", []))))
EOF

# 2. A wrong token: the 401, said as WHEP's, and no token printed.
start_server 8202 "$WORK/report-401.json" --token "$TOKEN"
if ip netns exec "$NS" "$RTC" receive --whep https://10.82.0.1:8202/whep --ca-file "$WORK/ca.pem" --token "x$TOKEN" \
    --frames 5 >"$WORK/refused.out" 2>"$WORK/refused.err"; then
    echo "FAIL: receive --whep with a wrong token succeeded" >&2; exit 1
fi
grep -q "the WHEP endpoint refused the credentials (HTTP 401)" "$WORK/refused.err" \
    || { echo "FAIL: no 401 named: $(tail -c 600 "$WORK/refused.err")" >&2; exit 1; }
if grep -q "$TOKEN" "$WORK/refused.err" "$WORK/refused.out"; then echo "FAIL: the token was printed" >&2; exit 1; fi
kill "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""
echo "whep-aiortc: a wrong token refused with the 401 named"
echo "whep-aiortc: PASS"
