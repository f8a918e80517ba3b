import MediaTime
import RTP

import H264
import MediaTime
import RTP

/// The sender's record of sent RTP packets, kept so that NACKed packets can be resent (RFC 4585 section 6.2.1,
/// RFC 4588) and probes can repeat recent ones.
///
/// It holds no packet bytes: per sequence number, the packet's plan (`H264PacketPlan`: header fields and where its
/// payload lies in the frame) and the frame it came from (the `EncodedFrame`'s storage, retained, not copied), so that
/// the packet is written from the frame straight into the transport's buffer each time it leaves (the frame's bytes
/// are copied once on their way to the wire). A frame's storage is released once the last of its packets has left
/// the history. Entries live in slots allocated once, indexed by sequence number modulo the capacity, so storing and
/// looking up are O(1) and allocate nothing. A packet is kept at least `retention` = max(1 s, 3 x RTT) (libwebrtc's
/// `kMinPacketDuration` and `kMinPacketDurationRtt`) unless 'capacity' newer packets have reused its slot, and is no
/// longer returned after `retention` x 3 (libwebrtc's `kPacketCullingDelayFactor`): by then the receiver has given up
/// on it. At 2,048 slots of 1,200-byte packets the one-second guarantee holds up to ~19 Mbit/s.
public struct PacketHistory: Sendable {
    /// The default number of slots (the bound; pion keeps 1,024, libwebrtc up to 9,600).
    public static let defaultCapacity = 2048
    /// The least time a packet is kept (libwebrtc `kMinPacketDuration`).
    public static let minimumRetention: Duration = .seconds(1)
    /// Packets are kept at least this many RTTs (libwebrtc `kMinPacketDurationRtt`).
    public static let retentionRoundTrips = 3
    /// Packets older than this many retention periods are not returned (libwebrtc `kPacketCullingDelayFactor`).
    public static let cullingFactor = 3

    /// What an empty slot holds: no storage (an empty array allocates nothing).
    private static let noFrame = EncodedFrame(bytes: [], nalUnits: [], isKeyframe: false, timestamp: 0)

    /// The number of slots.
    public let capacity: Int
    /// The latest round-trip time estimate; lengthens the retention when over 333 ms.
    public var roundTripTime: Duration?

    private var frames: [EncodedFrame]
    private var packets: [H264PacketPlan]
    private var occupied: [Bool]
    private var sendTimes: [MonotonicTime]
    private var retransmitTimes: [MonotonicTime]
    private var retransmitCounts: [Int]
    private let mask: Int

    /// How many packets were overwritten before `retention` had passed (the history is too small for the rate).
    public private(set) var evictedEarly = 0
    /// The number of occupied slots.
    public private(set) var count = 0

    /// Creates an empty history; all memory is allocated here.
    /// - Parameter capacity: the number of slots, a power of two in 16...32768.
    /// - Throws: `PacketHistoryError.invalidCapacity`.
    public init(capacity: Int = defaultCapacity) throws(PacketHistoryError) {
        guard (16...32768).contains(capacity), capacity & (capacity - 1) == 0 else { throw .invalidCapacity(capacity) }
        self.capacity = capacity
        self.mask = capacity - 1
        frames = [EncodedFrame](repeating: Self.noFrame, count: capacity)
        let empty = H264PacketPlan(
            sequenceNumber: SequenceNumber(0), timestamp: RTPTimestamp(0),
            payload: H264PayloadDescriptor(kind: .single(index: 0), size: 0, isLastOfAccessUnit: false), headerSize: 0)
        packets = [H264PacketPlan](repeating: empty, count: capacity)
        occupied = [Bool](repeating: false, count: capacity)
        sendTimes = [MonotonicTime](repeating: .zero, count: capacity)
        retransmitTimes = [MonotonicTime](repeating: .zero, count: capacity)
        retransmitCounts = [Int](repeating: 0, count: capacity)
    }

    /// How long packets are kept at least: max(1 s, 3 x RTT).
    public var retention: Duration {
        guard let rtt = roundTripTime, rtt > .zero else { return Self.minimumRetention }
        return max(Self.minimumRetention, rtt * Self.retentionRoundTrips)
    }

    /// Records a packet as sent at `now`, replacing whatever held its slot (the slot is picked by
    /// `packet.sequenceNumber`). Nothing is copied: the frame's storage is retained.
    /// - Parameters:
    ///   - packet: the packet's plan.
    ///   - frame: the frame it was planned from.
    ///   - now: when it was sent (or handed to the pacer).
    public mutating func store(_ packet: H264PacketPlan, of frame: EncodedFrame, now: MonotonicTime) {
        let slot = Int(packet.sequenceNumber.rawValue) & mask
        if occupied[slot] {
            if packets[slot].sequenceNumber != packet.sequenceNumber, now - sendTimes[slot] < retention {
                evictedEarly += 1
            }
        } else {
            count += 1
        }
        occupied[slot] = true
        frames[slot] = frame
        packets[slot] = packet
        sendTimes[slot] = now
        retransmitCounts[slot] = 0
    }

    private func slot(of sequenceNumber: SequenceNumber, now: MonotonicTime) -> Int? {
        let slot = Int(sequenceNumber.rawValue) & mask
        guard occupied[slot], packets[slot].sequenceNumber == sequenceNumber else { return nil }
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

    /// The packet's size in bytes (RTP header and payload), or nil when it is not held.
    /// - Parameters:
    ///   - sequenceNumber: the packet's sequence number.
    ///   - now: the current time.
    public func size(of sequenceNumber: SequenceNumber, now: MonotonicTime) -> Int? {
        slot(of: sequenceNumber, now: now).map { packets[$0].size }
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

    /// The packet's plan and the frame to write it from, or nil when it is not held (the frame's storage is shared,
    /// not copied).
    /// - Parameters:
    ///   - sequenceNumber: the packet's sequence number.
    ///   - now: the current time.
    public func packet(_ sequenceNumber: SequenceNumber, now: MonotonicTime) -> (plan: H264PacketPlan, frame: EncodedFrame)? {
        slot(of: sequenceNumber, now: now).map { (packets[$0], frames[$0]) }
    }

    /// Forgets every packet (e.g. after an SSRC change) and releases their frames.
    public mutating func removeAll() {
        for i in 0..<capacity {
            occupied[i] = false
            frames[i] = Self.noFrame
        }
        count = 0
    }
}
