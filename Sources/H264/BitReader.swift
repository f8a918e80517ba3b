/// Reads the bit-level syntax of an RBSP (H.264 7.2): fixed-length `u(n)`, flags, and Exp-Golomb `ue(v)`/`se(v)`
/// (H.264 9.1), most significant bit first.
///
/// Errors carry byte offsets into the RBSP being read; the parsers translate them back to NAL unit offsets.
public struct BitReader: Sendable {
    /// The bytes being read (emulation prevention already removed).
    public let bytes: [UInt8]
    /// The position of the next bit, counted from the first bit of `bytes`.
    public private(set) var bitPosition: Int

    /// The longest Exp-Golomb prefix whose value fits 32 bits (H.264 9.1 allows codeNum up to 2^32 - 2).
    public static let maxExpGolombLeadingZeros = 31

    /// Creates a reader at the first bit of `bytes`.
    /// - Parameter bytes: RBSP bytes.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.bitPosition = 0
    }

    /// Bits left to read.
    public var bitsRemaining: Int { bytes.count * 8 - bitPosition }

    /// Whether the next bit starts a byte.
    public var isByteAligned: Bool { bitPosition & 7 == 0 }

    /// The byte holding the next bit (for error offsets).
    public var byteOffset: Int { bitPosition >> 3 }

    /// Reads one bit as a flag (`u(1)`).
    /// - Throws: ``H264Error/endOfData(offset:)``.
    public mutating func flag() throws(H264Error) -> Bool {
        guard bitPosition < bytes.count * 8 else { throw .endOfData(offset: bytes.count) }
        let bit = bytes[bitPosition >> 3] >> (7 - UInt8(bitPosition & 7)) & 1
        bitPosition += 1
        return bit == 1
    }

    /// Reads `count` bits as an unsigned integer (`u(n)`).
    /// - Parameter count: 0...32 (from the syntax, never from the input: anything else is a bug and traps).
    /// - Throws: ``H264Error/endOfData(offset:)`` (the reader does not move).
    public mutating func bits(_ count: Int) throws(H264Error) -> UInt32 {
        precondition((0...32).contains(count), "u(n) reads at most 32 bits")
        guard count <= bitsRemaining else { throw .endOfData(offset: bytes.count) }
        var value: UInt64 = 0
        var left = count
        while left > 0 {
            let byte = bytes[bitPosition >> 3]
            let used = bitPosition & 7
            let take = min(8 - used, left)
            let chunk = (UInt64(byte) >> UInt64(8 - used - take)) & ((1 << UInt64(take)) - 1)
            value = value << UInt64(take) | chunk
            left -= take
            bitPosition += take
        }
        return UInt32(value)
    }

    /// Skips `count` bits.
    /// - Parameter count: bits to skip, at least 0 (a count comes from the syntax, never from the input; a negative
    ///   one is a bug and traps rather than moving the reader backwards).
    /// - Throws: ``H264Error/endOfData(offset:)`` (the reader does not move).
    public mutating func skip(_ count: Int) throws(H264Error) {
        precondition(count >= 0, "skip(n) needs n >= 0")
        guard count <= bitsRemaining else { throw .endOfData(offset: bytes.count) }
        bitPosition += count
    }

    /// Reads an unsigned Exp-Golomb code (`ue(v)`, H.264 9.1).
    /// - Returns: codeNum, 0...2^32 - 2.
    /// - Throws: ``H264Error/expGolombTooLong(offset:)`` for more than 31 leading zeros;
    ///   ``H264Error/endOfData(offset:)``.
    public mutating func ue() throws(H264Error) -> UInt32 {
        let start = byteOffset
        var leadingZeros = 0
        while try !flag() {
            leadingZeros += 1
            guard leadingZeros <= Self.maxExpGolombLeadingZeros else { throw .expGolombTooLong(offset: start) }
        }
        guard leadingZeros > 0 else { return 0 }
        let suffix = try bits(leadingZeros)
        return UInt32((UInt64(1) << UInt64(leadingZeros)) - 1 + UInt64(suffix))
    }

    /// Reads a signed Exp-Golomb code (`se(v)`, H.264 9.1.1): codeNum k maps to (-1)^(k+1) * Ceil(k / 2).
    /// - Returns: the signed value.
    /// - Throws: as ``ue()``.
    public mutating func se() throws(H264Error) -> Int32 {
        let k = try ue()
        let magnitude = Int32((UInt64(k) + 1) / 2)
        return k & 1 == 1 ? magnitude : -magnitude
    }

    /// Reads `ue(v)` and checks it against a range, as most syntax elements have one.
    /// - Parameters:
    ///   - field: the syntax element name, for the error.
    ///   - range: the allowed values.
    /// - Throws: ``H264Error/valueOutOfRange(offset:field:value:)``, or as ``ue()``.
    public mutating func ue(_ field: String, in range: ClosedRange<Int>) throws(H264Error) -> Int {
        let start = byteOffset
        let value = Int(try ue())
        guard range.contains(value) else { throw .valueOutOfRange(offset: start, field: field, value: value) }
        return value
    }

    /// Reads `se(v)` and checks it against a range.
    /// - Parameters:
    ///   - field: the syntax element name, for the error.
    ///   - range: the allowed values.
    /// - Throws: ``H264Error/valueOutOfRange(offset:field:value:)``, or as ``ue()``.
    public mutating func se(_ field: String, in range: ClosedRange<Int>) throws(H264Error) -> Int {
        let start = byteOffset
        let value = Int(try se())
        guard range.contains(value) else { throw .valueOutOfRange(offset: start, field: field, value: value) }
        return value
    }

    /// `more_rbsp_data()` (H.264 7.2): whether syntax remains before the `rbsp_stop_one_bit`, the last 1 bit of the
    /// RBSP (trailing zero bytes, such as `cabac_zero_word`s, are skipped).
    public func moreRBSPData() -> Bool {
        var last = bytes.count - 1
        while last >= 0 && bytes[last] == 0 { last -= 1 }
        guard last >= 0 else { return false }
        let stopBit = last * 8 + 7 - bytes[last].trailingZeroBitCount
        return bitPosition < stopBit
    }
}
