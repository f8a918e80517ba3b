/// Why an RTX packet (RFC 4588) could not be built or read back.
public enum RTXError: Error, Hashable, Sendable {
    /// The original or the RTX packet is not a valid RTP packet.
    case invalidRTP(RTPError)
    /// The RTX payload is shorter than the 2-byte original sequence number (RFC 4588 section 4), e.g. a
    /// padding-only packet.
    case missingOriginalSequenceNumber(payloadSize: Int)
    /// The caller's buffer cannot hold the packet plus the reserved trailer.
    case bufferTooSmall(needed: Int, available: Int)
}
