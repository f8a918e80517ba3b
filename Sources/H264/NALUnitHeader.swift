/// The one-byte NAL unit header (ITU-T H.264 section 7.3.1, RFC 6184 section 1.3):
///
/// ```
/// +---------------+
/// |0|1|2|3|4|5|6|7|
/// +-+-+-+-+-+-+-+-+
/// |F|NRI|  Type   |
/// +---------------+
/// ```
public struct NALUnitHeader: Hashable, Sendable {
    /// `forbidden_zero_bit`; a conforming stream has it clear.
    public var forbiddenZeroBit: Bool
    /// `nal_ref_idc` (0...3): 0 means the NAL is not used for reference.
    public var nalRefIdc: UInt8
    /// `nal_unit_type`.
    public var type: NALUnitType

    /// Creates a header from its fields.
    /// - Parameters:
    ///   - forbiddenZeroBit: the F bit.
    ///   - nalRefIdc: NRI, 0...3 (higher bits ignored).
    ///   - type: the NAL unit type.
    public init(forbiddenZeroBit: Bool = false, nalRefIdc: UInt8, type: NALUnitType) {
        self.forbiddenZeroBit = forbiddenZeroBit
        self.nalRefIdc = nalRefIdc & 0x03
        self.type = type
    }

    /// Decodes a header byte.
    /// - Parameter byte: the first byte of a NAL unit.
    public init(byte: UInt8) {
        self.forbiddenZeroBit = byte & 0x80 != 0
        self.nalRefIdc = (byte >> 5) & 0x03
        self.type = NALUnitType(rawValue: byte & 0x1F)
    }

    /// The encoded header byte.
    public var byte: UInt8 {
        (forbiddenZeroBit ? 0x80 : 0) | (nalRefIdc << 5) | type.rawValue
    }
}
