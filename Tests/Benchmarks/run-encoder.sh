#!/usr/bin/env bash
# Encoder benchmark: our H264Encoder (Swift, release) against a minimal C loop on OpenH264 (gcc -O2), same 720p
# frames (ffmpeg testsrc2), same parameters: single thread, CBR 1.5 Mbit/s, Constrained Baseline 3.1.
# Usage: Tests/Benchmarks/run-encoder.sh [rounds]   (each round runs C then Swift; the best of each is compared)
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-3}
FRAMES=300
mkdir -p out
Y4M=out/testsrc2-1280x720-300.y4m
command -v ffmpeg >/dev/null || { echo "ffmpeg is required: apt-get install ffmpeg" >&2; exit 1; }
if [ ! -s "$Y4M" ]; then
    ffmpeg -v error -y -f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v "$FRAMES" -pix_fmt yuv420p "$Y4M"
fi
gcc -O2 -o out/encode_loop C/encode_loop.c $(pkg-config --cflags --libs openh264)
swift build -c release --product EncoderBench >/dev/null
SWIFT_BIN=$(swift build -c release --show-bin-path)/EncoderBench

best() { sort -t= -k2 -g | tail -1 | cut -d= -f2; }
C_RESULTS=""; SWIFT_RESULTS=""
for round in $(seq 1 "$ROUNDS"); do
    c=$(out/encode_loop "$Y4M" 1 | grep -o 'fps=[0-9.]*')
    s=$("$SWIFT_BIN" --y4m "$Y4M" --frames "$FRAMES" --runs 1 | grep -o '^fps=[0-9.]*')
    echo "round $round: C $c   Swift $s"
    C_RESULTS+="$c"$'\n'; SWIFT_RESULTS+="$s"$'\n'
done
C_FPS=$(printf '%s' "$C_RESULTS" | best)
SWIFT_FPS=$(printf '%s' "$SWIFT_RESULTS" | best)
echo "details (last run):"
out/encode_loop "$Y4M" 1 | sed 's/^/  C:     /'
"$SWIFT_BIN" --y4m "$Y4M" --frames "$FRAMES" --runs 1 | sed 's/^/  Swift: /'
awk -v c="$C_FPS" -v s="$SWIFT_FPS" 'BEGIN {
    printf "encoder 720p CBR 1.5M, 1 thread: C %.1f fps, Swift %.1f fps, ratio %.1f%% (target >= 97%%)\n", c, s, 100 * s / c }'
