/// Why bytes are not an acceptable STUN message.
public enum STUNError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer bytes than the 20-byte header or than the header's length field announces.
    case truncated(needed: Int, available: Int)
    /// The two most significant bits of the first byte are not zero (RFC 8489 section 5): not STUN.
    case notSTUN
    /// The magic cookie is not 0x2112A442 (an RFC 3489 message, or not STUN).
    case badMagicCookie(UInt32)
    /// The message length is not a multiple of 4.
    case misalignedLength(Int)
    /// The datagram holds bytes after the message the header describes.
    case trailingBytes(Int)
    /// An attribute's length runs past the end of the message.
    case attributeOverrun(type: STUNAttributeType, length: Int, remaining: Int)
    /// An attribute's value does not have the layout its type requires.
    case malformedAttribute(type: STUNAttributeType, reason: String)
    /// FINGERPRINT is not the last attribute.
    case fingerprintNotLast
    /// FINGERPRINT does not match the CRC-32 of the message.
    case fingerprintMismatch(expected: UInt32, received: UInt32)
    /// A value to serialize is out of the range the wire format allows.
    case valueOutOfRange(type: STUNAttributeType, reason: String)

    public var description: String {
        switch self {
        case .truncated(let needed, let available): "STUN message truncated: \(needed) bytes needed, \(available) present"
        case .notSTUN: "not a STUN message: the two leading bits are not zero"
        case .badMagicCookie(let cookie): "STUN magic cookie is 0x\(String(cookie, radix: 16)), expected 0x2112a442"
        case .misalignedLength(let length): "STUN message length \(length) is not a multiple of 4"
        case .trailingBytes(let count): "\(count) bytes follow the STUN message"
        case .attributeOverrun(let type, let length, let remaining):
            "STUN attribute \(type) of \(length) bytes overruns the message (\(remaining) left)"
        case .malformedAttribute(let type, let reason): "STUN attribute \(type) is malformed: \(reason)"
        case .fingerprintNotLast: "STUN FINGERPRINT is not the last attribute"
        case .fingerprintMismatch(let expected, let received):
            "STUN FINGERPRINT 0x\(String(received, radix: 16)) does not match 0x\(String(expected, radix: 16))"
        case .valueOutOfRange(let type, let reason): "STUN attribute \(type) cannot be written: \(reason)"
        }
    }
}
