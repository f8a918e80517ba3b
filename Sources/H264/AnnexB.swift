/// Annex-B byte streams (ITU-T H.264 Annex B): NAL units separated by 3-byte (`00 00 01`) or 4-byte (`00 00 00 01`)
/// start codes, possibly followed by `trailing_zero_8bits`.
public enum AnnexB {
    /// The 4-byte start code this package writes (`zero_byte` + `start_code_prefix_one_3bytes`, H.264 B.1.1).
    public static let startCode: [UInt8] = [0, 0, 0, 1]

    /// Finds the NAL units of an Annex-B stream without copying.
    ///
    /// Bytes before the first start code are ignored; zero bytes that end a NAL (trailing_zero_8bits, or the leading
    /// zero of a 4-byte start code) are not part of it. Empty NAL units (two start codes in a row) are skipped.
    /// - Parameter bytes: the stream.
    /// - Returns: the NAL units in order, with offsets into `bytes`.
    public static func nalUnitLocations(in bytes: [UInt8]) -> [NALUnitLocation] {
        bytes.withUnsafeBufferPointer { nalUnitLocations(in: UnsafeRawBufferPointer($0)) }
    }

    /// Finds the NAL units of an Annex-B stream held in raw memory.
    ///
    /// Why it is fast: a start code begins with a zero byte, and inside NAL units zero bytes are rare (emulation
    /// prevention forbids `00 00 0x`, x <= 3), so the scan tests eight bytes at a time for a zero byte and only
    /// looks closer at words that hold one.
    /// - Parameter buffer: the stream.
    /// - Returns: the NAL units in order, with offsets into `buffer`.
    public static func nalUnitLocations(in buffer: UnsafeRawBufferPointer) -> [NALUnitLocation] {
        var result: [NALUnitLocation] = []
        let count = buffer.count
        guard count >= 3, let raw = buffer.baseAddress else { return result }
        let base = raw.assumingMemoryBound(to: UInt8.self)
        var nalStart = -1
        var i = 0
        // Invariant: every start code beginning before `i` has been handled.
        while i + 8 <= count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            var zeros = (word &- lowBits) & ~word & highBits
            if zeros == 0 {
                i += 8
                continue
            }
            // Every zero byte of the word is flagged, so testing each flagged position finds every start code that
            // begins in the word. A 01 byte right after a zero byte may be flagged too (a borrow artefact): hence the
            // check of base[j] itself.
            var next = i  // positions below `next` lie inside a start code already taken
            while zeros != 0 {
                let j = i + zeros.trailingZeroBitCount >> 3
                zeros &= zeros &- 1
                if j >= next && j + 2 < count && base[j] == 0 && base[j + 1] == 0 && base[j + 2] == 1 {
                    if nalStart >= 0 { append(&result, base, start: nalStart, end: j) }
                    nalStart = j + 3
                    next = j + 3
                }
            }
            i = max(i + 8, next)
        }
        while i + 2 < count {
            if base[i] == 0 && base[i + 1] == 0 && base[i + 2] == 1 {
                if nalStart >= 0 { append(&result, base, start: nalStart, end: i) }
                nalStart = i + 3
                i += 3
            } else {
                i += 1
            }
        }
        if nalStart >= 0 {
            append(&result, base, start: nalStart, end: count)
        }
        return result
    }

    /// `0x01` in every byte of a word (the SWAR zero-byte test, "Bit Twiddling Hacks: haszero").
    private static let lowBits: UInt64 = 0x0101_0101_0101_0101
    /// `0x80` in every byte of a word.
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    @inline(__always)
    private static func append(_ result: inout [NALUnitLocation], _ base: UnsafePointer<UInt8>, start: Int, end: Int) {
        var e = end
        while e > start && base[e - 1] == 0 { e -= 1 }
        guard e > start else { return }
        result.append(NALUnitLocation(offset: start, length: e - start, header: NALUnitHeader(byte: base[start])))
    }

    /// Returns the NAL units of an Annex-B stream as slices of the input (no copies).
    /// - Parameter bytes: the stream.
    public static func nalUnits(in bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        nalUnitLocations(in: bytes).map { bytes[$0.range] }
    }

    /// Writes NAL units as an Annex-B stream with 4-byte start codes.
    /// - Parameter nalUnits: the NAL units, each starting with its header byte.
    /// - Returns: the stream.
    public static func serialize<S: Collection>(_ nalUnits: [S]) -> [UInt8] where S.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(nalUnits.reduce(0) { $0 + $1.count + 4 })
        for nal in nalUnits {
            append(nal, to: &out)
        }
        return out
    }

    /// Appends one NAL unit with a 4-byte start code to a caller's buffer.
    /// - Parameters:
    ///   - nalUnit: the NAL unit, starting with its header byte.
    ///   - buffer: where to append.
    public static func append<S: Collection>(_ nalUnit: S, to buffer: inout [UInt8]) where S.Element == UInt8 {
        buffer.append(contentsOf: startCode)
        buffer.append(contentsOf: nalUnit)
    }
}
