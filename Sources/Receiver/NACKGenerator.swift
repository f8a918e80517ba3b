import MediaTime
import RTP

/// The receiver's side of generic NACK (RFC 4585 section 6.2.1; libwebrtc `NackRequester`): tracks missing
/// sequence numbers and says which to NACK now, repeating each once per RTT (plus `resendMargin`) until it arrives, and when to give up
/// and ask for a keyframe instead. The repeat interval is the RTT plus `repeatMargin`: a small constant and a few
/// interarrival jitters, so that a packet whose retransmission was lost too is asked for again as soon as the answer
/// is overdue (libwebrtc's `NackRequester` resends after one RTT), not one fixed guess later.
///
/// Pure: the caller reports each arriving media packet (`received`), calls `poll(now:into:)` when
/// `nextDeadline` passes (or after each packet), and builds the `GenericNACK` from what it returns.
///
/// A missing packet is given up on after `maxRetries` NACKs (libwebrtc `kMaxNackRetries`, 10) or once it has been
/// missing longer than `maxAge`; more than `maxMissing` missing at once (libwebrtc `kMaxNackPackets`, 1,000) means the
/// gap is beyond repair: the list is cleared. Either way the poll asks for a keyframe.
public struct NACKGenerator: Sendable {
    /// The default number of NACKs per packet (libwebrtc `kMaxNackRetries`).
    public static let defaultMaxRetries = 10
    /// The default longest time to keep asking for one packet.
    public static let defaultMaxAge: Duration = .seconds(1)
    /// The default most packets tracked at once (libwebrtc `kMaxNackPackets`).
    public static let defaultMaxMissing = 1000
    /// The RTT assumed until one is set (libwebrtc `kDefaultRtt`).
    public static let defaultRoundTripTime: Duration = .milliseconds(100)
    /// The default constant added to the RTT before a NACK is repeated. The RTT measured here (NACK -> retransmission)
    /// already holds the sender's pacing and processing time; a sender (ours: `NACKResponder`; libwebrtc) refuses a
    /// repeat that reaches it sooner than one RTT after its last resend, and its RTT (from receiver reports) can come
    /// out a millisecond or two longer than ours, so the repeat keeps 5 ms, and the spread of arrivals is covered by
    /// `jitterFactor` x `jitter` on top. (It was 20 ms flat: at a 50 ms RTT a packet whose
    /// retransmission was lost too was repaired after about 200 ms, over the freeze threshold.)
    public static let defaultResendMargin: Duration = .milliseconds(5)
    /// Interarrival jitters (RFC 3550 section 6.4.1) added to the repeat interval.
    public static let jitterFactor = 2.0
    /// The most the jitter term adds, however noisy the path.
    public static let maximumJitterMargin: Duration = .milliseconds(100)

    /// NACKs per packet before giving up.
    public let maxRetries: Int
    /// How long to keep asking for one packet.
    public let maxAge: Duration
    /// How many missing packets may be tracked at once.
    public let maxMissing: Int
    /// How long to wait after a gap appears before the first NACK (0 by default; a little helps with reordering).
    public let reorderingDelay: Duration
    /// Added to the RTT between two NACKs for one packet, besides the jitter term.
    public let resendMargin: Duration
    /// The latest interarrival jitter of the media stream (0 until set); `jitterFactor` of it is added to the RTT
    /// between two NACKs for one packet. Negative values count as 0.
    public var jitter: Duration = .zero
    /// The latest RTT estimate: the interval between NACKs for one packet.
    public var roundTripTime: Duration?
    /// What happened so far.
    public private(set) var statistics = NACKGeneratorStatistics()

    /// One tracked sequence number, in a slot indexed by its extended number.
    private struct Entry: Sendable {
        var extended: Int64 = -1
        var isMissing = false
        var detectedAt = MonotonicTime.zero
        var lastSentAt: MonotonicTime?
        var retries = 0
    }

    /// Slots for the window of extended numbers behind the newest (libwebrtc forgets after `kMaxPacketAge`, 10,000;
    /// here the window is 4,096 packets, 4 s at 1,000 packets per second, longer than `maxAge` allows waiting).
    static let window = 4096

    private var tracker = ExtendedSequenceNumberTracker()
    private var entries = [Entry](repeating: Entry(), count: window)
    /// The oldest extended number that may still be missing.
    private var oldest: Int64?
    private var keyframeNeeded = false
    /// The number of sequence numbers currently missing.
    public private(set) var missingCount = 0

    /// Creates a generator.
    /// - Parameters:
    ///   - maxRetries: NACKs per packet, clamped to 1...100.
    ///   - maxAge: how long to keep asking, clamped to 10 ms...60 s.
    ///   - maxMissing: packets tracked at once, clamped to 1...10,000.
    ///   - reorderingDelay: wait before the first NACK, clamped to 0...1 s.
    ///   - resendMargin: added to the RTT between two NACKs for one packet, clamped to 0...1 s.
    public init(
        maxRetries: Int = defaultMaxRetries, maxAge: Duration = defaultMaxAge, maxMissing: Int = defaultMaxMissing,
        reorderingDelay: Duration = .zero, resendMargin: Duration = defaultResendMargin
    ) {
        self.resendMargin = min(max(resendMargin, .zero), .seconds(1))
        self.maxRetries = min(max(maxRetries, 1), 100)
        self.maxAge = min(max(maxAge, .milliseconds(10)), .seconds(60))
        self.maxMissing = min(max(maxMissing, 1), 10_000)
        self.reorderingDelay = min(max(reorderingDelay, .zero), .seconds(1))
    }

    private func slot(_ extended: Int64) -> Int { Int(extended & Int64(Self.window - 1)) }

    private func entry(_ extended: Int64) -> Entry? {
        let e = entries[slot(extended)]
        return e.extended == extended && e.isMissing ? e : nil
    }

    private mutating func clear(_ extended: Int64) {
        entries[slot(extended)].isMissing = false
        missingCount -= 1
    }

    /// The extended number of `sequenceNumber` relative to the newest, nil before the first packet.
    private func extended(_ sequenceNumber: SequenceNumber) -> Int64? {
        guard let highest = tracker.highest else { return nil }
        return highest + Int64(SequenceNumber(UInt16(truncatingIfNeeded: highest)).distance(to: sequenceNumber))
    }

    /// Whether `sequenceNumber` is currently missing.
    /// - Parameter sequenceNumber: the sequence number.
    public func isMissing(_ sequenceNumber: SequenceNumber) -> Bool {
        extended(sequenceNumber).map { entry($0) != nil } ?? false
    }

    /// What is added to the RTT between two NACKs for one packet: `resendMargin` plus `jitterFactor` interarrival
    /// jitters (at most `maximumJitterMargin`).
    public var repeatMargin: Duration {
        resendMargin + min(max(jitter, .zero), Self.maximumJitterMargin) * Self.jitterFactor
    }

    /// The time between two NACKs for one packet.
    public var resendInterval: Duration {
        min(max(roundTripTime ?? Self.defaultRoundTripTime, .milliseconds(1)), .seconds(60)) + repeatMargin
    }

    /// Reports an arriving media packet (after RTX is unwrapped).
    /// - Parameters:
    ///   - sequenceNumber: its media sequence number.
    ///   - now: the arrival time.
    ///   - isRetransmission: whether it came as a retransmission (RTX), for the statistics.
    public mutating func received(_ sequenceNumber: SequenceNumber, now: MonotonicTime, isRetransmission: Bool = false) {
        let previous = tracker.highest
        let current = tracker.extend(sequenceNumber)
        guard let newest = previous else { return }
        if current <= newest {
            if entry(current) != nil {
                clear(current)
                if isRetransmission {
                    statistics.recoveredByRetransmission += 1
                } else {
                    statistics.recoveredByReordering += 1
                }
            }
            return
        }
        let gap = Int(current - newest - 1)
        if gap > 0 {
            statistics.packetsMissing += gap
            if missingCount + gap > maxMissing {
                statistics.givenUp += missingCount + gap
                removeMissing(throughExtended: current)
                keyframeNeeded = true
            } else {
                // A while loop: iterating a Range<Int64> allocates in an unoptimized build.
                var extended = newest + 1
                while extended < current {
                    entries[slot(extended)] = Entry(
                        extended: extended, isMissing: true, detectedAt: now, lastSentAt: nil, retries: 0)
                    extended += 1
                }
                missingCount += gap
                if oldest == nil { oldest = newest + 1 }
            }
        }
        // Forget what falls out of the window (libwebrtc `kMaxPacketAge`).
        if let first = oldest, first <= current - Int64(Self.window) {
            removeMissing(throughExtended: current - Int64(Self.window))
        }
    }

    private mutating func removeMissing(throughExtended last: Int64) {
        guard let first = oldest else { return }
        var extended = first
        while extended <= last, missingCount > 0 {
            if entry(extended) != nil { clear(extended) }
            extended += 1
        }
        oldest = missingCount > 0 ? last + 1 : nil
    }

    /// Forgets missing packets before `sequenceNumber` (e.g. once a keyframe has been decoded, or the jitter buffer
    /// has skipped them, older packets are no longer needed).
    /// - Parameter sequenceNumber: the first sequence number still wanted.
    public mutating func removeMissing(before sequenceNumber: SequenceNumber) {
        guard let extended = extended(sequenceNumber) else { return }
        removeMissing(throughExtended: extended - 1)
    }

    /// Decides what to NACK at `now`: each missing packet whose first NACK is due (after `reorderingDelay`) or whose
    /// last NACK was one RTT ago; packets past `maxRetries` or `maxAge` are given up.
    /// - Parameters:
    ///   - now: the current time.
    ///   - nack: receives the sequence numbers to NACK, oldest first (cleared first; reuse one array).
    /// - Returns: true when a keyframe should be requested (a packet was given up, or the gap was too large); the
    ///   caller's keyframe-request throttle decides when to send the PLI.
    public mutating func poll(now: MonotonicTime, into nack: inout [SequenceNumber]) -> Bool {
        nack.removeAll(keepingCapacity: true)
        let interval = resendInterval
        var giveUp = keyframeNeeded
        keyframeNeeded = false
        if let first = oldest, let newest = tracker.highest {
            var extended = first
            var newOldest: Int64?
            while extended <= newest, missingCount > 0 {
                defer { extended += 1 }
                guard var entry = entry(extended) else { continue }
                let due = entry.lastSentAt.map { $0 + interval } ?? entry.detectedAt + reorderingDelay
                // Give up one RTT after the last try, or once too old.
                if (entry.retries >= maxRetries && due <= now) || now - entry.detectedAt > maxAge {
                    clear(extended)
                    statistics.givenUp += 1
                    giveUp = true
                    continue
                }
                if newOldest == nil { newOldest = extended }
                guard due <= now else { continue }
                entry.lastSentAt = now
                entry.retries += 1
                entries[slot(extended)] = entry
                nack.append(SequenceNumber(UInt16(truncatingIfNeeded: extended)))
            }
            oldest = missingCount > 0 ? newOldest : nil
        }
        statistics.sequenceNumbersNACKed += nack.count
        if giveUp { statistics.keyframeRequests += 1 }
        return giveUp
    }

    /// When `poll` next has something to do (a NACK due or a packet to give up), nil when nothing is missing.
    public var nextDeadline: MonotonicTime? {
        if keyframeNeeded { return .zero }
        guard let first = oldest, let newest = tracker.highest else { return nil }
        let interval = resendInterval
        var earliest: MonotonicTime?
        var extended = first
        while extended <= newest {
            defer { extended += 1 }
            guard let entry = entry(extended) else { continue }
            let due = min(entry.lastSentAt.map { $0 + interval } ?? entry.detectedAt + reorderingDelay,
                          entry.detectedAt + maxAge + .nanoseconds(1))
            earliest = earliest.map { min($0, due) } ?? due
        }
        return earliest
    }
}
