extension AnnexB {
    /// Length of `start_code_prefix_one_3bytes` (H.264 B.1.1), the part of a start code every NAL unit has.
    static let startCodePrefixLength = 3

    /// Splits an Annex-B stream into access units, checking each NAL unit on the way.
    ///
    /// A new access unit starts at an access unit delimiter, or, once the current one holds a picture, at an SPS,
    /// PPS, SEI, SPS extension or prefix NAL unit (types 13...18) or at a slice whose `first_mb_in_slice` is 0 — the
    /// simplified form of H.264 7.4.1.2.3 that ffmpeg's parser also uses (streams with arbitrary slice order are not
    /// split by picture). Parameter sets and SEI therefore belong to the picture that follows them.
    /// - Parameter bytes: the stream.
    /// - Returns: the access units in order.
    /// - Throws: ``H264Error/noNALUnits`` for a stream with no NAL unit,
    ///   ``H264Error/dataBeforeFirstStartCode(offset:)``, ``H264Error/forbiddenZeroBit(offset:)``, and slice-header
    ///   errors; offsets are bytes of `bytes`.
    public static func accessUnits(in bytes: [UInt8]) throws(H264Error) -> [AccessUnit] {
        let locations = nalUnitLocations(in: bytes)
        guard let first = locations.first else {
            if let nonZero = bytes.firstIndex(where: { $0 != 0 }) { throw .dataBeforeFirstStartCode(offset: nonZero) }
            throw .noNALUnits
        }
        // Only leading_zero_8bits may precede the first start code (H.264 B.1.1).
        if let nonZero = bytes[0..<max(0, first.offset - startCodePrefixLength)].firstIndex(where: { $0 != 0 }) {
            throw .dataBeforeFirstStartCode(offset: nonZero)
        }

        var units: [AccessUnit] = []
        var current: [NALUnitLocation] = []
        var hasPicture = false
        var start = 0
        func close(before location: NALUnitLocation) {
            guard !current.isEmpty else { return }
            let end = current[current.count - 1].range.upperBound
            // The next access unit starts at its start code; trailing zeros stay with the unit that ends.
            var next = location.offset - startCodePrefixLength
            if next > end && bytes[next - 1] == 0 { next -= 1 }
            units.append(AccessUnit(byteRange: start..<next, nalUnits: current))
            start = next
            current = []
            hasPicture = false
        }
        for location in locations {
            guard !location.header.forbiddenZeroBit else { throw .forbiddenZeroBit(offset: location.offset) }
            switch location.type.rawValue {
            case NALUnitType.accessUnitDelimiter.rawValue:
                close(before: location)
            case NALUnitType.sei.rawValue, NALUnitType.sps.rawValue, NALUnitType.pps.rawValue, 13...18:
                if hasPicture { close(before: location) }
            case NALUnitType.nonIDRSlice.rawValue, NALUnitType.idrSlice.rawValue, NALUnitType.slicePartitionA.rawValue:
                let header: SliceHeader
                do {
                    header = try SliceHeader(nalUnit: bytes[location.range])
                } catch {
                    throw error.shifted(by: location.offset)
                }
                if header.firstMbInSlice == 0 && hasPicture { close(before: location) }
                hasPicture = true
            default:
                break  // partitions B/C, end of sequence/stream, filler and others stay with the current picture
            }
            current.append(location)
        }
        if !current.isEmpty {
            units.append(AccessUnit(byteRange: start..<bytes.count, nalUnits: current))
        }
        return units
    }
}
