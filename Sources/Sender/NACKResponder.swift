import Codec
import MediaTime
import RTP

/// Decides which packets to resend for a generic NACK (RFC 4585 section 6.2.1), reading and marking a
/// `PacketHistory`; it sends nothing itself (the pacer and the transport do).
///
/// Two rules keep a lossy or hostile receiver from causing a storm:
/// - a packet is resent at most once per RTT plus a margin, however often it is asked for (libwebrtc
///   `RtpPacketHistory::VerifyRtt`): a second copy inside one RTT is most likely still on its way;
/// - retransmissions draw on a byte budget that refills at the target rate and holds at most `budgetWindow` of it
///   (500 ms by default), so resending can never take more than the target rate on average.
///
/// A packet asked for again at least one RTT after it was resent (its retransmission was lost too) is resent as
/// `repeatCopies` copies (2 by default), once. At 5 % random loss each way a repair round fails about 5 % of the time
/// (the retransmission is lost; the receiver's NACK goes twice), and a packet that needs a third round is repaired
/// only after about 200 ms at a 50 ms RTT, over the freeze threshold. Two copies of the second retransmission make
/// that third round about 20 times rarer, for about 0.3 % more retransmitted bytes (27-34 extra copies a minute at
/// 5 % and 1.5 Mbit/s). Later repeats (the path is not just lossy) and the budget stay as they were: one copy, at
/// most once per RTT.
public struct NACKResponder: Sendable {
    /// The default budget window: the target rate over 500 ms.
    public static let defaultBudgetWindow: Duration = .milliseconds(500)
    /// The default margin added to the RTT before a packet may be resent again: none, as in libwebrtc
    /// (`RtpPacketHistory::VerifyRtt` refuses a resend only while `now < last send + RTT`). The receiver spaces its
    /// repeats by its own RTT (which holds our pacing) plus a margin; a margin here as well would refuse a repeat
    /// whenever our RR-based RTT sample comes out a few milliseconds longer than the receiver's, and a refused repeat
    /// costs one more RTT of freeze. Copies of one NACK (a receiver sending two against loss) arrive within the RTT
    /// and are still refused.
    public static let defaultMargin: Duration = .zero
    /// The RTT assumed until one is measured (libwebrtc's `kDefaultRtt`, 100 ms... in `NackRequester`).
    public static let defaultRoundTripTime: Duration = .milliseconds(100)
    /// The default number of copies sent for the first repeated request of a packet.
    public static let defaultRepeatCopies = 2

    /// The media stream whose packets this responder resends.
    public let mediaSSRC: SSRC
    /// How much of the target rate the budget can hold.
    public let budgetWindow: Duration
    /// Added to the RTT before a packet may be resent again.
    public let margin: Duration
    /// Copies sent when a packet is asked for again after its first retransmission (1 turns this off).
    public let repeatCopies: Int
    /// The RTT a resend must wait; `defaultRoundTripTime` is used until one is set. `updateRoundTripTime(_:)` keeps
    /// it at the lowest of the latest samples.
    public var roundTripTime: Duration?
    /// How many of the latest RTT samples `updateRoundTripTime(_:)` takes the lowest of.
    public static let roundTripSamples = 5
    /// What happened so far.
    public private(set) var statistics = NACKResponderStatistics()

    private var targetBitrate: Int
    private var roundTripRing = [Duration](repeating: .zero, count: NACKResponder.roundTripSamples)
    private var roundTripCount = 0
    private var roundTripNext = 0
    private var budgetBytes: Double
    private var budgetUpdated: MonotonicTime?

    /// Creates a responder with a full budget.
    /// - Parameters:
    ///   - mediaSSRC: our media SSRC; NACKs for other SSRCs are counted and ignored.
    ///   - targetBitrate: the media target in bits per second (clamped to 0...10 Gbit/s).
    ///   - budgetWindow: the budget's size as a duration of the target rate (clamped to 10 ms...10 s).
    ///   - margin: added to the RTT (clamped to 0...1 s).
    ///   - repeatCopies: copies of a packet's second retransmission (clamped to 1...3).
    public init(
        mediaSSRC: SSRC, targetBitrate: Int, budgetWindow: Duration = defaultBudgetWindow,
        margin: Duration = defaultMargin, repeatCopies: Int = defaultRepeatCopies
    ) {
        self.mediaSSRC = mediaSSRC
        self.repeatCopies = min(max(repeatCopies, 1), 3)
        self.budgetWindow = min(max(budgetWindow, .milliseconds(10)), .seconds(10))
        self.margin = min(max(margin, .zero), .seconds(1))
        self.targetBitrate = Self.clampBitrate(targetBitrate)
        self.budgetBytes = 0
        self.budgetBytes = budgetCapacity
    }

    private static func clampBitrate(_ bitrate: Int) -> Int { min(max(bitrate, 0), 10_000_000_000) }

    /// The most the budget holds, in bytes.
    private var budgetCapacity: Double { Double(targetBitrate) / 8 * budgetWindow.inSeconds }

    /// Changes the target rate the budget refills at (e.g. when congestion control moves it).
    /// - Parameter bitsPerSecond: the media target (clamped to 0...10 Gbit/s).
    public mutating func setTargetBitrate(_ bitsPerSecond: Int) {
        targetBitrate = Self.clampBitrate(bitsPerSecond)
        budgetBytes = min(budgetBytes, budgetCapacity)
    }

    /// The bytes the budget holds at `now`.
    /// - Parameter now: the current time.
    public func availableBudget(now: MonotonicTime) -> Int {
        Int(refilled(now: now))
    }

    private func refilled(now: MonotonicTime) -> Double {
        guard let last = budgetUpdated else { return budgetBytes }
        let elapsed = max(.zero, now - last).inSeconds
        return min(budgetCapacity, budgetBytes + Double(targetBitrate) / 8 * elapsed)
    }

    /// Takes an RTT sample (from a receiver report): the resend guard becomes the lowest of the latest
    /// `roundTripSamples`. A report's RTT holds the path's queues and the two ends' processing and jumps by several
    /// milliseconds from one report to the next (51-60 ms on a 50 ms path in the network benchmark); the receiver's
    /// repeat comes one RTT of its own (plus a few ms) after its first NACK, so a guard that followed the latest,
    /// higher sample refused a due repeat now and then, and each refusal cost a whole round (a 205-215 ms freeze at
    /// 5 % loss). The lowest recent sample still bounds a storm to once per RTT of the path.
    /// - Parameter sample: the RTT sample (negative values count as 0).
    public mutating func updateRoundTripTime(_ sample: Duration) {
        roundTripRing[roundTripNext] = max(sample, .zero)
        roundTripNext = (roundTripNext + 1) % Self.roundTripSamples
        roundTripCount = min(roundTripCount + 1, Self.roundTripSamples)
        var lowest = roundTripRing[0]
        var index = 1
        while index < roundTripCount {
            lowest = min(lowest, roundTripRing[index])
            index += 1
        }
        roundTripTime = lowest
    }

    /// The least time between two sends of one packet.
    public var minimumResendInterval: Duration { (roundTripTime ?? Self.defaultRoundTripTime) + margin }

    /// Handles one NACK: for each requested sequence number, in order, decides whether to resend it, marks the chosen
    /// ones as retransmitted in `history` and appends them to `retransmit` (a packet's second retransmission appears
    /// `repeatCopies` times in a row, budget allowing).
    /// - Parameters:
    ///   - nack: the parsed NACK.
    ///   - now: the current time.
    ///   - history: the sender's packet history.
    ///   - retransmit: receives the sequence numbers to resend (the caller reuses one array, so this does not
    ///     allocate once its capacity is reached).
    public mutating func respond(
        to nack: GenericNACK, now: MonotonicTime, history: inout PacketHistory, retransmit: inout [SequenceNumber]
    ) {
        guard nack.mediaSSRC == mediaSSRC else {
            statistics.nacksForOtherSSRC += 1
            return
        }
        statistics.nacksReceived += 1
        budgetBytes = refilled(now: now)
        budgetUpdated = now
        let interval = minimumResendInterval
        // Indexed rather than `for pair in`: an unoptimized build allocates an iterator box per loop.
        let pairs = nack.pairs
        for index in 0..<pairs.count {
            let pair = pairs[index]
            handle(pair.packetID, now: now, interval: interval, history: &history, retransmit: &retransmit)
            var mask = pair.lostBitmask
            var bit = 0
            while mask != 0 {
                if mask & 1 != 0 {
                    handle(pair.packetID + (bit + 1), now: now, interval: interval, history: &history, retransmit: &retransmit)
                }
                mask >>= 1
                bit += 1
            }
        }
    }

    private mutating func handle(
        _ sequenceNumber: SequenceNumber, now: MonotonicTime, interval: Duration, history: inout PacketHistory,
        retransmit: inout [SequenceNumber]
    ) {
        statistics.packetsRequested += 1
        guard let size = history.size(of: sequenceNumber, now: now),
            let (count, last) = history.retransmissions(of: sequenceNumber, now: now)
        else {
            statistics.ignoredNotInHistory += 1
            return
        }
        if count > 0, let last, now - last < interval {
            statistics.ignoredTooSoon += 1
            return
        }
        guard budgetBytes >= Double(size) else {
            statistics.ignoredOverBudget += 1
            return
        }
        // The first repeat: the retransmission was lost, so this one goes as `repeatCopies` copies (what the budget
        // allows; at least one).
        let copies = count == 1 ? min(repeatCopies, Int(budgetBytes / Double(max(size, 1)))) : 1
        budgetBytes -= Double(size * copies)
        history.markRetransmitted(sequenceNumber, now: now)
        var copy = 0
        while copy < copies {  // not `for in 0..<copies`: an unoptimized build allocates its iterator
            retransmit.append(sequenceNumber)
            copy += 1
        }
        statistics.packetsRetransmitted += copies
        statistics.bytesRetransmitted += size * copies
        if copies > 1 { statistics.extraCopies += copies - 1 }
    }
}
