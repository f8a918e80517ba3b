/// An RTCP receiver report, PT 201 (RFC 3550 section 6.4.2): the reporter's SSRC and up to 31 report blocks.
///
/// ```
/// |V=2|P|    RC   |   PT=RR=201   |             length            |
/// |                     SSRC of packet sender                     |
/// |                 report blocks (24 bytes each)                 |
/// ```
public struct ReceiverReport: Hashable, Sendable {
    /// The reporter's SSRC.
    public var ssrc: SSRC
    /// Reception report blocks (at most 31).
    public var reportBlocks: [ReportBlock]
    /// Profile-specific extension bytes after the report blocks (kept raw).
    public var profileExtension: [UInt8]

    /// Creates a receiver report.
    /// - Parameters:
    ///   - ssrc: the reporter.
    ///   - reportBlocks: reception reports (may be empty, e.g. ahead of feedback in a compound packet).
    ///   - profileExtension: extension bytes (a multiple of 4).
    public init(ssrc: SSRC, reportBlocks: [ReportBlock] = [], profileExtension: [UInt8] = []) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    /// Bytes on the wire, header included.
    public var serializedSize: Int {
        RTCPCommonHeader.size + 4 + ReportBlock.size * reportBlocks.count + profileExtension.count
    }

    init(reader r: ByteReader, body: Range<Int>, count: UInt8) throws(RTCPError) {
        let needed = 4 + ReportBlock.size * Int(count)
        guard body.count >= needed else {
            throw .packetTooShort(packetType: RTCPPacketType.receiverReport, needed: needed, available: body.count)
        }
        let o = body.lowerBound
        var blocks: [ReportBlock] = []
        blocks.reserveCapacity(Int(count))
        for i in 0..<Int(count) { blocks.append(ReportBlock(reader: r, at: o + 4 + ReportBlock.size * i)) }
        self.init(ssrc: SSRC(r.u32(o)), reportBlocks: blocks, profileExtension: r.bytes((o + needed)..<body.upperBound))
    }

    func validate() throws(RTCPError) {
        guard reportBlocks.count <= RTCPCommonHeader.maxCount else { throw .tooManyEntries(reportBlocks.count) }
        guard profileExtension.count % 4 == 0 else { throw .valueOutOfRange(profileExtension.count) }
    }

    func write(to w: inout ByteWriter) {
        RTCPCommonHeader.write(
            to: &w, count: UInt8(reportBlocks.count), packetType: RTCPPacketType.receiverReport, size: serializedSize)
        w.u32(ssrc.rawValue)
        for block in reportBlocks { block.write(to: &w) }
        w.bytes(profileExtension)
    }
}
