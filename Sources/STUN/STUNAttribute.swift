/// A decoded STUN attribute.
///
/// MESSAGE-INTEGRITY and FINGERPRINT appear here when a message is parsed (for inspection); when a message is
/// serialized they are computed from the key and the bytes, so any such cases in the list are skipped.
public enum STUNAttribute: Hashable, Sendable {
    /// MAPPED-ADDRESS: the reflexive address in the clear (RFC 8489 14.1; only old servers send it).
    case mappedAddress(TransportAddress)
    /// XOR-MAPPED-ADDRESS: the reflexive address XORed with the magic cookie (and transaction ID for IPv6).
    case xorMappedAddress(TransportAddress)
    /// USERNAME: for ICE, `receiverUfrag:senderUfrag` (RFC 8445 7.2.2); at most 513 bytes of UTF-8.
    case username(String)
    /// MESSAGE-INTEGRITY: the 20-byte HMAC-SHA1 as received.
    case messageIntegrity([UInt8])
    /// FINGERPRINT: the CRC-32 of the message XORed with 0x5354554e, as received.
    case fingerprint(UInt32)
    /// ERROR-CODE: a code 300...699 and a reason phrase.
    case errorCode(code: Int, reason: String)
    /// PRIORITY: the priority a peer-reflexive candidate learnt from this check would have (RFC 8445 7.1.1).
    case priority(UInt32)
    /// USE-CANDIDATE: the controlling agent nominates this pair (RFC 8445 7.1.2).
    case useCandidate
    /// ICE-CONTROLLING with the sender's tie-breaker (RFC 8445 7.1.3).
    case iceControlling(tieBreaker: UInt64)
    /// ICE-CONTROLLED with the sender's tie-breaker (RFC 8445 7.1.3).
    case iceControlled(tieBreaker: UInt64)
    /// SOFTWARE: a description of the sender's software.
    case software(String)
    /// REALM (long-term credentials).
    case realm(String)
    /// NONCE (long-term credentials).
    case nonce(String)
    /// UNKNOWN-ATTRIBUTES: the comprehension-required types the sender of a 420 did not understand.
    case unknownAttributes([STUNAttributeType])
    /// CHANNEL-NUMBER (RFC 8656 18.1): a TURN channel, 0x4000-0x4FFF (the RFFU half is zero on the wire).
    case channelNumber(UInt16)
    /// LIFETIME (RFC 8656 18.2): how long a TURN allocation lasts, in seconds.
    case lifetime(UInt32)
    /// XOR-PEER-ADDRESS (RFC 8656 18.3): a TURN peer, XORed as XOR-MAPPED-ADDRESS is.
    case xorPeerAddress(TransportAddress)
    /// DATA (RFC 8656 18.4): the application data of a Send or Data indication.
    case data([UInt8])
    /// XOR-RELAYED-ADDRESS (RFC 8656 18.5): the address the TURN server relays from.
    case xorRelayedAddress(TransportAddress)
    /// REQUESTED-TRANSPORT (RFC 8656 18.7): the relay's protocol number (17, UDP, is the only one TURN allocates).
    case requestedTransport(UInt8)
    /// Any other attribute, kept as bytes (without padding).
    case other(type: STUNAttributeType, value: [UInt8])

    /// The attribute's type number.
    public var type: STUNAttributeType {
        switch self {
        case .mappedAddress: .mappedAddress
        case .xorMappedAddress: .xorMappedAddress
        case .username: .username
        case .messageIntegrity: .messageIntegrity
        case .fingerprint: .fingerprint
        case .errorCode: .errorCode
        case .priority: .priority
        case .useCandidate: .useCandidate
        case .iceControlling: .iceControlling
        case .iceControlled: .iceControlled
        case .software: .software
        case .realm: .realm
        case .nonce: .nonce
        case .unknownAttributes: .unknownAttributes
        case .channelNumber: .channelNumber
        case .lifetime: .lifetime
        case .xorPeerAddress: .xorPeerAddress
        case .data: .data
        case .xorRelayedAddress: .xorRelayedAddress
        case .requestedTransport: .requestedTransport
        case .other(let type, _): type
        }
    }
}
