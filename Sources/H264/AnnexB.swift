/// Annex-B byte streams (ITU-T H.264 Annex B): NAL units separated by 3-byte (`00 00 01`) or 4-byte (`00 00 00 01`)
/// start codes, possibly followed by `trailing_zero_8bits`.
public enum AnnexB {
    /// The 4-byte start code this package writes.
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
    /// - Parameter buffer: the stream.
    /// - Returns: the NAL units in order, with offsets into `buffer`.
    public static func nalUnitLocations(in buffer: UnsafeRawBufferPointer) -> [NALUnitLocation] {
        var result: [NALUnitLocation] = []
        let count = buffer.count
        guard count >= 3, let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return result }
        var nalStart = -1
        var i = 0
        // Skip-scan: a start code's `01` is preceded by two zeros; look at every third byte for a candidate zero.
        while i + 2 < count {
            let b2 = base[i + 2]
            if b2 > 1 {
                i += 3
                continue
            }
            if b2 == 1 && base[i] == 0 && base[i + 1] == 0 {
                // Start code 00 00 01 at i.
                if nalStart >= 0 {
                    append(&result, base, start: nalStart, end: i)
                }
                nalStart = i + 3
                i += 3
                continue
            }
            i += 1
        }
        if nalStart >= 0 {
            append(&result, base, start: nalStart, end: count)
        }
        return result
    }

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
            out.append(contentsOf: startCode)
            out.append(contentsOf: nal)
        }
        return out
    }
}
