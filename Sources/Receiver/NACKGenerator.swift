import RTP

/// The receiver's side of generic NACK (RFC 4585 section 6.2.1; libwebrtc `NackRequester`): tracks missing
/// sequence numbers and says which to NACK now, repeating each once per RTT (plus `resendMargin`) until it arrives, and when to give up
/// and ask for a keyframe instead.
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
    /// The default time added to the RTT before a NACK is repeated: a retransmission takes the RTT plus the sender's
    /// pacing and processing time, and a sender (ours: `NACKResponder`, RTT + 5 ms) refuses a repeat that comes
    /// sooner than one RTT after its last resend; repeating at exactly one RTT would mostly be refused.
    public static let defaultResendMargin: Duration = .milliseconds(20)
    /// Sequence numbers further than this behind the newest are forgotten (libwebrtc `kMaxPacketAge`).
    public static let maxPacketAge = 10_000

    /// NACKs per packet before giving up.
    public let maxRetries: Int
    /// How long to keep asking for one packet.
    public let maxAge: Duration
    /// How many missing packets may be tracked at once.
    public let maxMissing: Int
    /// How long to wait after a gap appears before the first NACK (0 by default; a little helps with reordering).
    public let reorderingDelay: Duration
    /// Added to the RTT between two NACKs for one packet.
    public let resendMargin: Duration
    /// The latest RTT estimate: the interval between NACKs for one packet.
    public var roundTripTime: Duration?
    /// What happened so far.
    public private(set) var statistics = NACKGeneratorStatistics()

    private struct Entry: Sendable {
        var detectedAt: MonotonicTime
        var lastSentAt: MonotonicTime?
        var retries: Int
    }

    private var newest: SequenceNumber?
    private var missing: [UInt16: Entry] = [:]
    private var keyframeNeeded = false

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

    /// The number of sequence numbers currently missing.
    public var missingCount: Int { missing.count }

    /// Whether `sequenceNumber` is currently missing.
    /// - Parameter sequenceNumber: the sequence number.
    public func isMissing(_ sequenceNumber: SequenceNumber) -> Bool { missing[sequenceNumber.rawValue] != nil }

    private var resendInterval: Duration {
        max(roundTripTime ?? Self.defaultRoundTripTime, .milliseconds(1)) + resendMargin
    }

    /// Reports an arriving media packet (after RTX is unwrapped).
    /// - Parameters:
    ///   - sequenceNumber: its media sequence number.
    ///   - now: the arrival time.
    ///   - isRetransmission: whether it came as a retransmission (RTX), for the statistics.
    public mutating func received(_ sequenceNumber: SequenceNumber, now: MonotonicTime, isRetransmission: Bool = false) {
        guard let newest else {
            self.newest = sequenceNumber
            return
        }
        let distance = newest.distance(to: sequenceNumber)
        if distance <= 0 {
            if missing.removeValue(forKey: sequenceNumber.rawValue) != nil {
                if isRetransmission {
                    statistics.recoveredByRetransmission += 1
                } else {
                    statistics.recoveredByReordering += 1
                }
            }
            return
        }
        self.newest = sequenceNumber
        let gap = distance - 1
        if gap > 0 {
            if missing.count + gap > maxMissing {
                statistics.givenUp += missing.count + gap
                statistics.packetsMissing += gap
                missing.removeAll(keepingCapacity: true)
                keyframeNeeded = true
            } else {
                for step in 1...gap {
                    missing[(newest + step).rawValue] = Entry(detectedAt: now, lastSentAt: nil, retries: 0)
                }
                statistics.packetsMissing += gap
            }
        }
        if !missing.isEmpty {
            // Forget what is too far behind to matter (libwebrtc `kMaxPacketAge`).
            for key in missing.keys where SequenceNumber(key).distance(to: sequenceNumber) > Self.maxPacketAge {
                missing.removeValue(forKey: key)
            }
        }
    }

    /// Forgets missing packets before `sequenceNumber` (e.g. once a keyframe has been decoded, older packets are
    /// no longer needed).
    /// - Parameter sequenceNumber: the first sequence number still wanted.
    public mutating func removeMissing(before sequenceNumber: SequenceNumber) {
        for key in missing.keys where SequenceNumber(key).isBefore(sequenceNumber) {
            missing.removeValue(forKey: key)
        }
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
        for (key, var entry) in missing {
            let due = entry.lastSentAt.map { $0 + interval } ?? entry.detectedAt + reorderingDelay
            // Give up one RTT after the last try, or once too old.
            if (entry.retries >= maxRetries && due <= now) || now - entry.detectedAt > maxAge {
                missing.removeValue(forKey: key)
                statistics.givenUp += 1
                giveUp = true
                continue
            }
            guard due <= now else { continue }
            entry.lastSentAt = now
            entry.retries += 1
            missing[key] = entry
            nack.append(SequenceNumber(key))
        }
        if let newest {
            nack.sort { newest.distance(to: $0) < newest.distance(to: $1) }
        }
        statistics.sequenceNumbersNACKed += nack.count
        if giveUp { statistics.keyframeRequests += 1 }
        return giveUp
    }

    /// When `poll` next has something to do (a NACK due or a packet to give up), nil when nothing is missing.
    public var nextDeadline: MonotonicTime? {
        if keyframeNeeded { return .zero }
        let interval = resendInterval
        var earliest: MonotonicTime?
        for entry in missing.values {
            let due = min(entry.lastSentAt.map { $0 + interval } ?? entry.detectedAt + reorderingDelay,
                          entry.detectedAt + maxAge + .nanoseconds(1))
            earliest = earliest.map { min($0, due) } ?? due
        }
        return earliest
    }
}
