#!/usr/bin/env bash
# The DocC documentation (Sources/RTCH264/RTCH264.docc and every public symbol of the library's modules), built the
# way a user builds it, with any DocC warning (a broken link, an undocumented parameter) failing the run; then every
# public symbol declared in Sources/ must carry a documentation comment (check-doc-coverage.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
modules=(MediaTime H264 RTP SRTP Video Codec SDP Transport CongestionControl Sender Receiver HTTPRequester Control
         STUN TURN DTLS WebRTC WHEP WHIP WHEPPlayer RTCH264)
targets=()
for module in "${modules[@]}"; do targets+=(--target "$module"); done
swift package --disable-sandbox generate-documentation "${targets[@]}" --enable-experimental-combined-documentation \
    --warnings-as-errors
swift package dump-symbol-graph --minimum-access-level public >/dev/null
python3 Tests/Docs/check-doc-coverage.py "$(swift build --show-bin-path)/../symbolgraph" "${modules[@]}" WebRTCTransport HTTPEndpoint
