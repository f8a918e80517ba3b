#!/usr/bin/env bash
# Temporal layers' encoder CPU cost (issue 23 target: L1T3 at most 1.05x L1T1): H264Encoder (Swift, release) on the
# same 720p frames as run-encoder.sh (ffmpeg testsrc2, 300 frames), single thread, CBR 1.5 Mbit/s, Constrained
# Baseline 3.1, with 1, 2 and 3 temporal layers. Each round runs L1T1, L1T2, L1T3 in turn (interleaved, so machine
# load falls on all three alike); the lowest process CPU time per frame of each mode is compared.
# Usage: Tests/Benchmarks/run-temporal-layers.sh [rounds]   (default 5)
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-5}
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "rounds must be a positive integer, got '$ROUNDS'" >&2; exit 2; }
FRAMES=300
TARGET=1.05
mkdir -p out
Y4M=out/testsrc2-1280x720-300.y4m
command -v ffmpeg >/dev/null || { echo "ffmpeg is required: apt-get install ffmpeg" >&2; exit 1; }
if [ ! -s "$Y4M" ]; then
    ffmpeg -v error -y -f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v "$FRAMES" -pix_fmt yuv420p "$Y4M"
fi
swift build -c release --product EncoderBench >/dev/null
BIN=$(swift build -c release --show-bin-path)/EncoderBench

field() { grep -o "$1=[^ ]*" | head -1 | cut -d= -f2; }
declare -A BEST_CPU BEST_LINE ALL_CPU
for round in $(seq 1 "$ROUNDS"); do
    summary="round $round:"
    for t in 1 2 3; do
        line=$("$BIN" --y4m "$Y4M" --frames "$FRAMES" --runs 1 --temporal-layers "$t" | grep '^fps=')
        cpu=$(field cpu_ms_per_frame <<<"$line")
        summary+="  L1T$t $cpu ms"
        ALL_CPU[$t]+="$cpu "
        if [ -z "${BEST_CPU[$t]:-}" ] || awk -v a="$cpu" -v b="${BEST_CPU[$t]}" 'BEGIN { exit !(a < b) }'; then
            BEST_CPU[$t]=$cpu; BEST_LINE[$t]=$line
        fi
    done
    echo "$summary"
done

echo "best of $ROUNDS (720p testsrc2, $FRAMES frames, CBR 1.5M, 1 thread; CPU = process CPU time per frame):"
for t in 1 2 3; do
    line=${BEST_LINE[$t]}
    printf 'L1T%d: cpu %s ms/frame, %s fps, %s kbit/s, %s bytes, skipped %s, %s, mean QP %s  (all rounds: %s)\n' \
        "$t" "$(field cpu_ms_per_frame <<<"$line")" "$(field fps <<<"$line")" "$(field kbps <<<"$line")" \
        "$(field bytes <<<"$line")" "$(field skipped <<<"$line")" "$(field layer_frames <<<"$line")" \
        "$(field mean_qp <<<"$line")" "${ALL_CPU[$t]% }"
done
for t in 2 3; do
    awk -v n="$t" -v x="${BEST_CPU[$t]}" -v base="${BEST_CPU[1]}" -v target="$TARGET" 'BEGIN {
        r = x / base
        printf "ratio L1T%d/L1T1: %.3f (target <= %.2f: %s)\n", n, r, target, (r <= target ? "met" : "NOT met") }'
done
