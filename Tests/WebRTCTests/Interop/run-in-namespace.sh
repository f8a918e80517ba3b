#!/usr/bin/env bash
# Runs the WebRTC interop tests (headless Chromium and aiortc against our STUN/ICE/DTLS-SRTP/JSEP pieces) inside a
# network namespace of their own: the tests need a non-loopback IPv4 interface (browsers gather no loopback
# candidates), and that interface must be one of ours, not the machine's. A veth pair (10.79.0.1 <-> 10.79.0.2, both
# ends in the namespace) gives it; the namespace is removed on exit, success or not.
#
# Usage: Tests/WebRTCTests/Interop/run-in-namespace.sh   (as root; after `swift build --build-tests`)
set -euo pipefail
cd "$(dirname "$0")/../../.."
source Tests/WebRTCTests/Interop/netns.sh
require_root run-in-namespace
require_tool chromium chromium
require_tool ip iproute2
require_tool iptables iptables
aiortc_venv

NS="rtch264-webrtc-$$"
trap 'netns_down "$NS"' EXIT
netns_up "$NS" wrtc0 10.79.0.1 wrtc1 10.79.0.2
# A default route, as every real host has: without a media permission Chromium gathers (and trickles) a host
# candidate only on the default route's interface (with none it gathers nothing and checks from the wildcard address).
ip -n "$NS" route add default via 10.79.0.1 dev wrtc1
# IPv6 on the same pair (no duplicate address detection: usable at once), with a default route for the same reason.
ip -n "$NS" addr add fd00:79::1/64 dev wrtc0 nodad
ip -n "$NS" addr add fd00:79::2/64 dev wrtc1 nodad
ip -n "$NS" -6 route add default dev wrtc1

ip netns exec "$NS" env RTC_H264_CHROMIUM=1 RTC_H264_AIORTC_PYTHON="$AIORTC_PYTHON" \
    swift test --skip-build --filter "ChromiumInteropTests|AiortcInteropTests"

# `rtc-h264 serve --whep` end to end (about 40 s): headless Chromium opens the page the server serves (two viewers at
# once, the first screenshotted while playing through the DevTools pipe; one under 5 % loss, answered with NACK/RTX;
# one through a 3 s blackout, answered with PLI -> IDR; one restarting ICE mid-stream; one over IPv6 (the page, the
# WHEP endpoint and the candidates on fd00:79::2); every page trickling its
# candidates and its statistics panel checked against getStats()),
# and aiortc as a WHEP client (POST, decode from a keyframe, DELETE, 404 after).
RTC_H264="$(swift build --show-bin-path)/rtc-h264"
INTEROP=Tests/WebRTCTests/Interop
ip netns exec "$NS" python3 "$INTEROP/serve_chromium_viewer.py" --rtc-h264 "$RTC_H264" --frames 300 --viewers 2 --screenshot
ip netns exec "$NS" python3 "$INTEROP/serve_chromium_viewer.py" --rtc-h264 "$RTC_H264" --frames 240 --loss 0.05
ip netns exec "$NS" python3 "$INTEROP/serve_chromium_viewer.py" --rtc-h264 "$RTC_H264" --frames 240 --loss 0.05 --temporal-layers 3
ip netns exec "$NS" python3 "$INTEROP/serve_chromium_viewer.py" --rtc-h264 "$RTC_H264" --frames 240 --simulcast 3 --size 640x360 --bitrate 1M
ip netns exec "$NS" python3 "$INTEROP/serve_chromium_viewer.py" --rtc-h264 "$RTC_H264" --frames 240 --blackout-ms 3000
ip netns exec "$NS" python3 "$INTEROP/serve_chromium_viewer.py" --rtc-h264 "$RTC_H264" --frames 210 --restart-after 2
ip netns exec "$NS" python3 "$INTEROP/serve_chromium_viewer.py" --rtc-h264 "$RTC_H264" --frames 300 --host fd00:79::2
ip netns exec "$NS" "$AIORTC_PYTHON" "$INTEROP/serve_aiortc_viewer.py" --rtc-h264 "$RTC_H264"
