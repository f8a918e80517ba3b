// Annex-B indexing throughput: AnnexB.nalUnitLocations(in:) over multi-megabyte streams, against a plain
// byte-by-byte scan (the definition in H.264 B.2) as the reference. Run with Tests/Benchmarks/run-annexb.sh (release).
import H264

/// A deterministic pseudo-random source (PCG-style LCG), so every run indexes the same bytes.
struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 29
    }
}

/// Builds an Annex-B stream of about `size` bytes: NAL units of 100 B ... 64 KB whose payload bytes are zero with
/// probability 1/`zeroOneIn` (1/256 is what CABAC/CAVLC slice data looks like), escaped with emulation prevention,
/// behind a mix of 3- and 4-byte start codes.
func makeStream(size: Int, zeroOneIn: UInt64, seed: UInt64) -> (bytes: [UInt8], nalCount: Int) {
    var generator = Generator(state: seed)
    var stream: [UInt8] = []
    stream.reserveCapacity(size + 70_000)
    var count = 0
    while stream.count < size {
        let length = 100 + Int(generator.next() % 65_436)
        var payload: [UInt8] = [0x41]
        payload.reserveCapacity(length)
        for _ in 1..<length {
            let r = generator.next()
            payload.append(r % zeroOneIn == 0 ? 0 : UInt8(truncatingIfNeeded: r >> 8) | 1)
        }
        payload[payload.count - 1] = 0x80  // rbsp_stop_one_bit
        stream.append(contentsOf: generator.next() & 1 == 0 ? [0, 0, 0, 1] : [0, 0, 1])
        stream.append(contentsOf: RBSP.addingEmulationPrevention(payload))
        count += 1
    }
    return (stream, count)
}

/// The reference: every position tested for `00 00 01`, trailing zeros trimmed.
func byteByByteScan(_ b: UnsafeBufferPointer<UInt8>) -> [NALUnitLocation] {
    var result: [NALUnitLocation] = []
    var start = -1
    var i = 0
    let n = b.count
    func close(_ end: Int) {
        var e = end
        while e > start && b[e - 1] == 0 { e -= 1 }
        if e > start { result.append(NALUnitLocation(offset: start, length: e - start, header: NALUnitHeader(byte: b[start]))) }
    }
    while i + 2 < n {
        if b[i] == 0 && b[i + 1] == 0 && b[i + 2] == 1 {
            if start >= 0 { close(i) }
            start = i + 3
            i += 3
        } else {
            i += 1
        }
    }
    if start >= 0 { close(n) }
    return result
}

/// Best-of-`rounds` throughput in GB/s (10^9 bytes per second) of `body` over `bytes`.
func measure(_ bytes: [UInt8], rounds: Int, _ body: ([UInt8]) -> Int) -> (gbps: Double, result: Int) {
    let clock = ContinuousClock()
    var best = Duration.seconds(1_000)
    var result = 0
    for _ in 0..<rounds {
        let elapsed = clock.measure { result = body(bytes) }
        best = min(best, elapsed)
    }
    let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
    return (Double(bytes.count) / seconds / 1e9, result)
}

let size = 32 << 20
var allFast = true
for (label, zeroOneIn) in [("slice-like data (1 zero byte in 256)", UInt64(256)), ("zero-dense data (1 in 8)", 8)] {
    let (stream, nalCount) = makeStream(size: size, zeroOneIn: zeroOneIn, seed: 42)
    let ours = measure(stream, rounds: 15) { AnnexB.nalUnitLocations(in: $0).count }
    let reference = measure(stream, rounds: 15) { bytes in bytes.withUnsafeBufferPointer { byteByByteScan($0).count } }
    let same = AnnexB.nalUnitLocations(in: stream) == stream.withUnsafeBufferPointer { byteByByteScan($0) }
    precondition(same && ours.result == nalCount, "scanners disagree")
    print("\(label): \(stream.count) bytes, \(nalCount) NAL units")
    print("  AnnexB.nalUnitLocations  \(String(format2: ours.gbps)) GB/s")
    print("  byte-by-byte reference   \(String(format2: reference.gbps)) GB/s")
    print("  ratio                    \(String(format2: ours.gbps / reference.gbps))x")
    if zeroOneIn == 256 && ours.gbps < 1.0 { allFast = false }
}
print(allFast ? "PASS: >= 1 GB/s on slice-like data" : "FAIL: below 1 GB/s on slice-like data")

extension String {
    /// Two decimals without Foundation.
    init(format2 value: Double) {
        let hundredths = Int(value * 100 + 0.5)
        let fraction = hundredths % 100
        self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
