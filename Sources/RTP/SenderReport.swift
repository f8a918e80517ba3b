import MediaTime

/// An RTCP sender report, PT 200 (RFC 3550 section 6.4.1):
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|    RC   |   PT=SR=200   |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         SSRC of sender                        |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |              NTP timestamp, most significant word             |
/// |             NTP timestamp, least significant word             |
/// |                         RTP timestamp                         |
/// |                     sender's packet count                     |
/// |                      sender's octet count                     |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                 report blocks (24 bytes each)                 |
/// ```
public struct SenderReport: Hashable, Sendable {
    /// Bytes of the body before the report blocks.
    static let fixedBodySize = 24

    /// The sender's SSRC.
    public var ssrc: SSRC
    /// Wallclock time of the report.
    public var ntpTimestamp: NTPTimestamp
    /// The same instant on the RTP clock.
    public var rtpTimestamp: RTPTimestamp
    /// Packets sent since the start of transmission.
    public var packetCount: UInt32
    /// Payload octets sent since the start of transmission.
    public var octetCount: UInt32
    /// Reception report blocks (at most 31).
    public var reportBlocks: [ReportBlock]
    /// Profile-specific extension bytes after the report blocks (kept raw).
    public var profileExtension: [UInt8]

    /// Creates a sender report.
    /// - Parameters:
    ///   - ssrc: the sender.
    ///   - ntpTimestamp: wallclock time.
    ///   - rtpTimestamp: RTP time of the same instant.
    ///   - packetCount: packets sent.
    ///   - octetCount: payload octets sent.
    ///   - reportBlocks: reception reports.
    ///   - profileExtension: extension bytes (a multiple of 4).
    public init(
        ssrc: SSRC, ntpTimestamp: NTPTimestamp, rtpTimestamp: RTPTimestamp, packetCount: UInt32, octetCount: UInt32,
        reportBlocks: [ReportBlock] = [], profileExtension: [UInt8] = []
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    /// Bytes on the wire, header included.
    public var serializedSize: Int {
        RTCPCommonHeader.size + Self.fixedBodySize + ReportBlock.size * reportBlocks.count + profileExtension.count
    }

    init(reader r: ByteReader, body: Range<Int>, count: UInt8) throws(RTCPError) {
        let needed = Self.fixedBodySize + ReportBlock.size * Int(count)
        guard body.count >= needed else {
            throw .packetTooShort(packetType: RTCPPacketType.senderReport, needed: needed, available: body.count)
        }
        let o = body.lowerBound
        var blocks: [ReportBlock] = []
        blocks.reserveCapacity(Int(count))
        for i in 0..<Int(count) { blocks.append(ReportBlock(reader: r, at: o + Self.fixedBodySize + ReportBlock.size * i)) }
        self.init(
            ssrc: SSRC(r.u32(o)), ntpTimestamp: NTPTimestamp(seconds: r.u32(o + 4), fraction: r.u32(o + 8)),
            rtpTimestamp: RTPTimestamp(r.u32(o + 12)), packetCount: r.u32(o + 16), octetCount: r.u32(o + 20),
            reportBlocks: blocks, profileExtension: r.bytes((o + needed)..<body.upperBound))
    }

    func validate() throws(RTCPError) {
        guard reportBlocks.count <= RTCPCommonHeader.maxCount else { throw .tooManyEntries(reportBlocks.count) }
        guard profileExtension.count % 4 == 0 else { throw .valueOutOfRange(profileExtension.count) }
    }

    func write(to w: inout ByteWriter) {
        RTCPCommonHeader.write(
            to: &w, count: UInt8(reportBlocks.count), packetType: RTCPPacketType.senderReport, size: serializedSize)
        w.u32(ssrc.rawValue)
        w.u32(ntpTimestamp.seconds)
        w.u32(ntpTimestamp.fraction)
        w.u32(rtpTimestamp.rawValue)
        w.u32(packetCount)
        w.u32(octetCount)
        for block in reportBlocks { block.write(to: &w) }
        w.bytes(profileExtension)
    }
}
