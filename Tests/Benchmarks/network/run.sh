#!/usr/bin/env bash
# Network resilience benchmark (issue 12): rtc-h264 send (720p pattern at 1.5 Mbit/s, SRTP) -> impairment relay ->
# rtc-h264 receive on 127.0.0.1, one run per case: 0/1/2/5 % loss at 25 ms each way, 5 % with --no-nack, 10 % at
# 100 ms, a 1 Mbit/s bottleneck with a 30-packet queue, capacity steps 2M -> 500k -> 2M, a 1 s blackout.
# Prints a markdown table (issue 12's "today" figures beside the new ones) and per-case details.
# Usage: Tests/Benchmarks/network/run.sh [--seconds N] [--cases loss1,loss5,...] [--size WxH] [--bitrate R] [--no-rtx]
#        [--no-transport-cc] [--markdown FILE] [--out DIR] [--send-extra=ARG ...] [--receive-extra=ARG ...]
#        [--gstreamer] (60 s per case by default: about 11 minutes in all; RTC_H264=path uses that binary instead of
#        building). python3 netbench.py --help.
#        --gstreamer also runs GStreamer rtpbin as the receiver at 5 % loss, 25 ms each way (Interop/
#        gstreamer-rtpbin-nack.sh at --size/--bitrate for --seconds) and prints its RESULT line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
for tool in python3 swift; do
    command -v "$tool" >/dev/null || { echo "$tool is required" >&2; exit 1; }
done
if [ -z "${RTC_H264:-}" ]; then
    (cd "$root" && swift build -c release --product rtc-h264 >/dev/null)
    RTC_H264="$(cd "$root" && swift build -c release --show-bin-path)/rtc-h264"
fi
export RTC_H264
gstreamer=0 seconds=60 size=1280x720 bitrate=1.5M
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --gstreamer) gstreamer=1 ;;
        --seconds) seconds="$2"; args+=("$1" "$2"); shift ;;
        --size) size="$2"; args+=("$1" "$2"); shift ;;
        --bitrate) bitrate="$2"; args+=("$1" "$2"); shift ;;
        *) args+=("$1") ;;
    esac
    shift
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg) at start" >&2
echo "commit: $(cd "$root" && git rev-parse --short HEAD)" >&2
python3 "$here/netbench.py" --rtc "$RTC_H264" "${args[@]}"
if [ "$gstreamer" = 1 ]; then
    echo "gstreamer rtpbin, 5 % loss, 25 ms, $size at $bitrate, ${seconds%.*} s (load $(cut -d' ' -f1-3 /proc/loadavg)):" >&2
    RUN_SECONDS="${seconds%.*}" SIZE="$size" BITRATE="$bitrate" MIN_EXACT=0 "$root/Interop/gstreamer-rtpbin-nack.sh" \
        | grep -E "RESULT|PASS|FAIL"
fi
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
