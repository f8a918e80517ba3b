#!/usr/bin/env bash
# README command 1's build, checked in CI: rtc-h264 built without the TLS trait (`--disable-default-traits`, debug, in
# its own scratch path so that the test build's .build is untouched) builds, runs the main job (`demo`, whose table
# of checks must all pass), and refuses each use of TLS with the error that names the missing trait.
#
#   bash Tests/Setup/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
SCRATCH="${RTC_H264_SETUP_SCRATCH:-.build-notls}"   # another scratch path: a local run reusing a build
swift build --disable-default-traits --scratch-path "$SCRATCH" --product rtc-h264
BIN="$SCRATCH/debug/rtc-h264"
fail() { echo "Tests/Setup: FAILED: $*" >&2; exit 1; }
if [ -d "$SCRATCH/debug/CNIOBoringSSL.build" ] && find "$SCRATCH/debug/CNIOBoringSSL.build" -name '*.o' | grep -q .; then
    fail "the build without the TLS trait compiled BoringSSL"
fi

"$BIN" demo > "$SCRATCH/demo.txt" 2>&1 || { cat "$SCRATCH/demo.txt" >&2; fail "the demo's checks did not all pass"; }
grep -q "demo: all checks passed" "$SCRATCH/demo.txt" || fail "the demo printed no 'all checks passed'"

# Each use of TLS: a non-zero exit and the error naming the trait (never a trap, never a plain-text fallback).
expect_no_tls() {
    local what="$1"; shift
    local out status=0
    out=$("$@" 2>&1) || status=$?
    [ "$status" -ne 0 ] || fail "$what: exited 0 in a build without TLS"
    [ "$status" -lt 128 ] || fail "$what: ended by signal $((status - 128))"
    echo "$out" | grep -q "this build has no TLS" || fail "$what: no 'this build has no TLS' in: $out"
    echo "Tests/Setup: $what refused (exit $status)"
}
TLS_DIR=Tests/TestSupport/TLS
expect_no_tls "send --whip https://" "$BIN" send --whip https://127.0.0.1:9/whip --duration 1
expect_no_tls "receive --whep https://" "$BIN" receive --whep https://127.0.0.1:9/whep --duration 1 --no-decode
expect_no_tls "serve --tls-cert" timeout 20 "$BIN" serve --whep 127.0.0.1:0 --tls-cert "$TLS_DIR/server.pem" \
    --tls-key "$TLS_DIR/server.key" --duration 2
expect_no_tls "send --whip --ice-server turns:" "$BIN" send --whip http://127.0.0.1:9/whip --duration 1 \
    --ice-server "turns:127.0.0.1:5349?transport=tcp" --ice-username u --ice-credential p
expect_no_tls "serve --ice-server turns:" timeout 20 "$BIN" serve --whep 127.0.0.1:0 --duration 2 \
    --ice-server "turns:127.0.0.1:5349?transport=tcp" --ice-username u --ice-credential p
echo "Tests/Setup: the build without TLS runs the demo and refuses TLS"
