import MediaTime
import RTP

/// A reordering buffer in front of the depacketizer: packets go in as they arrive and come out in sequence order; a
/// missing packet is waited for at most `maximumWait` (counted from the arrival of the first packet after it, the
/// moment the gap became known), then reported lost so the stream moves on.
///
/// The wait is where NACK repair happens: the receiver's wiring sets `maximumWait` to cover a retransmission
/// (e.g. RTT x 1.5 plus a margin, bounded by its latency budget), so that only what NACK cannot repair in time
/// becomes a loss, and a keyframe request.
///
/// Pure and generic over the stored packet (bytes, a view, a pooled buffer index). The first packet inserted fixes
/// the start; a packet before it is `late`.
public struct JitterBuffer<Packet: Sendable>: Sendable {
    /// The default number of slots.
    public static var defaultCapacity: Int { 1024 }
    /// The default wait for a missing packet.
    public static var defaultMaximumWait: Duration { .milliseconds(200) }

    /// The number of slots: packets more than this far ahead of the next expected one restart the buffer.
    public let capacity: Int
    /// How long a missing packet is waited for, once a later one has arrived.
    public var maximumWait: Duration

    private var slots: [Packet?]
    private var sequenceNumbers: [UInt16]
    private var arrivals: [MonotonicTime]
    private var next: SequenceNumber?
    private let mask: Int

    /// Packets buffered.
    public private(set) var bufferedCount = 0
    /// Packets released in order.
    public private(set) var releasedCount = 0
    /// Sequence numbers reported lost.
    public private(set) var lostCount = 0
    /// Packets dropped because a jump restarted the buffer.
    public private(set) var droppedOnRestart = 0
    /// Packets dropped by `skip(to:)` (buffered, but behind a hole skipped over).
    public private(set) var droppedOnSkip = 0

    /// Creates an empty buffer; slot memory is allocated here.
    /// - Parameters:
    ///   - capacity: slots, a power of two in 16...32768.
    ///   - maximumWait: the wait for a missing packet (negative values count as 0).
    /// - Throws: `JitterBufferError.invalidCapacity`.
    public init(capacity: Int = defaultCapacity, maximumWait: Duration = defaultMaximumWait) throws(JitterBufferError) {
        guard (16...32768).contains(capacity), capacity & (capacity - 1) == 0 else { throw .invalidCapacity(capacity) }
        self.capacity = capacity
        self.mask = capacity - 1
        self.maximumWait = max(maximumWait, .zero)
        slots = [Packet?](repeating: nil, count: capacity)
        sequenceNumbers = [UInt16](repeating: 0, count: capacity)
        arrivals = [MonotonicTime](repeating: .zero, count: capacity)
    }

    private func index(_ sequenceNumber: SequenceNumber) -> Int { Int(sequenceNumber.rawValue) & mask }

    private func isPresent(_ sequenceNumber: SequenceNumber) -> Bool {
        let i = index(sequenceNumber)
        return slots[i] != nil && sequenceNumbers[i] == sequenceNumber.rawValue
    }

    /// The next sequence number to be released, nil before the first packet.
    public var nextSequenceNumber: SequenceNumber? { next }

    /// The packet buffered under `sequenceNumber`, if any (it stays buffered).
    /// - Parameter sequenceNumber: the packet's sequence number.
    public func packet(at sequenceNumber: SequenceNumber) -> Packet? {
        isPresent(sequenceNumber) ? slots[index(sequenceNumber)] : nil
    }

    /// Gives up every sequence number before `sequenceNumber` at once, without waiting: the missing ones are counted
    /// lost, the buffered ones dropped, and `sequenceNumber` is the next to be released. For a receiver that holds a
    /// complete keyframe behind a hole: what lies before the keyframe cannot be decoded once the hole is given up.
    /// - Parameter sequenceNumber: where to go on from; nothing happens unless it lies ahead of the next sequence
    ///   number, within `capacity`.
    /// - Returns: how many sequence numbers were lost (missing) and dropped (buffered).
    @discardableResult
    public mutating func skip(to sequenceNumber: SequenceNumber) -> (lost: Int, dropped: Int) {
        guard let next else { return (0, 0) }
        let distance = next.distance(to: sequenceNumber)
        guard distance > 0, distance < capacity else { return (0, 0) }
        var lost = 0, dropped = 0
        for offset in 0..<distance {
            let sequence = next + offset
            if isPresent(sequence) {
                slots[index(sequence)] = nil
                bufferedCount -= 1
                dropped += 1
            } else {
                lost += 1
            }
        }
        self.next = sequenceNumber
        lostCount += lost
        droppedOnSkip += dropped
        return (lost, dropped)
    }

    /// Adds an arriving packet.
    /// - Parameters:
    ///   - packet: the packet.
    ///   - sequenceNumber: its (media) sequence number.
    ///   - now: its arrival time.
    /// - Returns: what happened to it.
    @discardableResult
    public mutating func insert(_ packet: Packet, sequenceNumber: SequenceNumber, now: MonotonicTime)
        -> JitterBufferInsertResult
    {
        var result = JitterBufferInsertResult.stored
        if let next {
            let distance = next.distance(to: sequenceNumber)
            if distance < 0 { return .late }
            if distance >= capacity {
                droppedOnRestart += bufferedCount
                for i in 0..<capacity { slots[i] = nil }
                bufferedCount = 0
                self.next = sequenceNumber
                result = .restarted
            } else if isPresent(sequenceNumber) {
                return .duplicate
            }
        } else {
            next = sequenceNumber
        }
        let i = index(sequenceNumber)
        slots[i] = packet
        sequenceNumbers[i] = sequenceNumber.rawValue
        arrivals[i] = now
        bufferedCount += 1
        return result
    }

    /// The hole at the next sequence number: its length and when the first packet after it arrived.
    private func hole() -> (length: Int, evidence: MonotonicTime)? {
        guard let next, bufferedCount > 0, !isPresent(next) else { return nil }
        var length = 1
        // Ends at a buffered packet, which lies within `capacity` of `next`; the bound is a guard against a broken
        // invariant turning into an endless loop.
        while length < capacity, !isPresent(next + length) { length += 1 }
        guard length < capacity else { return nil }
        return (length, arrivals[index(next + length)])
    }

    /// Releases the next packet in order, or reports a gap whose wait is over.
    /// - Parameter now: the current time.
    /// - Returns: the next output, or nil when the next packet is missing and still waited for (or nothing is
    ///   buffered).
    public mutating func pop(now: MonotonicTime) -> JitterBufferOutput<Packet>? {
        guard let next, bufferedCount > 0 else { return nil }
        if isPresent(next) {
            let i = index(next)
            let packet = slots[i]!
            slots[i] = nil
            bufferedCount -= 1
            releasedCount += 1
            self.next = next + 1
            return .packet(next, packet)
        }
        guard let (length, evidence) = hole(), now - evidence >= maximumWait else { return nil }
        self.next = next + length
        lostCount += length
        return .lost(first: next, count: length)
    }

    /// When `pop` will report the current gap as lost, nil when no gap is being waited for (`pop` returns a packet
    /// at once when the next one is present).
    public var nextDeadline: MonotonicTime? {
        hole().map { $0.evidence + maximumWait }
    }
}
