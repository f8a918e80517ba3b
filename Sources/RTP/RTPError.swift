/// Why an RTP packet could not be parsed or serialized (RFC 3550 section 5.1, RFC 8285).
public enum RTPError: Error, Hashable, Sendable {
    /// Fewer than the 12 fixed header bytes.
    case truncatedHeader(count: Int)
    /// The version field is not 2.
    case unsupportedVersion(UInt8)
    /// The CSRC list (CC field) runs past the end of the packet.
    case truncatedCSRCList(csrcCount: Int, available: Int)
    /// The header extension's 4-byte header or its declared length runs past the end of the packet.
    case truncatedHeaderExtension(declaredBytes: Int, available: Int)
    /// The P bit is set but the padding count is 0 or larger than the bytes after the header.
    case invalidPadding(count: Int, available: Int)
    /// An RFC 8285 element is malformed (its length runs past the extension block, or ID 15 in the one-byte form).
    case malformedExtensionElement(offset: Int)
    /// An RFC 8285 element cannot be written in the requested form (ID or length out of range).
    case extensionElementOutOfRange(id: UInt8, length: Int)
    /// More than 15 CSRCs (the CC field has four bits).
    case tooManyCSRCs(Int)
    /// Padding larger than 255 bytes or negative.
    case paddingOutOfRange(Int)
    /// The caller's buffer cannot hold the packet plus the reserved trailer.
    case bufferTooSmall(needed: Int, available: Int)
    /// Serializing: header extension data that is not a whole number of 32-bit words, or more words than its
    /// 16-bit length field holds (RFC 3550 section 5.3.1: at most 262140 bytes).
    case headerExtensionLength(Int)
}
