import MediaTime
import RTP

/// The sender's store of sent RTP packets (unprotected), kept so that NACKed packets can be resent (RFC 4585
/// section 6.2.1, RFC 4588).
///
/// Packets live in slots allocated once, indexed by sequence number modulo the capacity, so storing and looking up
/// are O(1) and allocate nothing. A packet is kept at least `retention` = max(1 s, 3 x RTT) (libwebrtc's
/// `kMinPacketDuration` and `kMinPacketDurationRtt`) unless 'capacity' newer packets have reused its slot, and is
/// no longer returned after `retention` x 3 (libwebrtc's `kPacketCullingDelayFactor`): by then the receiver has
/// given up on it. At 2,048 slots of 1,200-byte packets the one-second guarantee holds up to ~19 Mbit/s.
public struct PacketHistory: Sendable {
    /// The default number of slots (the bound; pion keeps 1,024, libwebrtc up to 9,600).
    public static let defaultCapacity = 2048
    /// The default slot size: the largest UDP payload on a 1,500-byte Ethernet MTU over IPv4.
    public static let defaultSlotSize = 1472
    /// The least time a packet is kept (libwebrtc `kMinPacketDuration`).
    public static let minimumRetention: Duration = .seconds(1)
    /// Packets are kept at least this many RTTs (libwebrtc `kMinPacketDurationRtt`).
    public static let retentionRoundTrips = 3
    /// Packets older than this many retention periods are not returned (libwebrtc `kPacketCullingDelayFactor`).
    public static let cullingFactor = 3

    /// The number of slots.
    public let capacity: Int
    /// Bytes per slot: the largest packet that can be stored.
    public let slotSize: Int
    /// The latest round-trip time estimate; lengthens the retention when over 333 ms.
    public var roundTripTime: Duration?

    private var storage: [UInt8]
    private var lengths: [Int]
    private var sequenceNumbers: [UInt16]
    private var sendTimes: [MonotonicTime]
    private var retransmitTimes: [MonotonicTime]
    private var retransmitCounts: [Int]
    private let mask: Int

    /// How many packets were overwritten before `retention` had passed (the history is too small for the rate).
    public private(set) var evictedEarly = 0
    /// The number of occupied slots.
    public private(set) var count = 0

    /// Creates an empty history; all memory is allocated here.
    /// - Parameters:
    ///   - capacity: the number of slots, a power of two in 16...32768.
    ///   - slotSize: bytes per slot, 12...65535.
    /// - Throws: `PacketHistoryError.invalidCapacity` or `.invalidSlotSize`.
    public init(capacity: Int = defaultCapacity, slotSize: Int = defaultSlotSize) throws(PacketHistoryError) {
        guard (16...32768).contains(capacity), capacity & (capacity - 1) == 0 else { throw .invalidCapacity(capacity) }
        guard (RTPHeader.fixedSize...65535).contains(slotSize) else { throw .invalidSlotSize(slotSize) }
        self.capacity = capacity
        self.slotSize = slotSize
        self.mask = capacity - 1
        storage = [UInt8](repeating: 0, count: capacity * slotSize)
        lengths = [Int](repeating: 0, count: capacity)
        sequenceNumbers = [UInt16](repeating: 0, count: capacity)
        sendTimes = [MonotonicTime](repeating: .zero, count: capacity)
        retransmitTimes = [MonotonicTime](repeating: .zero, count: capacity)
        retransmitCounts = [Int](repeating: 0, count: capacity)
    }

    /// How long packets are kept at least: max(1 s, 3 x RTT).
    public var retention: Duration {
        guard let rtt = roundTripTime, rtt > .zero else { return Self.minimumRetention }
        return max(Self.minimumRetention, rtt * Self.retentionRoundTrips)
    }

    /// Stores a packet as sent at `now`, replacing whatever held its slot. The sequence number is read from the
    /// packet's header.
    /// - Parameters:
    ///   - packet: the whole RTP packet, before SRTP protection.
    ///   - now: when it was sent (or handed to the pacer).
    /// - Throws: `PacketHistoryError.notRTP` or `.packetTooLarge`.
    public mutating func store(_ packet: UnsafeRawBufferPointer, now: MonotonicTime) throws(PacketHistoryError) {
        guard packet.count >= RTPHeader.fixedSize else { throw .notRTP(size: packet.count) }
        guard packet.count <= slotSize else { throw .packetTooLarge(size: packet.count, slotSize: slotSize) }
        let sequenceNumber = UInt16(packet[2]) << 8 | UInt16(packet[3])
        let slot = Int(sequenceNumber) & mask
        if lengths[slot] > 0 {
            if sequenceNumbers[slot] != sequenceNumber, now - sendTimes[slot] < retention { evictedEarly += 1 }
        } else {
            count += 1
        }
        let offset = slot * slotSize
        storage.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress, let source = packet.baseAddress {
                (base + offset).copyMemory(from: source, byteCount: packet.count)
            }
        }
        lengths[slot] = packet.count
        sequenceNumbers[slot] = sequenceNumber
        sendTimes[slot] = now
        retransmitCounts[slot] = 0
    }

    /// Stores a packet written straight into its slot by `write` (a packetizer: no copy on the way), as sent at
    /// `now`, replacing whatever held the slot.
    /// - Parameters:
    ///   - sequenceNumber: the packet's sequence number (it picks the slot).
    ///   - now: when it was sent (or handed to the pacer).
    ///   - write: writes the packet into the slot (`slotSize` bytes) and returns its size.
    /// - Throws: `PacketHistoryError.notRTP` for a packet shorter than an RTP header (the slot is left empty then).
    public mutating func store(
        sequenceNumber: SequenceNumber, now: MonotonicTime, writing write: (UnsafeMutableRawBufferPointer) -> Int
    ) throws(PacketHistoryError) {
        let slot = Int(sequenceNumber.rawValue) & mask
        if lengths[slot] > 0 {
            if sequenceNumbers[slot] != sequenceNumber.rawValue, now - sendTimes[slot] < retention { evictedEarly += 1 }
            count -= 1
            lengths[slot] = 0
        }
        let offset = slot * slotSize
        let slotSize = self.slotSize
        let length = storage.withUnsafeMutableBytes { raw in
            write(UnsafeMutableRawBufferPointer(rebasing: raw[offset..<(offset + slotSize)]))
        }
        guard length >= RTPHeader.fixedSize, length <= slotSize else { throw .notRTP(size: length) }
        count += 1
        lengths[slot] = length
        sequenceNumbers[slot] = sequenceNumber.rawValue
        sendTimes[slot] = now
        retransmitCounts[slot] = 0
    }

    /// Stores a packet held in an array (see `store(_:now:)`).
    /// - Parameters:
    ///   - packet: the RTP packet.
    ///   - now: when it was sent.
    /// - Throws: `PacketHistoryError.notRTP` or `.packetTooLarge`.
    public mutating func store(_ packet: [UInt8], now: MonotonicTime) throws(PacketHistoryError) {
        let result = packet.withUnsafeBytes { raw in
            Result { () throws(PacketHistoryError) in try store(raw, now: now) }
        }
        try result.get()
    }

    private func slot(of sequenceNumber: SequenceNumber, now: MonotonicTime) -> Int? {
        let slot = Int(sequenceNumber.rawValue) & mask
        guard lengths[slot] > 0, sequenceNumbers[slot] == sequenceNumber.rawValue else { return nil }
        guard now - sendTimes[slot] <= retention * Self.cullingFactor else { return nil }
        return slot
    }

    /// Whether the packet is held and still young enough to be resent.
    /// - Parameters:
    ///   - sequenceNumber: the packet's sequence number.
    ///   - now: the current time.
    public func contains(_ sequenceNumber: SequenceNumber, now: MonotonicTime) -> Bool {
        slot(of: sequenceNumber, now: now) != nil
    }

    /// The stored packet's size in bytes, or nil when it is not held.
    /// - Parameters:
    ///   - sequenceNumber: the packet's sequence number.
    ///   - now: the current time.
    public func size(of sequenceNumber: SequenceNumber, now: MonotonicTime) -> Int? {
        slot(of: sequenceNumber, now: now).map { lengths[$0] }
    }

    /// When the packet was first sent, or nil when it is not held.
    /// - Parameters:
    ///   - sequenceNumber: the packet's sequence number.
    ///   - now: the current time.
    public func sendTime(of sequenceNumber: SequenceNumber, now: MonotonicTime) -> MonotonicTime? {
        slot(of: sequenceNumber, now: now).map { sendTimes[$0] }
    }

    /// When the packet was last retransmitted and how often, or nil when it is not held.
    /// - Parameters:
    ///   - sequenceNumber: the packet's sequence number.
    ///   - now: the current time.
    public func retransmissions(of sequenceNumber: SequenceNumber, now: MonotonicTime)
        -> (count: Int, last: MonotonicTime?)?
    {
        slot(of: sequenceNumber, now: now).map {
            (retransmitCounts[$0], retransmitCounts[$0] > 0 ? retransmitTimes[$0] : nil)
        }
    }

    /// Records a retransmission of the packet at `now`.
    /// - Parameters:
    ///   - sequenceNumber: the packet's sequence number.
    ///   - now: when it was (or is being) resent.
    /// - Returns: false when the packet is not held.
    @discardableResult
    public mutating func markRetransmitted(_ sequenceNumber: SequenceNumber, now: MonotonicTime) -> Bool {
        guard let slot = slot(of: sequenceNumber, now: now) else { return false }
        retransmitTimes[slot] = now
        retransmitCounts[slot] += 1
        return true
    }

    /// Calls `body` with the stored packet's bytes (valid only inside `body`), without copying.
    /// - Parameters:
    ///   - sequenceNumber: the packet's sequence number.
    ///   - now: the current time.
    ///   - body: reads the packet, e.g. to build an RTX packet into a send buffer.
    /// - Returns: `body`'s result, or nil when the packet is not held.
    public func withPacket<R>(
        _ sequenceNumber: SequenceNumber, now: MonotonicTime, _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R? {
        guard let slot = slot(of: sequenceNumber, now: now) else { return nil }
        let offset = slot * slotSize
        let length = lengths[slot]
        return try storage.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)]))
        }
    }

    /// Calls `body` with the stored packet's bytes writable in place (valid only inside `body`), without copying: the
    /// sender rewrites the transport-wide sequence number of a packet as it goes on the wire.
    /// - Parameters:
    ///   - sequenceNumber: the packet's sequence number.
    ///   - now: the current time.
    ///   - body: reads and may rewrite the packet (its length stays).
    /// - Returns: `body`'s result, or nil when the packet is not held.
    public mutating func withMutablePacket<R>(
        _ sequenceNumber: SequenceNumber, now: MonotonicTime, _ body: (UnsafeMutableRawBufferPointer) throws -> R
    ) rethrows -> R? {
        guard let slot = slot(of: sequenceNumber, now: now) else { return nil }
        let offset = slot * slotSize
        let length = lengths[slot]
        return try storage.withUnsafeMutableBytes { raw in
            try body(UnsafeMutableRawBufferPointer(rebasing: raw[offset..<(offset + length)]))
        }
    }

    /// Forgets every packet (e.g. after an SSRC change).
    public mutating func removeAll() {
        for i in 0..<capacity { lengths[i] = 0 }
        count = 0
    }
}
