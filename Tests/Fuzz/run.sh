#!/usr/bin/env bash
# Builds the libFuzzer harness (Tests/Fuzz/Harness) against the pure modules with the toolchain's
# `-sanitize=fuzzer,address`, then runs every target (or the ones named) for SECONDS each, seeded from
# Tests/Fuzz/Seeds/<target> and replaying Tests/Fuzz/Regressions/<target> first. Fails on the first crash, leak,
# timeout or broken property, leaving the input under .build/fuzz/artifacts/<target>/.
#
#   bash Tests/Fuzz/run.sh 20            # CI: about 20 s per target
#   bash Tests/Fuzz/run.sh 300 rtcp sdp  # longer runs of some targets
#
# The corpus grown by a run stays in .build/fuzz/corpus/<target> and is reused by the next run.
set -euo pipefail

SECONDS_PER_TARGET="${1:-20}"
shift || true
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
FUZZ="$ROOT/Tests/Fuzz"
OUT="$ROOT/.build/fuzz"
ALL_TARGETS=(rtp rtcp depacketizer annexb parametersets sdp y4m json stun jsep jsep-formats link-header turn rtp-extensions sdpfrag flexfec dependency-descriptor simulcast srtp)
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL_TARGETS[@]}")

case "$SECONDS_PER_TARGET" in
    ''|*[!0-9]*) echo "usage: $0 SECONDS [target...] (targets: ${ALL_TARGETS[*]})" >&2; exit 2 ;;
esac

mkdir -p "$OUT/modules"
FLAGS=(-O -parse-as-library -package-name rtc_h264 -sanitize=fuzzer,address -swift-version 6 -I "$OUT/modules" -L "$OUT/modules")

# One static library and module per pure module, instrumented for coverage; only the Y4M files of Video (the rest
# of Video needs libyuv and is not an input parser).
build_module() {
    local name="$1"; shift
    swiftc "${FLAGS[@]}" -wmo -module-name "$name" -emit-module -emit-module-path "$OUT/modules/$name.swiftmodule" \
        -emit-library -static -o "$OUT/modules/lib$name.a" "$@" 2> >(grep -v "ld.gold: warning" >&2)
}

stamp="$OUT/build.stamp"
CRYPTO="$ROOT/Sources/CSRTPCrypto/include"
# The WHIP client's Link header parser and the ICE servers it reads (ICEServer itself is in WebRTC; pure; the rest
# of WHIP needs NIO and the sender).
WHIP_PURE=("$ROOT"/Sources/WHIP/{LinkValue,LinkHeaderParse,LinkHeader,ICEServerLinks}.swift)
sources=("$ROOT"/Sources/MediaTime/*.swift "$ROOT"/Sources/H264/*.swift "$ROOT"/Sources/RTP/*.swift "$ROOT"/Sources/SDP/*.swift
         "$ROOT"/Sources/Video/{Y4MHeader,Y4MError,Y4MReader,FileDescriptorIO,I420Frame,VideoError}.swift
         "$ROOT"/Sources/{STUN,TURN,SRTP,DTLS,WebRTC}/*.swift "$ROOT"/Sources/CSRTPCrypto/srtp_openssl_crypto.c "$ROOT"/Sources/Codec/{RateParser,DegradationPreference,UnknownDegradationPreferenceError}.swift
         "$ROOT"/Sources/Control/{ControlCommand,ControlRequestParser}.swift "${WHIP_PURE[@]}" "$FUZZ"/Harness/*.swift "$0")
if [ ! -x "$OUT/rtc-fuzz" ] || [ -n "$(find "${sources[@]}" -newer "$stamp" 2>/dev/null | head -1)" ]; then
    echo "building the fuzz harness in $OUT"
    build_module MediaTime "$ROOT"/Sources/MediaTime/*.swift
    build_module H264 "$ROOT"/Sources/H264/*.swift
    build_module RTP "$ROOT"/Sources/RTP/*.swift
    build_module SDP "$ROOT"/Sources/SDP/*.swift
    build_module Video "$ROOT"/Sources/Video/{Y4MHeader,Y4MError,Y4MReader,FileDescriptorIO,I420Frame,VideoError}.swift
    # STUN verifies MESSAGE-INTEGRITY with OpenSSL's HMAC (not instrumented; the Swift parser is).
    build_module STUN -I "$ROOT/Sources/COpenSSL" "$ROOT"/Sources/STUN/*.swift
    build_module TURN -I "$ROOT/Sources/COpenSSL" "$ROOT"/Sources/TURN/*.swift
    # The WebRTC offer/answer code and what it imports (SRTP and DTLS own libsrtp2 and OpenSSL handles).
    # libsrtp2's crypto on OpenSSL (CSRTPCrypto, C): compiled as it ships, linked into the harness.
    clang -O2 -I "$CRYPTO" -c -o "$OUT/CSRTPCrypto.o" "$ROOT/Sources/CSRTPCrypto/srtp_openssl_crypto.c"
    build_module SRTP -I "$ROOT/Sources/CSRTP" -I "$CRYPTO" "$ROOT"/Sources/SRTP/*.swift
    build_module DTLS -I "$ROOT/Sources/COpenSSL" -I "$ROOT/Sources/CSRTP" -I "$CRYPTO" "$ROOT"/Sources/DTLS/*.swift
    build_module WebRTC -I "$ROOT/Sources/COpenSSL" -I "$ROOT/Sources/CSRTP" -I "$CRYPTO" "$ROOT"/Sources/WebRTC/*.swift
    # The control endpoint's request parser as it ships (its NIO server is not an input parser), and the Codec files
    # it uses (the rate parser and the degradation preference names; the rest of Codec needs OpenH264).
    build_module Codec "$ROOT"/Sources/Codec/{RateParser,DegradationPreference,UnknownDegradationPreferenceError}.swift
    build_module Control "$ROOT"/Sources/Control/{ControlCommand,ControlRequestParser}.swift
    build_module WHIP -I "$ROOT/Sources/COpenSSL" -I "$ROOT/Sources/CSRTP" -I "$CRYPTO" "${WHIP_PURE[@]}"
    swiftc "${FLAGS[@]}" -I "$ROOT/Sources/COpenSSL" -I "$ROOT/Sources/CSRTP" -I "$CRYPTO" -module-name RTCFuzz \
        "$FUZZ"/Harness/*.swift "$OUT/CSRTPCrypto.o" -lWHIP -lControl -lCodec -lWebRTC -lDTLS -lSRTP -lTURN -lSTUN -lSDP -lVideo -lRTP -lH264 -lMediaTime -lssl -lcrypto -lsrtp2 \
        -o "$OUT/rtc-fuzz" 2> >(grep -v "ld.gold: warning" >&2)
    touch "$stamp"
fi

# A crash must reach libFuzzer, not the Swift backtracer (which would stall for its timeout).
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"

failed=()
for target in "${TARGETS[@]}"; do
    if [ ! -d "$FUZZ/Seeds/$target" ]; then echo "unknown target $target (targets: ${ALL_TARGETS[*]})" >&2; exit 2; fi
    corpus="$OUT/corpus/$target"
    artifacts="$OUT/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    log="$OUT/$target.log"
    # Past crashes first: each file under Regressions/<target> must now pass.
    if compgen -G "$FUZZ/Regressions/$target/*" > /dev/null; then
        if ! FUZZ_TARGET="$target" "$OUT/rtc-fuzz" -runs=0 "$FUZZ/Regressions/$target" > "$log.regressions" 2>&1; then
            echo "FAIL $target: a regression input crashes again (see $log.regressions)"
            tail -n 30 "$log.regressions"
            failed+=("$target")
            continue
        fi
    fi
    echo "fuzzing $target for ${SECONDS_PER_TARGET}s"
    max_len=4096
    [ "$target" = jsep ] && max_len=8192  # a browser's offer is about 5 KB
    if FUZZ_TARGET="$target" "$OUT/rtc-fuzz" "$corpus" "$FUZZ/Seeds/$target" \
        -max_total_time="$SECONDS_PER_TARGET" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/" -print_final_stats=1 > "$log" 2>&1; then
        echo "ok   $target: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') runs, $(ls "$corpus" | wc -l) corpus inputs"
    else
        echo "FAIL $target (log: $log; input: $(ls -t "$artifacts" | head -1))"
        grep -E "ERROR|Fatal error|fuzz property|SUMMARY" "$log" | head -5
        failed+=("$target")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing failed: ${failed[*]}"
    exit 1
fi
echo "fuzzing passed: ${TARGETS[*]}"
