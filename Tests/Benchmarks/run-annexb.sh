#!/usr/bin/env bash
# Annex-B indexing throughput (issue 2): AnnexB.nalUnitLocations(in:) over 32 MiB streams, release build, against a
# byte-by-byte scan. The requirement is at least 1 GB/s on slice-like data; the script exits 1 below that.
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product AnnexBBench
out=$(.build/release/AnnexBBench)
echo "$out"
grep -q '^PASS' <<<"$out"
