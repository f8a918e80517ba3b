#!/usr/bin/env bash
# Runs the WebRTC interop tests (headless Chromium and aiortc against our STUN/ICE/DTLS-SRTP/JSEP pieces) inside a
# network namespace of their own: the tests need a non-loopback IPv4 interface (browsers gather no loopback
# candidates), and that interface must be one of ours, not the machine's. A veth pair (10.79.0.1 <-> 10.79.0.2, both
# ends in the namespace) gives it; the namespace is removed on exit, success or not.
#
# Usage: Tests/WebRTCTests/Interop/run-in-namespace.sh   (as root; after `swift build --build-tests`)
set -euo pipefail
cd "$(dirname "$0")/../../.."
command -v chromium >/dev/null || { echo "chromium is missing: apt-get install chromium (Tests/install-deps.sh)" >&2; exit 1; }
command -v ip >/dev/null || { echo "ip is missing: apt-get install iproute2 (Tests/install-deps.sh)" >&2; exit 1; }
command -v iptables >/dev/null || { echo "iptables is missing: apt-get install iptables (Tests/install-deps.sh)" >&2; exit 1; }

VENV=.build/aiortc-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import aiortc" 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q aiortc
fi

NS="rtch264-webrtc-$$"
cleanup() {
    for pid in $(ip netns pids "$NS" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns delete "$NS" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" link add wrtc0 type veth peer name wrtc1
ip -n "$NS" addr add 10.79.0.1/24 dev wrtc0
ip -n "$NS" addr add 10.79.0.2/24 dev wrtc1
ip -n "$NS" link set wrtc0 up
ip -n "$NS" link set wrtc1 up

ip netns exec "$NS" env RTC_H264_CHROMIUM=1 RTC_H264_AIORTC_PYTHON="$PWD/$VENV/bin/python" \
    swift test --skip-build --filter "ChromiumInteropTests|AiortcInteropTests"

# `rtc-h264 serve --whep` end to end (about 35 s): headless Chromium opens the page the server serves (two viewers at
# once; one under 5 % loss, answered with NACK/RTX; one through a 3 s blackout, answered with PLI -> IDR), and aiortc
# as a WHEP client (POST, decode from a keyframe, DELETE, 404 after).
RTC_H264="$(swift build --show-bin-path)/rtc-h264"
INTEROP=Tests/WebRTCTests/Interop
ip netns exec "$NS" python3 "$INTEROP/serve_chromium_viewer.py" --rtc-h264 "$RTC_H264" --frames 150 --viewers 2
ip netns exec "$NS" python3 "$INTEROP/serve_chromium_viewer.py" --rtc-h264 "$RTC_H264" --frames 150 --loss 0.05
ip netns exec "$NS" python3 "$INTEROP/serve_chromium_viewer.py" --rtc-h264 "$RTC_H264" --frames 240 --blackout-ms 3000
ip netns exec "$NS" "$PWD/$VENV/bin/python" "$INTEROP/serve_aiortc_viewer.py" --rtc-h264 "$RTC_H264"
