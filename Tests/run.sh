#!/usr/bin/env bash
# README command 2: installs what is needed, then runs the whole test suite: unit and end-to-end tests, the
# impairment relay's self-checks, a bounded fuzzing run of every parser, and the interop scenarios.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tests/install-deps.sh
swift build --build-tests
# The WebRTC interop tests run in their own network namespace below, not here. The command-line suites run here too:
# they wait for their processes through TestSupport's ChildProcess, which holds no thread of Swift's cooperative pool.
swift test --skip-build --skip "ChromiumInteropTests|AiortcInteropTests|SteadyStateAllocationTests|ChannelDataAllocationTests"
# The send and receive paths allocate nothing per packet: counted process-wide by a preloaded malloc counter (the
# Swift toolchain's clang builds it), so these run alone. Not in the run above: SwiftPM 6.3 starts one process per test
# only for XCTest (`--parallel`/`--num-workers`; SwiftTestCommand.swift: "Run Swift Testing (parallel or not, it has a
# single entry point.)"), and this package's tests are all swift-testing, which runs every suite in that one process,
# up to twice as many test cases at once as there are cores (one process seen during the run): others would be counted.
clang -O2 -shared -fPIC -o .build/malloc_count.so Tests/Benchmarks/C/malloc_count.c
RTC_H264_REQUIRE_MALLOC_COUNT=1 LD_PRELOAD="$PWD/.build/malloc_count.so" swift test --skip-build --filter "SteadyStateAllocationTests"
# The ChannelData framing of media over a TURN relay (UDPTransport, no SRTP): alone too, for the same reason.
RTC_H264_REQUIRE_MALLOC_COUNT=1 LD_PRELOAD="$PWD/.build/malloc_count.so" swift test --skip-build --filter "ChannelDataAllocationTests"
# WebRTC pieces (STUN, ICE, DTLS-SRTP, JSEP) against headless Chromium and aiortc (Tests/WebRTCTests/Interop).
bash Tests/WebRTCTests/Interop/run-in-namespace.sh
# Issue 23's mixed audience, 25 s: `serve --whep --simulcast 3` at 720p watched by two headless Chromiums, one behind a
# 400 kbit/s policer: the unconstrained viewer gets >= 1.2 Mbit/s at 1280x720, the policed one decodes >= 95 % on a
# lower layer with no freeze of a second once settled (its freezes a minute are the benchmark's, 60 s runs).
RTC_H264="$(swift build --show-bin-path)/rtc-h264" bash Tests/Benchmarks/run-mixed-audience.sh --seconds 25 --check
# WHIP: `rtc-h264 send --whip` publishes to an aiortc WHIP endpoint; decoded frames MD5-compared with our bitstream.
RTC_H264="$(swift build --show-bin-path)/rtc-h264" bash Tests/WebRTCTests/Interop/whip-aiortc.sh
# WHEP: `rtc-h264 receive --whep` plays an aiortc WHEP endpoint (libx264, aiortc's packetizer, DTLS server role for us).
RTC_H264="$(swift build --show-bin-path)/rtc-h264" bash Tests/WebRTCTests/Interop/whep-aiortc.sh
# WHIP through Debian's coturn with direct UDP blocked at a router namespace: the relayed pair selected on both sides,
# frames MD5-compared; the TURN server given with --ice-server, then learned from the endpoint's Link header.
RTC_H264="$(swift build --show-bin-path)/rtc-h264" bash Tests/WebRTCTests/Interop/whip-turn.sh
# WHEP behind a firewall and a NAT: `serve --whep --ice-server` (TURN over UDP, over TCP, then STUN behind a
# masquerading router) watched by aiortc from the other side; the relayed or server-reflexive path, frames MD5-compared.
RTC_H264="$(swift build --show-bin-path)/rtc-h264" bash Tests/WebRTCTests/Interop/whep-turn.sh
# WHIP to Janus's VideoRoom through Debian's simple-whip-server, watched by an aiortc subscriber (frames MD5-compared).
RTC_H264="$(swift build --show-bin-path)/rtc-h264" bash Tests/WebRTCTests/Interop/whip-janus.sh
# WHIP ICE restart: the publisher's address replaced mid-stream (two namespaces), a restart through simple-whip-server
# (If-Match: "*") to Janus, the picture back in headless Chromium watching the room.
RTC_H264="$(swift build --show-bin-path)/rtc-h264" bash Tests/WebRTCTests/Interop/whip-restart.sh
# README command 1's build: without the TLS trait it builds no BoringSSL, runs the demo and refuses every use of TLS.
bash Tests/Setup/run.sh
# The user-space UDP relay the network benchmarks use (Tests/Tools/ImpairmentRelay).
python3 Tests/Tools/ImpairmentRelay/test_impairment_relay.py
# The DocC documentation builds with no warning, and every public symbol has a documentation comment (Tests/Docs).
bash Tests/Docs/run.sh
# libFuzzer on every input parser, 20 s each, regressions replayed first (Tests/Fuzz/README.md).
bash Tests/Fuzz/run.sh 20
# Interop: our binaries against ffmpeg, GStreamer, tshark, and Janus + Chromium (Interop/README.md); the Janus
# scenario's SRTP pass is required (the sender has --accept-plain-rtcp).
RTC_H264="$(swift build --show-bin-path)/rtc-h264" JANUS_REQUIRE_SRTP=1 bash Interop/run-all.sh
