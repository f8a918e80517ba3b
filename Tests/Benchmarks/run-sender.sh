#!/usr/bin/env bash
# Sender benchmarks (issue 5), side by side in one session:
#   1. throughput: `rtc-h264 send --as-fast-as-possible` (SRTP) vs the GStreamer pipeline doing the same work vs the
#      bare C OpenH264 encode loop reading each frame from the file as ours does (the verdict; and on preloaded
#      frames, shown beside it); process CPU (user+sys from wait4), alternating rounds.
#   2. real time: `rtc-h264 send` of the pattern and of the clip at 720p30 (SRTP): CPU % of one core, max RSS, beside
#      the floor (the C encode loop on the same frames, preloaded, each encoded at its 30 fps slot).
#   3. keyframe latency: PLIs every ~700 ms, sender stats and external PLI -> first IDR packet.
#   4. latency (issue 10, not part of `all`): control-request latency (GET /stats, ~10/s) and PLI -> IDR on the wire
#      while sending 720p30 in real time, to a socket owned by sender/latency.py; rounds alternate the binaries.
#   5. instructions (issue 21, not part of `all`): the throughput comparison counted in instructions under Valgrind's
#      callgrind (ours, the whole process, against the C loop's EncodeFrame calls), which the machine's load does not
#      change; about 3 minutes. Needs valgrind (apt-get install valgrind).
# Everything goes to a local UDP sink (Tests/Benchmarks/sender/udp_sink.c) on 127.0.0.1.
# Usage: Tests/Benchmarks/run-sender.sh [throughput|realtime|keyframe|all|latency|instructions] [rounds] [seconds]
#   rounds: throughput 5, realtime 3 by default (keyframe runs once); seconds: 20 per real-time run by default
#   RTC_BIN=/path/to/rtc-h264    measure that binary instead of building this checkout's (e.g. an older build)
#   RTC_BIN_BEFORE=/path/to/rtc-h264   latency only: also measure this one, side by side ("before" vs "after")
#   LATENCY_OUT=out/DIR   latency only: where the raw samples go (default out)
#   latency's defaults: 2 rounds of 30 s.
set -euo pipefail
cd "$(dirname "$0")"
WHAT=${1:-all}
if [ "$WHAT" = latency ]; then
    ROUNDS=${2:-2}
    SECONDS_RT=${3:-30}
else
    ROUNDS=${2:-5}
    # realtime runs each command for SECONDS_RT per round: 3 rounds unless [rounds] says otherwise.
    REALTIME_ROUNDS=${2:-3}
    SECONDS_RT=${3:-20}
fi
FRAMES=300
mkdir -p out
Y4M=out/testsrc2-1280x720-300.y4m
if [ "$WHAT" = latency ]; then
    if [ -n "${RTC_BIN:-}" ]; then
        RTC=$RTC_BIN
    else
        (cd ../.. && swift build -c release --product rtc-h264 >/dev/null)
        RTC="$(cd ../.. && swift build -c release --show-bin-path)/rtc-h264"
    fi
    BINS=()
    if [ -n "${RTC_BIN_BEFORE:-}" ]; then BINS+=(--bin "before=$RTC_BIN_BEFORE" --bin "after=$RTC"); else BINS+=(--bin "ours=$RTC"); fi
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
    exec python3 sender/latency.py "${BINS[@]}" --rounds "$ROUNDS" --duration "$SECONDS_RT" --out "${LATENCY_OUT:-out}"
fi
TOOLS="ffmpeg gst-launch-1.0 gcc python3"
[ "$WHAT" = instructions ] && TOOLS="ffmpeg gcc python3 valgrind callgrind_annotate"
for tool in $TOOLS; do
    command -v "$tool" >/dev/null || { echo "$tool is required (apt-get install ffmpeg gstreamer1.0-tools gcc python3 valgrind)" >&2; exit 1; }
done
if [ ! -s "$Y4M" ]; then
    ffmpeg -v error -y -f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v "$FRAMES" -pix_fmt yuv420p "$Y4M"
fi
PATTERN_Y4M=out/pattern-1280x720-300.y4m
case "$WHAT" in realtime|all)
    # The built-in pattern as Y4M, for the C floor (rewritten each time: it follows TestPattern).
    swift build -c release --product EncoderBench >/dev/null
    "$(swift build -c release --show-bin-path)/EncoderBench" --write-pattern "$PATTERN_Y4M" --frames "$FRAMES" ;;
esac
gcc -O2 -Wall -o out/encode_loop C/encode_loop.c $(pkg-config --cflags --libs openh264)
gcc -O2 -Wall -o out/udp_sink sender/udp_sink.c
# The CLI is built in the main package (the parent directory), release; RTC_BIN measures another binary instead.
if [ -n "${RTC_BIN:-}" ]; then
    RTC=$RTC_BIN
else
    (cd ../.. && swift build -c release --product rtc-h264 >/dev/null)
    RTC="$(cd ../.. && swift build -c release --show-bin-path)/rtc-h264"
fi
echo "rtc-h264: $RTC ($("$RTC" --version 2>/dev/null || echo '?'))"
COMMON=(--rtc "$RTC" --sink out/udp_sink --out out)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "versions: $(gst-launch-1.0 --version | sed -n 2p), OpenH264 $(pkg-config --modversion openh264), libsrtp2 $(pkg-config --modversion libsrtp2)"
case "$WHAT" in throughput|all) python3 sender/bench.py throughput "${COMMON[@]}" --clip "$Y4M" --encode-loop out/encode_loop --rounds "$ROUNDS" ;; esac
case "$WHAT" in realtime|all) python3 sender/bench.py realtime "${COMMON[@]}" --duration "$SECONDS_RT" --rounds "$REALTIME_ROUNDS" \
    --clip "$Y4M" --pattern-clip "$PATTERN_Y4M" --encode-loop out/encode_loop ;; esac
case "$WHAT" in keyframe|all) python3 sender/bench.py keyframe "${COMMON[@]}" --duration "$SECONDS_RT" ;; esac
if [ "$WHAT" = instructions ]; then
    gcc -O2 -Wall -shared -fPIC -o out/valgrind_sigsuspend.so C/valgrind_sigsuspend.c
    # Valgrind 3.19 cannot read the DWARF 5 that Swift 6.3 writes (it gives up on the binary): a copy without it.
    strip --strip-debug -o out/rtc-h264-nodebug "$RTC"
    python3 sender/bench.py instructions --rtc out/rtc-h264-nodebug --sink out/udp_sink --out out --clip "$Y4M" \
        --encode-loop out/encode_loop --shim "$PWD/out/valgrind_sigsuspend.so"
fi
