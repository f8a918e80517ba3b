/// The RTP fixed header plus CSRC list and optional extension (RFC 3550 section 5.1):
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           timestamp                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           synchronization source (SSRC) identifier            |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |            contributing source (CSRC) identifiers             |
/// |                             ....                              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The padding bit is not a header field here: serializers take a padding length and parsers report it.
public struct RTPHeader: Hashable, Sendable {
    /// The only RTP version (RFC 3550 section 5.1: "V ... is two (2)").
    public static let version: UInt8 = 2
    /// Bytes of the fixed header (RFC 3550 section 5.1).
    public static let fixedSize = 12
    /// The X bit in the first byte: a header extension block follows the CSRCs (RFC 3550 section 5.1).
    static let extensionBit: UInt8 = 0x10
    /// The largest CSRC count (four-bit CC field).
    public static let maxCSRCCount = 15

    /// The marker bit; for H.264 it is set on the last packet of an access unit (RFC 6184 section 5.1).
    public var marker: Bool
    /// The payload type.
    public var payloadType: PayloadType
    /// The sequence number.
    public var sequenceNumber: SequenceNumber
    /// The timestamp.
    public var timestamp: RTPTimestamp
    /// The stream's SSRC.
    public var ssrc: SSRC
    /// Contributing sources (at most 15).
    public var csrcs: [SSRC]
    /// The header extension, if any (the X bit).
    public var headerExtension: RTPHeaderExtension?

    /// Creates a header.
    /// - Parameters:
    ///   - marker: the M bit.
    ///   - payloadType: the PT field.
    ///   - sequenceNumber: the sequence number.
    ///   - timestamp: the timestamp.
    ///   - ssrc: the SSRC.
    ///   - csrcs: contributing sources.
    ///   - headerExtension: an optional extension block.
    public init(
        marker: Bool = false, payloadType: PayloadType, sequenceNumber: SequenceNumber, timestamp: RTPTimestamp,
        ssrc: SSRC, csrcs: [SSRC] = [], headerExtension: RTPHeaderExtension? = nil
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.headerExtension = headerExtension
    }

    /// The number of bytes this header takes on the wire.
    public var serializedSize: Int {
        Self.fixedSize + 4 * csrcs.count + (headerExtension?.serializedSize ?? 0)
    }
}
