import MediaTime

/// An RTCP Extended Report, PT 207 (RFC 3611): report blocks after the sender's SSRC. This package reads and writes
/// the two blocks that give a receiver its round-trip time (RFC 3611 sections 4.4 and 4.5), and keeps any other block
/// raw.
///
/// ```
/// |V=2|P|reserved |   PT=XR=207   |             length            |
/// |                              SSRC                             |
/// :                         report blocks                         :
/// each block: |      BT       | type-specific |         block length          |  (length in 32-bit words, after
///                                                                                 this header)
/// RRTR (BT=4): NTP timestamp, most and least significant word
/// DLRR (BT=5): per sub-block SSRC, last RR (LRR), delay since last RR (DLRR, 1/65536 s)
/// ```
public struct ExtendedReport: Hashable, Sendable {
    /// One DLRR sub-block: the answer to one receiver's RRTR.
    public struct DelaySinceLastReceiverReport: Hashable, Sendable {
        /// The receiver whose RRTR this answers.
        public var ssrc: SSRC
        /// The middle 32 bits of that RRTR's NTP timestamp (LRR).
        public var lastReceiverReport: UInt32
        /// The time between receiving that RRTR and sending this block, in 1/65536 s (DLRR).
        public var delaySinceLastReceiverReport: UInt32

        /// Creates a sub-block.
        /// - Parameters:
        ///   - ssrc: the receiver whose RRTR this answers.
        ///   - lastReceiverReport: the middle 32 bits of that RRTR's timestamp.
        ///   - delaySinceLastReceiverReport: the delay since it arrived, in 1/65536 s.
        public init(ssrc: SSRC, lastReceiverReport: UInt32, delaySinceLastReceiverReport: UInt32) {
            self.ssrc = ssrc
            self.lastReceiverReport = lastReceiverReport
            self.delaySinceLastReceiverReport = delaySinceLastReceiverReport
        }
    }

    /// One report block.
    public enum Block: Hashable, Sendable {
        /// Receiver Reference Time (BT=4): the receiver's NTP timestamp when it sent the report.
        case receiverReferenceTime(NTPTimestamp)
        /// DLRR (BT=5): the sender's answers to receivers' RRTRs.
        case delaySinceLastReceiverReport([DelaySinceLastReceiverReport])
        /// Any other block type, kept raw: its BT, type-specific byte and body.
        case other(blockType: UInt8, typeSpecific: UInt8, body: [UInt8])

        /// Bytes on the wire, block header included.
        var serializedSize: Int {
            switch self {
            case .receiverReferenceTime: 4 + 8
            case .delaySinceLastReceiverReport(let entries): 4 + 12 * entries.count
            case .other(_, _, let body): 4 + body.count
            }
        }
    }

    /// BT of the Receiver Reference Time block.
    public static let receiverReferenceTimeBlockType: UInt8 = 4
    /// BT of the DLRR block.
    public static let dlrrBlockType: UInt8 = 5

    /// The reporting source.
    public var ssrc: SSRC
    /// The report blocks, in order.
    public var blocks: [Block]

    /// Creates an extended report.
    /// - Parameters:
    ///   - ssrc: the reporting source.
    ///   - blocks: its blocks.
    public init(ssrc: SSRC, blocks: [Block]) {
        self.ssrc = ssrc
        self.blocks = blocks
    }

    /// Bytes on the wire, header included.
    public var serializedSize: Int { blocks.reduce(RTCPCommonHeader.size + 4) { $0 + $1.serializedSize } }

    init(reader r: ByteReader, body: Range<Int>) throws(RTCPError) {
        guard body.count >= 4 else {
            throw .packetTooShort(packetType: RTCPPacketType.extendedReport, needed: 4, available: body.count)
        }
        ssrc = SSRC(r.u32(body.lowerBound))
        var blocks: [Block] = []
        var offset = body.lowerBound + 4
        while offset < body.upperBound {
            guard offset + 4 <= body.upperBound else { throw .extendedReportBlockOverrun(offset: offset) }
            let blockType = r.u8(offset)
            let typeSpecific = r.u8(offset + 1)
            let length = 4 * Int(r.u16(offset + 2))
            let start = offset + 4
            guard start + length <= body.upperBound else { throw .extendedReportBlockOverrun(offset: offset) }
            switch blockType {
            case Self.receiverReferenceTimeBlockType:
                guard length == 8 else { throw .extendedReportBlockLength(blockType: blockType, length: length) }
                blocks.append(.receiverReferenceTime(NTPTimestamp(seconds: r.u32(start), fraction: r.u32(start + 4))))
            case Self.dlrrBlockType:
                guard length % 12 == 0 else { throw .extendedReportBlockLength(blockType: blockType, length: length) }
                var entries: [DelaySinceLastReceiverReport] = []
                entries.reserveCapacity(length / 12)
                var entry = start
                while entry < start + length {
                    entries.append(DelaySinceLastReceiverReport(
                        ssrc: SSRC(r.u32(entry)), lastReceiverReport: r.u32(entry + 4),
                        delaySinceLastReceiverReport: r.u32(entry + 8)))
                    entry += 12
                }
                blocks.append(.delaySinceLastReceiverReport(entries))
            default:
                blocks.append(.other(blockType: blockType, typeSpecific: typeSpecific, body: r.bytes(start..<(start + length))))
            }
            offset = start + length
        }
        self.blocks = blocks
    }

    func validate() throws(RTCPError) {
        for block in blocks {
            switch block {
            case .receiverReferenceTime: break
            case .delaySinceLastReceiverReport(let entries):
                guard 12 * entries.count / 4 <= Int(UInt16.max) else { throw .tooManyEntries(entries.count) }
            case .other(_, _, let body):
                guard body.count % 4 == 0, body.count / 4 <= Int(UInt16.max) else { throw .valueOutOfRange(body.count) }
            }
        }
    }

    func write(to w: inout ByteWriter) {
        RTCPCommonHeader.write(to: &w, count: 0, packetType: RTCPPacketType.extendedReport, size: serializedSize)
        w.u32(ssrc.rawValue)
        for block in blocks {
            switch block {
            case .receiverReferenceTime(let time):
                w.u8(Self.receiverReferenceTimeBlockType)
                w.u8(0)
                w.u16(2)
                w.u32(UInt32(truncatingIfNeeded: time.rawValue >> 32))
                w.u32(UInt32(truncatingIfNeeded: time.rawValue))
            case .delaySinceLastReceiverReport(let entries):
                w.u8(Self.dlrrBlockType)
                w.u8(0)
                w.u16(UInt16(3 * entries.count))
                for entry in entries {
                    w.u32(entry.ssrc.rawValue)
                    w.u32(entry.lastReceiverReport)
                    w.u32(entry.delaySinceLastReceiverReport)
                }
            case .other(let blockType, let typeSpecific, let body):
                w.u8(blockType)
                w.u8(typeSpecific)
                w.u16(UInt16(body.count / 4))
                w.bytes(body)
            }
        }
    }
}
