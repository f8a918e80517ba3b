/// Length-prefixed NAL units ("AVCC" form, ISO/IEC 14496-15 5.3.4.2): each NAL unit preceded by its length as a
/// big-endian integer of 1, 2 or 4 bytes (`lengthSizeMinusOne + 1` of the `avcC` record).
///
/// Conversions are byte-exact: AVCC -> Annex-B -> AVCC gives back the input, and so does Annex-B -> AVCC -> Annex-B
/// for a stream written with 4-byte start codes (the form ``AnnexB/serialize(_:)`` writes). One caveat from Annex B
/// itself: a NAL unit that ends in a zero byte (a `cabac_zero_word`) loses it in Annex-B form, where trailing zeros
/// cannot be told apart from `trailing_zero_8bits`.
public enum AVCC {
    /// The length field sizes ISO/IEC 14496-15 allows (`lengthSizeMinusOne` is 0, 1 or 3).
    public static let supportedLengthSizes: [Int] = [1, 2, 4]

    /// Finds the NAL units of a length-prefixed buffer without copying.
    /// - Parameters:
    ///   - bytes: the length-prefixed NAL units.
    ///   - lengthSize: the size of each length field: 1, 2 or 4.
    /// - Returns: the NAL units in order, with offsets into `bytes` (past their length field).
    /// - Throws: ``H264Error/unsupportedLengthSize(_:)``; ``H264Error/truncatedLengthPrefix(offset:lengthSize:available:)``
    ///   when the buffer ends inside a length field; ``H264Error/lengthOverrun(offset:length:available:)`` when a length
    ///   runs past the end; ``H264Error/zeroLength(offset:)``. Offsets point at the length field.
    public static func nalUnitLocations(in bytes: [UInt8], lengthSize: Int) throws(H264Error) -> [NALUnitLocation] {
        guard supportedLengthSizes.contains(lengthSize) else { throw .unsupportedLengthSize(lengthSize) }
        var result: [NALUnitLocation] = []
        var offset = 0
        let count = bytes.count
        while offset < count {
            let available = count - offset
            guard available >= lengthSize else {
                throw .truncatedLengthPrefix(offset: offset, lengthSize: lengthSize, available: available)
            }
            var length = 0
            for k in 0..<lengthSize {
                length = length << 8 | Int(bytes[offset + k])
            }
            guard length > 0 else { throw .zeroLength(offset: offset) }
            let start = offset + lengthSize
            guard length <= count - start else {
                throw .lengthOverrun(offset: offset, length: length, available: count - start)
            }
            result.append(NALUnitLocation(offset: start, length: length, header: NALUnitHeader(byte: bytes[start])))
            offset = start + length
        }
        return result
    }

    /// Returns the NAL units of a length-prefixed buffer as slices of it (no copies).
    /// - Parameters:
    ///   - bytes: the length-prefixed NAL units.
    ///   - lengthSize: 1, 2 or 4.
    /// - Throws: as ``nalUnitLocations(in:lengthSize:)``.
    public static func nalUnits(in bytes: [UInt8], lengthSize: Int) throws(H264Error) -> [ArraySlice<UInt8>] {
        try nalUnitLocations(in: bytes, lengthSize: lengthSize).map { bytes[$0.range] }
    }

    /// Converts length-prefixed NAL units to an Annex-B stream with 4-byte start codes.
    /// - Parameters:
    ///   - bytes: the length-prefixed NAL units.
    ///   - lengthSize: 1, 2 or 4.
    /// - Returns: the Annex-B stream.
    /// - Throws: as ``nalUnitLocations(in:lengthSize:)``.
    public static func toAnnexB(_ bytes: [UInt8], lengthSize: Int) throws(H264Error) -> [UInt8] {
        let locations = try nalUnitLocations(in: bytes, lengthSize: lengthSize)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + locations.count * (AnnexB.startCode.count - 1) + 3)
        for location in locations {
            AnnexB.append(bytes[location.range], to: &out)
        }
        return out
    }

    /// Converts an Annex-B stream to length-prefixed NAL units.
    /// - Parameters:
    ///   - bytes: the Annex-B stream (3- or 4-byte start codes).
    ///   - lengthSize: 1, 2 or 4.
    /// - Returns: the length-prefixed NAL units.
    /// - Throws: ``H264Error/unsupportedLengthSize(_:)``;
    ///   ``H264Error/nalUnitLengthNotRepresentable(index:length:lengthSize:)`` when a NAL unit is too long for the field.
    public static func fromAnnexB(_ bytes: [UInt8], lengthSize: Int) throws(H264Error) -> [UInt8] {
        guard supportedLengthSizes.contains(lengthSize) else { throw .unsupportedLengthSize(lengthSize) }
        let locations = AnnexB.nalUnitLocations(in: bytes)
        var out: [UInt8] = []
        out.reserveCapacity(locations.reduce(0) { $0 + $1.length + lengthSize })
        for (index, location) in locations.enumerated() {
            try append(bytes[location.range], index: index, lengthSize: lengthSize, to: &out)
        }
        return out
    }

    /// Appends one NAL unit with its length prefix to a caller's buffer.
    /// - Parameters:
    ///   - nalUnit: the NAL unit, header byte first.
    ///   - lengthSize: 1, 2 or 4.
    ///   - buffer: where to append.
    /// - Throws: ``H264Error/unsupportedLengthSize(_:)``, or
    ///   ``H264Error/nalUnitLengthNotRepresentable(index:length:lengthSize:)`` (index 0) for an empty or too long unit.
    public static func append<S: Collection>(
        _ nalUnit: S, lengthSize: Int, to buffer: inout [UInt8]
    ) throws(H264Error) where S.Element == UInt8 {
        guard supportedLengthSizes.contains(lengthSize) else { throw .unsupportedLengthSize(lengthSize) }
        try append(nalUnit, index: 0, lengthSize: lengthSize, to: &buffer)
    }

    private static func append<S: Collection>(
        _ nalUnit: S, index: Int, lengthSize: Int, to buffer: inout [UInt8]
    ) throws(H264Error) where S.Element == UInt8 {
        let length = nalUnit.count
        guard length > 0, UInt64(length) >> (8 * UInt64(lengthSize)) == 0 else {
            throw .nalUnitLengthNotRepresentable(index: index, length: length, lengthSize: lengthSize)
        }
        for k in stride(from: lengthSize - 1, through: 0, by: -1) {
            buffer.append(UInt8(truncatingIfNeeded: length >> (8 * k)))
        }
        buffer.append(contentsOf: nalUnit)
    }
}
