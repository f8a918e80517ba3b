/// Why RTCP bytes could not be parsed, or packets could not be serialized (RFC 3550 section 6, RFC 4585,
/// RFC 5104, RFC 5506). Offsets are from the start of the compound packet.
public enum RTCPError: Error, Hashable, Sendable, CustomStringConvertible {
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
    /// An SDES item whose text does not fit its one-octet length (RFC 3550 section 6.5: 0...255 bytes; a CNAME
    /// must also not be empty, section 6.5.1), or whose type is 0 (END, which only ends a chunk).
    case sdesItemLength(type: UInt8, length: Int)
    /// Serializing: one packet larger than its 16-bit length field can describe (65536 words, RFC 3550
    /// section 6.4.1).
    case packetTooLarge(size: Int)
    /// An XR report block whose header or body runs past the packet.
    case extendedReportBlockOverrun(offset: Int)
    /// An XR block of a known type whose length is not that type's (RRTR: 8 bytes; DLRR: a multiple of 12).
    case extendedReportBlockLength(blockType: UInt8, length: Int)

    /// A readable explanation (offsets from the start of the compound packet).
    public var description: String {
        switch self {
        case .empty: return "RTCP: empty datagram"
        case .truncatedHeader(let o): return "RTCP: header cut off at offset \(o)"
        case .reservedTransportFeedbackSymbol(let o): return "RTCP: reserved transport-wide feedback status symbol at offset \(o)"
        case .unsupportedVersion(let v, let o): return "RTCP: version \(v) at offset \(o) (only 2)"
        case .lengthExceedsBuffer(let o, let d, let a):
            return "RTCP: packet at offset \(o) declares \(d) bytes, \(a) remain"
        case .invalidPadding(let o, let c): return "RTCP: padding count \(c) of the packet at offset \(o) is invalid"
        case .packetTooShort(let t, let n, let a): return "RTCP: packet type \(t) needs \(n) body bytes, has \(a)"
        case .sdesChunkTruncated(let o): return "RTCP: SDES chunk or item cut off at offset \(o)"
        case .byeReasonOverrun(let o): return "RTCP: BYE reason at offset \(o) runs past the packet"
        case .invalidFCILength(let t, let f, let l):
            return "RTCP: feedback PT \(t) FMT \(f) has \(l) FCI bytes, not a whole number of entries"
        case .rembSSRCCountMismatch(let d, let a): return "RTCP: REMB declares \(d) SSRCs, room for \(a)"
        case .tooManyEntries(let n): return "RTCP: \(n) entries do not fit one packet's five-bit count (31 at most)"
        case .valueOutOfRange(let v): return "RTCP: value \(v) does not fit its field"
        case .bufferTooSmall(let n, let a): return "RTCP: buffer of \(a) bytes is too small, \(n) needed"
        case .sdesItemLength(let t, let l):
            return t == SourceDescriptionItem.cnameType
                ? "RTCP: a CNAME must be 1...255 bytes (RFC 3550 section 6.5), not \(l)"
                : "RTCP: SDES item type \(t) of \(l) bytes (types 1...255, at most 255 bytes; RFC 3550 section 6.5)"
        case .packetTooLarge(let size): return "RTCP: a packet of \(size) bytes is over the 262144 its length field allows"
        case .extendedReportBlockOverrun(let o): return "RTCP: XR report block at offset \(o) runs past the packet"
        case .extendedReportBlockLength(let t, let l): return "RTCP: XR block type \(t) cannot be \(l) bytes long"
        }
    }
}
