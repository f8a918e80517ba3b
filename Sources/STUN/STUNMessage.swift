/// A STUN message (RFC 8489): type, transaction ID and attributes.
///
/// Parse with `init(parsing:)` (structure and FINGERPRINT are checked), check MESSAGE-INTEGRITY with
/// `hasValidIntegrity(key:)`, and write with `serialized(integrityKey:fingerprint:)`, which computes both trailers.
///
/// ```swift
/// let request = try STUNMessage(parsing: datagram)
/// guard request.hasValidIntegrity(key: Array(localPassword.utf8)) else { return }
/// ```
public struct STUNMessage: Sendable, Equatable {
    /// The method and class.
    public var type: STUNMessageType
    /// The transaction ID.
    public var transactionID: STUNTransactionID
    /// The attributes in wire order.
    public var attributes: [STUNAttribute]

    /// What MESSAGE-INTEGRITY covered when the message was parsed: the bytes before the attribute with the header's
    /// length field rewritten to end just after it (RFC 8489 14.5), and the MAC received. `nil` for built messages.
    var receivedIntegrity: (signedBytes: [UInt8], mac: [UInt8])?

    /// The magic cookie, 0x2112A442 (RFC 8489 section 5).
    public static let magicCookie: UInt32 = 0x2112_A442
    /// The length of the STUN header in bytes.
    public static let headerLength = 20
    /// The value FINGERPRINT's CRC-32 is XORed with: "STUN" in ASCII (RFC 8489 14.7).
    static let fingerprintXOR: UInt32 = 0x5354_554E
    /// The length of an attribute header (type and length).
    static let attributeHeaderLength = 4
    /// The length of the whole MESSAGE-INTEGRITY attribute: header and 20-byte HMAC-SHA1.
    static let integrityAttributeLength = attributeHeaderLength + 20
    /// The length of the whole FINGERPRINT attribute: header and 32-bit CRC.
    static let fingerprintAttributeLength = attributeHeaderLength + 4

    /// Creates a message.
    /// - Parameters:
    ///   - type: The method and class.
    ///   - transactionID: The transaction ID (a fresh random one for requests; the request's for responses).
    ///   - attributes: The attributes, without MESSAGE-INTEGRITY and FINGERPRINT (serialization adds them).
    public init(type: STUNMessageType, transactionID: STUNTransactionID, attributes: [STUNAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
        self.receivedIntegrity = nil
    }

    /// The first attribute of a type.
    /// - Parameters:
    ///   - type: The attribute type.
    /// - Returns: The attribute, or `nil`.
    public func attribute(_ type: STUNAttributeType) -> STUNAttribute? {
        attributes.first { $0.type == type }
    }

    /// The USERNAME, if any.
    public var username: String? {
        if case .username(let name) = attribute(.username) { return name }
        return nil
    }

    /// The XOR-MAPPED-ADDRESS, if any.
    public var xorMappedAddress: TransportAddress? {
        if case .xorMappedAddress(let address) = attribute(.xorMappedAddress) { return address }
        return nil
    }

    /// The PRIORITY, if any.
    public var priority: UInt32? {
        if case .priority(let value) = attribute(.priority) { return value }
        return nil
    }

    /// Whether USE-CANDIDATE is present.
    public var hasUseCandidate: Bool { attribute(.useCandidate) != nil }

    /// The ERROR-CODE, if any.
    public var errorCode: (code: Int, reason: String)? {
        if case .errorCode(let code, let reason) = attribute(.errorCode) { return (code, reason) }
        return nil
    }

    /// Whether the parsed message carries MESSAGE-INTEGRITY.
    public var hasIntegrity: Bool { receivedIntegrity != nil }

    /// The comprehension-required attribute types this implementation kept as `.other` (unknown to it).
    public var unknownComprehensionRequired: [STUNAttributeType] {
        attributes.compactMap {
            if case .other(let type, _) = $0, type.isComprehensionRequired { return type }
            return nil
        }
    }

    /// Checks MESSAGE-INTEGRITY against a key (constant time).
    ///
    /// - Parameters:
    ///   - key: For short-term credentials (ICE) the password's UTF-8 bytes (RFC 8489 9.1.1); for long-term
    ///     credentials MD5(username ":" realm ":" password).
    /// - Returns: `false` when the message has no MESSAGE-INTEGRITY, was built rather than parsed, or the MAC differs.
    public func hasValidIntegrity(key: [UInt8]) -> Bool {
        guard let received = receivedIntegrity else { return false }
        return HMACSHA1.equal(HMACSHA1.authenticate(key: key, message: received.signedBytes), received.mac)
    }

    /// Messages are equal when their type, transaction ID and attributes are.
    public static func == (lhs: STUNMessage, rhs: STUNMessage) -> Bool {
        lhs.type == rhs.type && lhs.transactionID == rhs.transactionID && lhs.attributes == rhs.attributes
    }
}
