/// The `nal_unit_type` of an H.264 NAL unit (ITU-T H.264 Table 7-1), plus the RTP payload-structure types of
/// RFC 6184 section 5.4 (24-29), which share the same five bits on the wire.
public struct NALUnitType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The five-bit type value (0...31).
    public var rawValue: UInt8

    /// Creates a type from its five-bit value; higher bits are ignored.
    /// - Parameter rawValue: the `nal_unit_type` value.
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x1F }

    /// Coded slice of a non-IDR picture (H.264 Table 7-1, type 1).
    public static let nonIDRSlice = NALUnitType(rawValue: 1)
    /// Coded slice data partition A (type 2).
    public static let slicePartitionA = NALUnitType(rawValue: 2)
    /// Coded slice data partition B (type 3).
    public static let slicePartitionB = NALUnitType(rawValue: 3)
    /// Coded slice data partition C (type 4).
    public static let slicePartitionC = NALUnitType(rawValue: 4)
    /// Coded slice of an IDR picture (type 5).
    public static let idrSlice = NALUnitType(rawValue: 5)
    /// Supplemental enhancement information (type 6).
    public static let sei = NALUnitType(rawValue: 6)
    /// Sequence parameter set (type 7).
    public static let sps = NALUnitType(rawValue: 7)
    /// Picture parameter set (type 8).
    public static let pps = NALUnitType(rawValue: 8)
    /// Access unit delimiter (type 9).
    public static let accessUnitDelimiter = NALUnitType(rawValue: 9)
    /// End of sequence (type 10).
    public static let endOfSequence = NALUnitType(rawValue: 10)
    /// End of stream (type 11).
    public static let endOfStream = NALUnitType(rawValue: 11)
    /// Filler data (type 12).
    public static let fillerData = NALUnitType(rawValue: 12)
    /// Single-time aggregation packet (RFC 6184 section 5.7.1, type 24).
    public static let stapA = NALUnitType(rawValue: 24)
    /// Single-time aggregation packet with DON (type 25).
    public static let stapB = NALUnitType(rawValue: 25)
    /// Multi-time aggregation packet, 16-bit offset (type 26).
    public static let mtap16 = NALUnitType(rawValue: 26)
    /// Multi-time aggregation packet, 24-bit offset (type 27).
    public static let mtap24 = NALUnitType(rawValue: 27)
    /// Fragmentation unit A (RFC 6184 section 5.8, type 28).
    public static let fuA = NALUnitType(rawValue: 28)
    /// Fragmentation unit B (type 29).
    public static let fuB = NALUnitType(rawValue: 29)

    /// Whether this type carries a coded slice (types 1-5).
    public var isSlice: Bool { (1...5).contains(rawValue) }

    /// A short name, for logs and `inspect`.
    public var description: String {
        switch rawValue {
        case 1: return "slice"
        case 2: return "dpa"
        case 3: return "dpb"
        case 4: return "dpc"
        case 5: return "idr"
        case 6: return "sei"
        case 7: return "sps"
        case 8: return "pps"
        case 9: return "aud"
        case 10: return "eoseq"
        case 11: return "eos"
        case 12: return "filler"
        case 24: return "stap-a"
        case 25: return "stap-b"
        case 26: return "mtap16"
        case 27: return "mtap24"
        case 28: return "fu-a"
        case 29: return "fu-b"
        default: return "type\(rawValue)"
        }
    }
}
