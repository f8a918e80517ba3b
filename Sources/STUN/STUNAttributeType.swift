/// A STUN attribute type number (RFC 8489 section 14 and 18.3; ICE's from RFC 8445 section 16.1).
///
/// Types below 0x8000 are comprehension-required: a receiver that does not know one must reject a request.
public struct STUNAttributeType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit type.
    public var rawValue: UInt16

    /// Creates a type.
    /// - Parameters:
    ///   - rawValue: The 16-bit type.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// MAPPED-ADDRESS (RFC 8489 14.1).
    public static let mappedAddress = STUNAttributeType(rawValue: 0x0001)
    /// USERNAME (RFC 8489 14.3).
    public static let username = STUNAttributeType(rawValue: 0x0006)
    /// MESSAGE-INTEGRITY, HMAC-SHA1 (RFC 8489 14.5).
    public static let messageIntegrity = STUNAttributeType(rawValue: 0x0008)
    /// ERROR-CODE (RFC 8489 14.8).
    public static let errorCode = STUNAttributeType(rawValue: 0x0009)
    /// UNKNOWN-ATTRIBUTES (RFC 8489 14.9).
    public static let unknownAttributes = STUNAttributeType(rawValue: 0x000A)
    /// REALM (RFC 8489 14.9).
    public static let realm = STUNAttributeType(rawValue: 0x0014)
    /// NONCE (RFC 8489 14.10).
    public static let nonce = STUNAttributeType(rawValue: 0x0015)
    /// MESSAGE-INTEGRITY-SHA256 (RFC 8489 14.6).
    public static let messageIntegritySHA256 = STUNAttributeType(rawValue: 0x001C)
    /// XOR-MAPPED-ADDRESS (RFC 8489 14.2).
    public static let xorMappedAddress = STUNAttributeType(rawValue: 0x0020)
    /// PRIORITY (RFC 8445 16.1).
    public static let priority = STUNAttributeType(rawValue: 0x0024)
    /// USE-CANDIDATE (RFC 8445 16.1).
    public static let useCandidate = STUNAttributeType(rawValue: 0x0025)
    /// SOFTWARE (RFC 8489 14.14).
    public static let software = STUNAttributeType(rawValue: 0x8022)
    /// FINGERPRINT, CRC-32 (RFC 8489 14.7).
    public static let fingerprint = STUNAttributeType(rawValue: 0x8028)
    /// ICE-CONTROLLED (RFC 8445 16.1).
    public static let iceControlled = STUNAttributeType(rawValue: 0x8029)
    /// ICE-CONTROLLING (RFC 8445 16.1).
    public static let iceControlling = STUNAttributeType(rawValue: 0x802A)

    /// CHANNEL-NUMBER (RFC 8656 18.1).
    public static let channelNumber = STUNAttributeType(rawValue: 0x000C)
    /// LIFETIME (RFC 8656 18.2).
    public static let lifetime = STUNAttributeType(rawValue: 0x000D)
    /// XOR-PEER-ADDRESS (RFC 8656 18.3).
    public static let xorPeerAddress = STUNAttributeType(rawValue: 0x0012)
    /// DATA (RFC 8656 18.4).
    public static let data = STUNAttributeType(rawValue: 0x0013)
    /// XOR-RELAYED-ADDRESS (RFC 8656 18.5).
    public static let xorRelayedAddress = STUNAttributeType(rawValue: 0x0016)
    /// REQUESTED-TRANSPORT (RFC 8656 18.7).
    public static let requestedTransport = STUNAttributeType(rawValue: 0x0019)

    /// The first comprehension-optional type (RFC 8489 section 14).
    static let firstComprehensionOptional: UInt16 = 0x8000

    /// Whether a receiver that does not understand the attribute must reject the request (type < 0x8000).
    public var isComprehensionRequired: Bool { rawValue < Self.firstComprehensionOptional }

    public var description: String { "0x" + String(rawValue, radix: 16) }
}
