/// One reception report block (RFC 3550 section 6.4.1), 24 bytes:
///
/// ```
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                 SSRC_1 (SSRC of first source)                 |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | fraction lost |       cumulative number of packets lost       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           extended highest sequence number received           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      interarrival jitter                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         last SR (LSR)                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                   delay since last SR (DLSR)                  |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// ```
public struct ReportBlock: Hashable, Sendable {
    /// Bytes of one block.
    public static let size = 24

    /// The source this block reports on.
    public var ssrc: SSRC
    /// Fraction of packets lost since the previous report, in units of 1/256.
    public var fractionLost: UInt8
    /// Cumulative packets lost, a 24-bit signed value (duplicates can make it negative).
    public var cumulativeLost: Int32
    /// Extended highest sequence number received.
    public var extendedHighestSequenceNumber: UInt32
    /// Interarrival jitter in RTP timestamp units.
    public var jitter: UInt32
    /// Middle 32 bits of the NTP timestamp of the last SR received from the source, 0 if none.
    public var lastSenderReport: UInt32
    /// Delay since that SR, in units of 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    /// Creates a block.
    /// - Parameters:
    ///   - ssrc: the reported source.
    ///   - fractionLost: loss fraction (1/256 units).
    ///   - cumulativeLost: cumulative loss (24-bit signed; clamped when written).
    ///   - extendedHighestSequenceNumber: extended highest sequence number received.
    ///   - jitter: interarrival jitter.
    ///   - lastSenderReport: LSR.
    ///   - delaySinceLastSenderReport: DLSR.
    public init(
        ssrc: SSRC, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, extendedHighestSequenceNumber: UInt32 = 0,
        jitter: UInt32 = 0, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// The largest cumulative loss a 24-bit signed field holds.
    static let maxCumulativeLost: Int32 = 0x7F_FFFF
    /// The smallest cumulative loss a 24-bit signed field holds.
    static let minCumulativeLost: Int32 = -0x80_0000

    init(reader r: ByteReader, at o: Int) {
        let lost = r.u24(o + 5)
        self.init(
            ssrc: SSRC(r.u32(o)), fractionLost: r.u8(o + 4),
            cumulativeLost: Int32(bitPattern: lost << 8) >> 8,  // sign-extend 24 bits
            extendedHighestSequenceNumber: r.u32(o + 8), jitter: r.u32(o + 12), lastSenderReport: r.u32(o + 16),
            delaySinceLastSenderReport: r.u32(o + 20))
    }

    func write(to w: inout ByteWriter) {
        w.u32(ssrc.rawValue)
        w.u8(fractionLost)
        let lost = min(max(cumulativeLost, Self.minCumulativeLost), Self.maxCumulativeLost)
        w.u24(UInt32(bitPattern: lost) & 0xFF_FFFF)
        w.u32(extendedHighestSequenceNumber)
        w.u32(jitter)
        w.u32(lastSenderReport)
        w.u32(delaySinceLastSenderReport)
    }
}
