#!/usr/bin/env bash
# Simulcast CPU cost (issue 23 target: 3-layer simulcast at 720p30 at most 1.35x the CPU of the single-layer
# sender): one H264Sender (release, plain RTP to a loopback sink) fed the same 720p frames as run-encoder.sh (ffmpeg
# testsrc2, 300 frames), single thread per encoder, in three configurations:
#   single   1 layer 1280x720 at 2.5 Mbit/s (the reference)
#   simul    3 layers q/h/f 320x180, 640x360, 1280x720 at 3.2 Mbit/s (150k/500k/2.5M)
#   single32 1 layer 1280x720 at 3.2 Mbit/s (the same operator bitrate as simul)
# paced: at 30 fps in real time, the process CPU per second of video (share of one core); unpaced: as fast as the
# encoders take the frames, the process CPU per input frame. Each round runs the three in turn (interleaved, so
# machine load falls on all alike); the lowest CPU of each is compared.
# Usage: Tests/Benchmarks/run-simulcast.sh [rounds]   (default 3; MODES="paced unpaced" by default, FRAMES=300,
#        EXTRA="--no-denoise" passes options to every run)
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-3}
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "rounds must be a positive integer, got '$ROUNDS'" >&2; exit 2; }
MODES=${MODES:-paced unpaced}
FRAMES=${FRAMES:-300}
EXTRA=${EXTRA:-}
TARGET=1.35
mkdir -p out
Y4M=out/testsrc2-1280x720-300.y4m
command -v ffmpeg >/dev/null || { echo "ffmpeg is required: apt-get install ffmpeg" >&2; exit 1; }
if [ ! -s "$Y4M" ]; then
    ffmpeg -v error -y -f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v 300 -pix_fmt yuv420p "$Y4M"
fi
swift build -c release --product SimulcastBench >/dev/null
BIN=$(swift build -c release --show-bin-path)/SimulcastBench

CONFIGS="single simul single32"
declare -A ARGS=([single]="--layers 1 --bitrate 2500000" [simul]="--layers 3 --bitrate 3200000"
                 [single32]="--layers 1 --bitrate 3200000")
declare -A LABEL=([single]="single 720p 2.5M" [simul]="simulcast 3 layers 3.2M" [single32]="single 720p 3.2M")
field() { grep -o "$1=[^ ]*" | head -1 | cut -d= -f2-; }
declare -A BEST BEST_OUT ALL
for round in $(seq 1 "$ROUNDS"); do
    for mode in $MODES; do
        flag=""; metric=cpu_per_s; unit="core"
        if [ "$mode" = unpaced ]; then flag="--unpaced"; metric=cpu_ms_per_frame; unit="ms/frame"; fi
        summary="round $round $mode ($metric, load $(cut -d" " -f1 /proc/loadavg)):"
        for config in $CONFIGS; do
            # shellcheck disable=SC2086
            output=$("$BIN" ${ARGS[$config]} --frames "$FRAMES" --y4m "$Y4M" $flag $EXTRA --threads-report 2>/dev/null)
            value=$(grep '^cpu_per_s=' <<<"$output" | field "$metric")
            summary+="  $config $value"
            key="$mode/$config"
            ALL[$key]+="$value "
            if [ -z "${BEST[$key]:-}" ] || awk -v a="$value" -v b="${BEST[$key]}" 'BEGIN { exit !(a < b) }'; then
                BEST[$key]=$value; BEST_OUT[$key]=$output
            fi
        done
        echo "$summary"
    done
done

echo
echo "best of $ROUNDS (720p testsrc2, $FRAMES frames, 1 thread per encoder, plain RTP to a loopback sink${EXTRA:+, $EXTRA}):"
for mode in $MODES; do
    for config in $CONFIGS; do
        key="$mode/$config"; line=$(grep '^cpu_per_s=' <<<"${BEST_OUT[$key]}")
        printf '%-7s %-24s cpu %s core (%s ms/frame), %s fps, sent %s, skipped %s, dropped %s, streams %s  (all rounds: %s)\n' \
            "$mode" "${LABEL[$config]}" "$(field cpu_per_s <<<"$line")" "$(field cpu_ms_per_frame <<<"$line")" \
            "$(field fps <<<"$line")" "$(field sent <<<"$line")" "$(field skipped <<<"$line")" \
            "$(field dropped <<<"$line")" "$(field streams <<<"$line")" "${ALL[$key]% }"
        grep '^thread ' <<<"${BEST_OUT[$key]}" | grep -v 'sink (not counted)' | sed 's/^/          /' || true
    done
done
echo
for mode in $MODES; do
    for reference in single single32; do
        awk -v mode="$mode" -v ref="${LABEL[$reference]}" -v x="${BEST[$mode/simul]}" -v base="${BEST[$mode/$reference]}" \
            -v target="$TARGET" 'BEGIN {
            r = x / base
            printf "ratio %s: simulcast / %s = %.3f (target <= %.2f: %s)\n", mode, ref, r, target,
                   (r <= target ? "met" : "NOT met") }'
    done
done
