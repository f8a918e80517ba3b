#!/usr/bin/env bash
# Issue 4 benchmark: packetize + protect 1200-byte RTP packets through our SRTP layer (Sources/SRTPBench) and
# through a plain C loop calling srtp_protect (C/srtp_loop.c), side by side. Counts heap allocations per packet with
# an LD_PRELOAD shim (C/malloc_count.c). Target: Swift >= 90% of the C packet rate; our layer adds 0 allocations.
# Usage: Tests/Benchmarks/run-srtp.sh [packets]   (default 100000)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
packets="${1:-100000}"
rounds="${ROUNDS:-3}"   # C and Swift alternate this many times; the best rate of each is kept (shared machines)
out="$here/.build/c"
mkdir -p "$out"

pkg-config --exists libsrtp2 || { echo "libsrtp2 not found: apt-get install libsrtp2-dev pkg-config" >&2; exit 1; }
gcc -O2 -Wall -Wextra -shared -fPIC -o "$out/malloc_count.so" "$here/C/malloc_count.c"
gcc -O2 -Wall -Wextra -o "$out/srtp_loop" "$here/C/srtp_loop.c" $(pkg-config --cflags --libs libsrtp2)
(cd "$here" && swift build -c release --product SRTPBench >/dev/null)
bench="$(cd "$here" && swift build -c release --show-bin-path)/SRTPBench"

echo "packets per run: $packets (1200-byte RTP packets after 1000 warm-up packets; best of 3 runs x $rounds rounds)"
results="$( for _ in $(seq "$rounds"); do
                LD_PRELOAD="$out/malloc_count.so" "$out/srtp_loop" "$packets"
                LD_PRELOAD="$out/malloc_count.so" "$bench" "$packets"
            done | grep '^RESULT' )"
echo "$results" | awk '
    $2 == "C"     { if ($4 > c_rate[$3]) c_rate[$3] = $4; c_alloc[$3] = $5; c_sum[$3] = $7 }
    $2 == "Swift" { f = $6; sub(/^\(/, "", f); sub(/,$/, "", f); k = $3 " " f
                    if (!(k in index_of)) { n++; index_of[k] = n; suite[n] = $3; form[n] = f }
                    i = index_of[k]; if ($4 > rate[i]) rate[i] = $4; alloc[i] = $5; sum[i] = $8 }
    END {
        printf "%-24s %-30s %12s %12s %7s %10s %10s %8s %6s\n", "suite", "Swift buffer form", "C pkt/s",
               "Swift pkt/s", "ratio", "C alloc/p", "Sw alloc/p", "added", "bytes"
        for (i = 1; i <= n; i++) {
            s = suite[i]
            printf "%-24s %-30s %12d %12d %6.1f%% %10s %10s %8.3f %6s\n", s, form[i], c_rate[s], rate[i],
                   100 * rate[i] / c_rate[s], c_alloc[s], alloc[i], alloc[i] - c_alloc[s],
                   (sum[i] == c_sum[s] ? "same" : "DIFFER")
        }
    }'
echo "ratio = Swift / C packet rate (target >= 90%); added = allocations per packet our layer adds (target 0)."
echo "bytes = whether both wrote the same SRTP output (checksum of every packet's last byte)."
echo "The C column's allocations happen inside libsrtp and NSS (Debian builds libsrtp2 with NSS)."
