/// Where one NAL unit lies inside a contiguous byte buffer: the range starts at the NAL header byte (after any start
/// code or length prefix) and ends after its last byte (trailing zero bytes excluded).
public struct NALUnitLocation: Hashable, Sendable {
    /// Offset of the NAL header byte in the buffer.
    public var offset: Int
    /// Number of bytes of the NAL unit, header included.
    public var length: Int
    /// The decoded header (type, NRI, forbidden bit).
    public var header: NALUnitHeader

    /// Creates a location.
    /// - Parameters:
    ///   - offset: offset of the header byte.
    ///   - length: NAL unit length in bytes (at least 1).
    ///   - header: the header found at `offset`.
    public init(offset: Int, length: Int, header: NALUnitHeader) {
        self.offset = offset
        self.length = length
        self.header = header
    }

    /// The NAL unit type.
    public var type: NALUnitType { header.type }

    /// The byte range in the buffer.
    public var range: Range<Int> { offset..<(offset + length) }
}
