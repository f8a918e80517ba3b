#!/usr/bin/env bash
# Installs the system packages rtc-h264 needs (Debian 12). Safe to run again: apt skips what is already there.
#
#   bash Tests/install-deps.sh build   # only what building and running rtc-h264 needs (README command 1)
#   bash Tests/install-deps.sh         # that, and every peer and tool the tests and interop checks use (command 2)
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
case "${1:-all}" in
    build|all) ;;
    *) echo "usage: $0 [build|all]" >&2; exit 2 ;;
esac
BUILD_PACKAGES=(
    pkg-config
    libopenh264-dev   # the encoder and decoder (pkg-config openh264)
    libsrtp2-dev      # SRTP (pkg-config libsrtp2)
    libyuv-dev        # pixel format conversion and scaling
    libssl-dev        # OpenSSL 3: DTLS 1.2 + use_srtp, STUN's HMAC-SHA1 and MD5 (pkg-config openssl)
    ca-certificates   # the system trust store `send --whip https://...` starts from
)
TEST_PACKAGES=(
    ffmpeg            # fixtures and interop peer
    nodejs            # WHIP interop (Tests/WebRTCTests/Interop/whip-janus.sh): runs Debian's simple-whip-server, which
                      # janus-whip/fetch-simple-whip-server.sh unpacks (apt-get download) with its Node modules
    gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav
    python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0   # Interop gstreamer-rtpbin-nack (rtpbin from Python)
    tshark            # dissects captures in Interop
    janus             # Interop janus-chromium: the Janus WebRTC server (streaming plugin, HTTP transport)
    chromium          # Interop janus-chromium: headless browser viewers
    iproute2 curl python3   # Interop janus-chromium: network namespaces, HTTP probes, the relay/driver scripts
    iptables          # WebRTC interop (serve --whep): loss and a blackout inside the test's network namespace (no netem here)
    ethtool           # the test namespaces' devices segment UDP GSO writes as a NIC does (netns.sh segment_like_a_nic)
    prometheus        # promtool: GET /metrics is checked by Prometheus's own parser (Tests/ControlTests)
    coturn            # TURN: the TURN client's tests run Debian's turnserver on loopback (Tests/TURNTests), and
                      # `send --whip` relays through it in Tests/WebRTCTests/Interop/whip-turn.sh
    openssl           # the test CAs the HTTPS tests and the WHIP interop scripts make (openssl req/x509)
)
PACKAGES=("${BUILD_PACKAGES[@]}")
if [ "${1:-all}" = all ]; then PACKAGES+=("${TEST_PACKAGES[@]}"); fi
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
