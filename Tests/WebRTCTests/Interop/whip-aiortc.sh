#!/usr/bin/env bash
# `rtc-h264 send --whip` publishes to an aiortc WHIP endpoint (aiortc_whip_server.py: RFC 9725 over HTTP/1.1, aiortc
# for ICE/DTLS-SRTP, PyAV to decode), inside a network namespace of our own (aioice gathers no loopback candidates):
# a veth pair, 10.81.0.1 <-> 10.81.0.2, both ends in the namespace; removed on exit, success or not.
#
#   1. token + 307 redirect: 200 frames of the test pattern published; the endpoint decodes at least 99 % of the
#      frames we sent, each bit-exact (MD5 of the decoded planes) against a decode of our own bitstream
#      (--save-annexb), in order; the DELETE arrives; the offer was sendonly with a=setup:actpass and one host
#      candidate per interface (both veth ends, no loopback).
#   2. a wrong token: `send` fails with the 401 named, the token never printed, nothing published.
#   3. the endpoint closes its PeerConnection after 30 frames: `send` stops at once naming the close_notify, exits
#      non-zero, and still DELETEs the session.
#   4. the endpoint freezes (SIGSTOP) 3 s in: after 30 s without consent answers (RFC 7675) `send` stops naming the
#      expiry, long before its 3000 frames (its ICE restart attempts meanwhile end at the endpoint's 405 to PATCH);
#      the DELETE is answered once the endpoint resumes.
#   5. IPv6: the endpoint on fd00:81::1 (https://[fd00:81::1]:PORT/whip, a certificate for that address): the offer's
#      host candidates are the two IPv6 veth addresses (no link-local, no IPv4), the pair is IPv6, and the frames are
#      decoded bit-exact as in 1.
#
# Usage: Tests/WebRTCTests/Interop/whip-aiortc.sh   (as root; after `swift build`; RTC_H264 = the binary)
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=Tests/WebRTCTests/Interop
source "$HERE/netns.sh"
rtc_binary whip-aiortc
require_tool ip iproute2
require_root whip-aiortc

aiortc_venv
PY="$AIORTC_PYTHON"

WORK=$(mktemp -d /tmp/whip-aiortc.XXXXXX)
NS="rtch264-whip-$$"
SERVER_PID=""
cleanup() {
    local status=$?
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    netns_down "$NS"
    [ "${KEEP:-0}" = 1 ] && echo "whip-aiortc: kept $WORK" >&2 || rm -rf "$WORK"
    exit $status
}
trap cleanup EXIT
netns_up "$NS" whip0 10.81.0.1 whip1 10.81.0.2
ip -n "$NS" addr add fd00:81::1/64 dev whip0 nodad
ip -n "$NS" addr add fd00:81::2/64 dev whip1 nodad

TOKEN="whip-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
printf '%s\n' "$TOKEN" >"$WORK/token"
printf '%s\n' "wrong-$TOKEN" >"$WORK/wrong-token"

# HTTPS: a throwaway CA and a certificate for the endpoint's address (a token never goes over http:// beyond
# loopback); `send` trusts the CA with --ca-file.
make_test_certificate "$WORK" 10.81.0.1
TLS=(--tls-cert "$WORK/server.pem" --tls-key "$WORK/server.key")

# start_server PORT REPORT [args...]: the endpoint over HTTPS, waited for until it listens.
start_server() { ENDPOINT_NS=$NS ENDPOINT_ADDR=10.81.0.1 aiortc_endpoint_start "$1" "$2" "${TLS[@]}" "${@:3}"; }

# 1. Publish: token, a 307 first, 200 frames (aiortc emits a frame when the next one starts: the last is never decoded).
start_server 8101 "$WORK/report.json" --token "$TOKEN" --redirect
ip netns exec "$NS" "$RTC" send --whip https://10.81.0.1:8101/whip --ca-file "$WORK/ca.pem" --token-file "$WORK/token" --frames 200 \
    --size 320x240 --fps 30 --save-annexb "$WORK/sent.h264" 2>"$WORK/send.err" \
    || { echo "FAIL: rtc-h264 send --whip exited $?: $(tail -c 800 "$WORK/send.err")" >&2; exit 1; }
wait "$SERVER_PID" || true
SERVER_PID=""
grep -q "published to https://10.81.0.1:8101/whip" "$WORK/send.err" || { echo "FAIL: no 'published to' line: $(tail -c 600 "$WORK/send.err")" >&2; exit 1; }
if grep -q "$TOKEN" "$WORK/send.err"; then echo "FAIL: the token was printed" >&2; exit 1; fi
"$PY" - "$WORK/report.json" <<'EOF' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
problems = []
if report["redirected"] != 1: problems.append("the 307 was not followed (redirected=%d)" % report["redirected"])
if report["unauthorized"] != 0: problems.append("%d requests lacked the token" % report["unauthorized"])
if not report["offer_sendonly"]: problems.append("the offer is not sendonly")
if not report["offer_actpass"]: problems.append("the offer is not a=setup:actpass")
# One host candidate per interface: both veth ends are ours, loopback is left out (the endpoint is not on loopback).
if report["offer_candidates"] != ["10.81.0.1", "10.81.0.2"]:
    problems.append("the offer's host candidates are %s, not one per interface (10.81.0.1, 10.81.0.2)" % report["offer_candidates"])
if problems:
    print("FAIL: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
EOF
RESULT=$(cd "$HERE" && "$PY" whip_compare.py "$WORK/report.json" "$WORK/sent.h264" --last-frame-pending) \
    || { echo "FAIL: frame comparison: $RESULT" >&2; exit 1; }
echo "whip-aiortc publish: $RESULT; $(grep -o 'ICE .*' "$WORK/send.err" | head -1)"

# 2. A wrong token: a clear 401, the token not printed, nothing decoded.
start_server 8102 "$WORK/report-401.json" --token "$TOKEN"
if ip netns exec "$NS" "$RTC" send --whip https://10.81.0.1:8102/whip --ca-file "$WORK/ca.pem" --token-file "$WORK/wrong-token" --frames 30 \
    --size 320x240 --quiet 2>"$WORK/send-401.err"; then
    echo "FAIL: send --whip with a wrong token succeeded" >&2
    exit 1
fi
grep -q "HTTP 401" "$WORK/send-401.err" || { echo "FAIL: the 401 is not named: $(cat "$WORK/send-401.err")" >&2; exit 1; }
if grep -q "$TOKEN" "$WORK/send-401.err"; then echo "FAIL: the token was printed" >&2; exit 1; fi
kill "$SERVER_PID" 2>/dev/null || true
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""
echo "whip-aiortc wrong token: $(head -c 300 "$WORK/send-401.err" | tr '\n' ' ')"

# 3. The endpoint goes away mid-stream (aiortc closes its PeerConnection: DTLS close_notify): `send` stops at once
#    with the reason, still DELETEs the session, and exits non-zero.
start_server 8103 "$WORK/report-closed.json" --close-after 30
started=$SECONDS
if ip netns exec "$NS" "$RTC" send --whip https://10.81.0.1:8103/whip --ca-file "$WORK/ca.pem" --frames 900 --size 320x240 --quiet \
    2>"$WORK/send-closed.err"; then
    echo "FAIL: send --whip went on although the endpoint closed the session" >&2
    exit 1
fi
elapsed=$((SECONDS - started))
grep -q "the connection to the peer closed: the endpoint closed DTLS (close_notify)" "$WORK/send-closed.err" \
    || { echo "FAIL: the close is not named: $(cat "$WORK/send-closed.err")" >&2; exit 1; }
[ "$elapsed" -lt 15 ] || { echo "FAIL: send took $elapsed s to notice the closed session (900 frames = 30 s)" >&2; exit 1; }
wait "$SERVER_PID" || true
SERVER_PID=""
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["deleted"] else "FAIL: no DELETE after the endpoint closed")' \
    "$WORK/report-closed.json"
echo "whip-aiortc endpoint closed mid-stream: after ${elapsed} s: $(head -c 300 "$WORK/send-closed.err" | tr '\n' ' ')"

# 4. The endpoint goes silent (SIGSTOP: no consent answers, no RTCP, no close_notify): after RFC 7675's 30 s the
#    consent expires and `send` stops naming it; the endpoint resumes 31 s in, so the DELETE is still answered.
start_server 8104 "$WORK/report-silent.json"
ip netns exec "$NS" "$RTC" send --whip https://10.81.0.1:8104/whip --ca-file "$WORK/ca.pem" --frames 3000 --size 320x240 --quiet \
    --stats "$WORK/silent-stats.jsonl" 2>"$WORK/send-silent.err" &
SEND_PID=$!
sleep 3
kill -STOP "$SERVER_PID"
sleep 31
kill -CONT "$SERVER_PID"
if wait "$SEND_PID"; then
    echo "FAIL: send --whip went on although the endpoint stopped answering consent checks" >&2
    exit 1
fi
grep -q "the connection to the peer closed: ICE consent expired" "$WORK/send-silent.err" \
    || { echo "FAIL: consent expiry is not named: $(cat "$WORK/send-silent.err")" >&2; exit 1; }
sent=$("$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["framesSent"])' "$WORK/silent-stats.jsonl")
[ "$sent" -lt 2000 ] || { echo "FAIL: send sent $sent of 3000 frames: it did not stop at the consent expiry" >&2; exit 1; }
wait "$SERVER_PID" || true
SERVER_PID=""
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["deleted"] else "FAIL: no DELETE after consent expired")' \
    "$WORK/report-silent.json"
echo "whip-aiortc endpoint silent: stopped after $sent frames: $(head -c 300 "$WORK/send-silent.err" | tr '\n' ' ')"

# 5. IPv6 end to end: the URL, TLS to an IPv6 address, IPv6 host candidates and pair.
mkdir -p "$WORK/v6"
make_test_certificate "$WORK/v6" fd00:81::1
ENDPOINT_NS=$NS ENDPOINT_ADDR=fd00:81::1 aiortc_endpoint_start 8105 "$WORK/report-v6.json" \
    --tls-cert "$WORK/v6/server.pem" --tls-key "$WORK/v6/server.key"
ip netns exec "$NS" "$RTC" send --whip "https://[fd00:81::1]:8105/whip" --ca-file "$WORK/v6/ca.pem" --frames 100 \
    --size 320x240 --fps 30 --save-annexb "$WORK/sent-v6.h264" 2>"$WORK/send-v6.err" \
    || { echo "FAIL: send --whip over IPv6 exited $?: $(tail -c 800 "$WORK/send-v6.err")" >&2; exit 1; }
wait "$SERVER_PID" || true
SERVER_PID=""
grep -q "ICE \[fd00:81::" "$WORK/send-v6.err" || { echo "FAIL: the pair is not IPv6: $(grep -o 'ICE .*' "$WORK/send-v6.err")" >&2; exit 1; }
"$PY" - "$WORK/report-v6.json" <<'EOF' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
if report["offer_candidates"] != ["fd00:81::1", "fd00:81::2"]:
    print("FAIL: the IPv6 offer's host candidates are %s, not fd00:81::1 and fd00:81::2" % report["offer_candidates"],
          file=sys.stderr)
    sys.exit(1)
EOF
RESULT=$(cd "$HERE" && "$PY" whip_compare.py "$WORK/report-v6.json" "$WORK/sent-v6.h264" --last-frame-pending) \
    || { echo "FAIL: IPv6 frame comparison: $RESULT" >&2; exit 1; }
echo "whip-aiortc IPv6: $RESULT; $(grep -o 'ICE .*' "$WORK/send-v6.err" | head -1)"
echo "whip-aiortc: PASS"
