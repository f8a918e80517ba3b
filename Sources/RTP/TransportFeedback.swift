import MediaTime

/// Transport-wide congestion control feedback, RTPFB (PT 205) FMT 15
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1): the receiver reports, for a run of
/// transport-wide sequence numbers, which packets arrived and when.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=15 |    PT=205     |           length              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     SSRC of packet sender                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      SSRC of media source                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      base sequence number     |      packet status count      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                 reference time                | fb pkt. count |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |          packet chunk         |         packet chunk          |
/// .                                                               .
/// |         packet chunk          |  recv delta   |  recv delta   |
/// .                                                               .
/// |           recv delta          |  recv delta   | zero padding  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The statuses are kept one per packet; chunks are an encoding detail, chosen when writing the way libwebrtc does
/// (`TransportFeedbackChunkEncoder`). Like libwebrtc, the message is padded to 32 bits with the P bit set and the
/// count in the last byte (RFC 3550 section 6.4.1).
public struct TransportFeedback: Hashable, Sendable {
    /// The unit of the receive deltas (draft section 3.1.5: "multiples of 250us").
    public static let deltaTick: Duration = .microseconds(250)
    /// The unit of the reference time (draft section 3.1: "multiples of 64ms").
    public static let referenceTimeUnit: Duration = .milliseconds(64)
    /// The reference time is a 24-bit signed field (draft section 3.1).
    public static let referenceTimeRange: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF
    /// The largest packet status count (a 16-bit field).
    public static let maxPacketStatusCount = Int(UInt16.max)

    static let notReceivedSymbol: UInt8 = 0b00
    static let smallDeltaSymbol: UInt8 = 0b01
    static let largeDeltaSymbol: UInt8 = 0b10
    /// Symbol 11 is reserved (draft section 3.1.1).
    static let reservedSymbol: UInt8 = 0b11
    /// Bit T of a chunk: 1 for a status vector, 0 for a run length (draft sections 3.1.3, 3.1.4).
    static let statusVectorFlag: UInt16 = 0x8000
    /// Bit S of a status vector chunk: 1 for two-bit symbols (draft section 3.1.4).
    static let twoBitSymbolFlag: UInt16 = 0x4000
    /// Bytes after the common header and before the chunks: two SSRCs, base, count, reference time, fb count.
    static let fixedSize = 16

    /// The receiver sending the feedback.
    public var senderSSRC: SSRC
    /// The media source (libwebrtc sends the first media SSRC; the feedback covers the whole transport).
    public var mediaSSRC: SSRC
    /// The transport-wide sequence number of the first packet reported.
    public var baseSequenceNumber: SequenceNumber
    /// The arrival time base in multiples of 64 ms, 24 bits signed, in the receiver's clock.
    public var referenceTime: Int32
    /// A counter of feedback messages sent, to detect lost feedback.
    public var feedbackPacketCount: UInt8
    /// One status per packet, for `baseSequenceNumber`, `baseSequenceNumber + 1`, ...
    public var statuses: [TransportFeedbackPacketStatus]

    /// Creates feedback from statuses.
    /// - Parameters:
    ///   - senderSSRC: the receiver.
    ///   - mediaSSRC: the media source.
    ///   - baseSequenceNumber: the first reported transport-wide sequence number.
    ///   - referenceTime: the time base in 64 ms units (24 bits signed).
    ///   - feedbackPacketCount: the feedback counter.
    ///   - statuses: one status per packet.
    public init(
        senderSSRC: SSRC, mediaSSRC: SSRC, baseSequenceNumber: SequenceNumber, referenceTime: Int32,
        feedbackPacketCount: UInt8, statuses: [TransportFeedbackPacketStatus]
    ) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.statuses = statuses
    }

    /// Builds feedback from arrival times on the receiver's clock, as a receiver does: the reference time is the
    /// first arrival rounded down to 64 ms (wrapped to 24 bits), and each delta is counted between arrivals rounded
    /// down to 250 µs, so rounding errors do not accumulate.
    /// - Parameters:
    ///   - senderSSRC: the receiver.
    ///   - mediaSSRC: the media source.
    ///   - baseSequenceNumber: the transport-wide sequence number of `arrivals[0]`.
    ///   - feedbackPacketCount: the feedback counter.
    ///   - arrivals: per packet from the base on, its arrival time or nil when it has not arrived.
    /// - Throws: `RTCPError.tooManyEntries` beyond 65,535 packets, `RTCPError.valueOutOfRange` when two arrivals
    ///   are more than 8.19 s apart (the largest delta).
    public init(
        senderSSRC: SSRC, mediaSSRC: SSRC, baseSequenceNumber: SequenceNumber, feedbackPacketCount: UInt8,
        arrivals: [MonotonicTime?]
    ) throws(RTCPError) {
        guard arrivals.count <= Self.maxPacketStatusCount else { throw .tooManyEntries(arrivals.count) }
        let tickNanoseconds = Self.deltaTick.saturatingNanoseconds
        let ticksPerReference = Self.referenceTimeUnit.saturatingNanoseconds / tickNanoseconds
        var reference: Int64 = 0
        if let first = arrivals.lazy.compactMap({ $0 }).first {
            reference = Self.floorDivide(first.nanoseconds, Self.referenceTimeUnit.saturatingNanoseconds)
        }
        var previousTick = reference * ticksPerReference
        var statuses: [TransportFeedbackPacketStatus] = []
        statuses.reserveCapacity(arrivals.count)
        for arrival in arrivals {
            guard let arrival else { statuses.append(.notReceived); continue }
            let tick = Self.floorDivide(arrival.nanoseconds, tickNanoseconds)
            guard let status = TransportFeedbackPacketStatus.received(ticks: tick - previousTick) else {
                throw .valueOutOfRange(Int(clamping: tick - previousTick))
            }
            statuses.append(status)
            previousTick = tick
        }
        // Wrap to 24 bits and sign-extend: the field is a 24-bit signed value that wraps (draft section 3.1).
        let wrapped = Int32(truncatingIfNeeded: (reference << 40) >> 40)
        self.init(
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: baseSequenceNumber,
            referenceTime: wrapped, feedbackPacketCount: feedbackPacketCount, statuses: statuses)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Per packet, its arrival time relative to the receiver clock's origin as far as the feedback tells it
    /// (reference time x 64 ms plus the accumulated deltas), or nil when not received. Only differences between
    /// these times are meaningful to a sender.
    public var arrivalTimes: [Duration?] {
        var time = Self.referenceTimeUnit * Int(referenceTime)
        return statuses.map { status in
            guard let ticks = status.deltaTicks else { return nil }
            time += Self.deltaTick * Int(ticks)
            return time
        }
    }

    /// The number of packets reported received.
    public var receivedCount: Int { statuses.reduce(0) { $0 + ($1 == .notReceived ? 0 : 1) } }

    /// Bytes of chunks and deltas, before padding.
    private var contentSize: Int {
        var chunks = 0
        TransportFeedbackChunkEncoder.forEachChunk(statuses) { _ in chunks += 1 }
        var deltas = 0
        for status in statuses {
            switch status {
            case .notReceived: break
            case .smallDelta: deltas += 1
            case .largeDelta: deltas += 2
            }
        }
        return RTCPCommonHeader.size + Self.fixedSize + 2 * chunks + deltas
    }

    /// Bytes on the wire, header and padding included.
    public var serializedSize: Int { (contentSize + 3) / 4 * 4 }

    /// Checks the fields a 16-bit count and a 24-bit reference time must hold.
    /// - Throws: `RTCPError.tooManyEntries` or `RTCPError.valueOutOfRange`.
    func validate() throws(RTCPError) {
        guard statuses.count <= Self.maxPacketStatusCount else { throw .tooManyEntries(statuses.count) }
        guard Self.referenceTimeRange.contains(referenceTime) else { throw .valueOutOfRange(Int(referenceTime)) }
    }

    func write(to w: inout ByteWriter) {
        let content = contentSize
        let size = (content + 3) / 4 * 4
        let padding = size - content
        w.u8(RTCPCommonHeader.version << 6 | (padding > 0 ? 0x20 : 0) | RTCPPacketType.transportWideFeedbackFormat)
        w.u8(RTCPPacketType.transportFeedback)
        w.u16(UInt16(size / 4 - 1))
        w.u32(senderSSRC.rawValue)
        w.u32(mediaSSRC.rawValue)
        w.u16(baseSequenceNumber.rawValue)
        w.u16(UInt16(statuses.count))
        w.u24(UInt32(bitPattern: referenceTime) & 0xFF_FFFF)
        w.u8(feedbackPacketCount)
        TransportFeedbackChunkEncoder.forEachChunk(statuses) { w.u16($0) }
        for status in statuses {
            switch status {
            case .notReceived: break
            case .smallDelta(let ticks): w.u8(ticks)
            case .largeDelta(let ticks): w.u16(UInt16(bitPattern: ticks))
            }
        }
        if padding > 0 {
            w.zeros(padding - 1)
            w.u8(UInt8(padding))
        }
    }

    /// Parses the body (after the common header, padding removed) of an RTPFB FMT 15 packet.
    init(reader r: ByteReader, body: Range<Int>) throws(RTCPError) {
        let packetType = RTCPPacketType.transportFeedback
        guard body.count >= Self.fixedSize else {
            throw .packetTooShort(packetType: packetType, needed: Self.fixedSize, available: body.count)
        }
        let o = body.lowerBound
        let count = Int(r.u16(o + 10))
        let reference = Int32(bitPattern: r.u24(o + 12) << 8) >> 8
        var statuses: [TransportFeedbackPacketStatus] = []
        statuses.reserveCapacity(count)
        var symbols: [UInt8] = []
        symbols.reserveCapacity(count)
        var offset = o + Self.fixedSize
        while symbols.count < count {
            guard offset + 2 <= body.upperBound else {
                throw .packetTooShort(packetType: packetType, needed: offset + 2 - o, available: body.count)
            }
            let chunk = r.u16(offset)
            let remaining = count - symbols.count
            if chunk & Self.statusVectorFlag == 0 {
                let symbol = UInt8(chunk >> 13) & 0x3
                guard symbol != Self.reservedSymbol else { throw .reservedTransportFeedbackSymbol(offset: offset) }
                let run = min(Int(chunk & 0x1FFF), remaining)
                for _ in 0..<run { symbols.append(symbol) }
            } else if chunk & Self.twoBitSymbolFlag == 0 {
                for i in 0..<min(TransportFeedbackChunkEncoder.oneBitCapacity, remaining) {
                    symbols.append(UInt8(truncatingIfNeeded: chunk >> (13 - i)) & 0x1)
                }
            } else {
                for i in 0..<min(TransportFeedbackChunkEncoder.twoBitCapacity, remaining) {
                    let symbol = UInt8(truncatingIfNeeded: chunk >> (2 * (6 - i))) & 0x3
                    guard symbol != Self.reservedSymbol else { throw .reservedTransportFeedbackSymbol(offset: offset) }
                    symbols.append(symbol)
                }
            }
            offset += 2
        }
        for symbol in symbols {
            switch symbol {
            case Self.smallDeltaSymbol:
                guard offset + 1 <= body.upperBound else {
                    throw .packetTooShort(packetType: packetType, needed: offset + 1 - o, available: body.count)
                }
                statuses.append(.smallDelta(r.u8(offset)))
                offset += 1
            case Self.largeDeltaSymbol:
                guard offset + 2 <= body.upperBound else {
                    throw .packetTooShort(packetType: packetType, needed: offset + 2 - o, available: body.count)
                }
                statuses.append(.largeDelta(Int16(bitPattern: r.u16(offset))))
                offset += 2
            default:
                statuses.append(.notReceived)
            }
        }
        self.init(
            senderSSRC: SSRC(r.u32(o)), mediaSSRC: SSRC(r.u32(o + 4)), baseSequenceNumber: SequenceNumber(r.u16(o + 8)),
            referenceTime: reference, feedbackPacketCount: r.u8(o + 15), statuses: statuses)
    }
}

extension RTCPPacketType {
    /// RTPFB FMT 15: transport-wide congestion control feedback
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1).
    public static let transportWideFeedbackFormat: UInt8 = 15
}
