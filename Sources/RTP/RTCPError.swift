/// Why RTCP bytes could not be parsed, or packets could not be serialized (RFC 3550 section 6, RFC 4585,
/// RFC 5104, RFC 5506). Offsets are from the start of the compound packet.
public enum RTCPError: Error, Hashable, Sendable {
    /// No bytes at all.
    case empty
    /// Fewer than 4 bytes left for a common header.
    case truncatedHeader(offset: Int)
    /// The version field is not 2.
    case unsupportedVersion(UInt8, offset: Int)
    /// The length field claims more bytes than remain.
    case lengthExceedsBuffer(offset: Int, declared: Int, available: Int)
    /// The P bit is set but the padding count is 0 or larger than the packet body.
    case invalidPadding(offset: Int, count: Int)
    /// A packet body shorter than its type requires (fixed fields plus the count of report blocks or entries).
    case packetTooShort(packetType: UInt8, needed: Int, available: Int)
    /// An SDES chunk or item runs past the end of the packet, or a chunk lacks its terminating null item.
    case sdesChunkTruncated(offset: Int)
    /// A BYE reason length runs past the end of the packet.
    case byeReasonOverrun(offset: Int)
    /// A feedback message whose FCI is not a whole number of entries.
    case invalidFCILength(packetType: UInt8, format: UInt8, length: Int)
    /// A REMB whose SSRC count does not match its length.
    case rembSSRCCountMismatch(declared: Int, available: Int)
    /// A transport-wide feedback packet chunk uses the reserved status symbol 11
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1.1).
    case reservedTransportFeedbackSymbol(offset: Int)
    /// Serializing: more than 31 report blocks, chunks or sources in one packet (five-bit count field).
    case tooManyEntries(Int)
    /// Serializing: an SDES item or BYE reason over 255 bytes, or a count field out of range.
    case valueOutOfRange(Int)
    /// Serializing: the caller's buffer is too small.
    case bufferTooSmall(needed: Int, available: Int)
}
