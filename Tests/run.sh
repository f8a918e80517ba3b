#!/usr/bin/env bash
# README command 2: installs what is needed, then runs the whole test suite (unit, end-to-end, interop).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tests/install-deps.sh
swift build --build-tests
swift test --skip-build --parallel --num-workers 2
# Interop: our binaries against ffmpeg, GStreamer and tshark (Interop/README.md).
RTC_H264="$(swift build --show-bin-path)/rtc-h264" bash Interop/run-all.sh
