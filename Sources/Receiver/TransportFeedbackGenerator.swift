import MediaTime
import RTP

/// The receiver's side of transport-wide congestion control (draft-holmer-rmcat-transport-wide-cc-extensions-01;
/// libwebrtc `RemoteEstimatorProxy`): records the arrival time of every packet carrying a transport-wide sequence
/// number and, every `interval`, reports the packets since the last report in `TransportFeedback` messages.
///
/// Pure: the caller reports arrivals (`received`) and calls `poll(now:into:)` when `nextDeadline` passes. Arrivals
/// are kept in preallocated slots by extended sequence number. A packet arriving after its number was already
/// reported (as lost) is not reported again; a jump of more than `maxJump` numbers (a sender restart) restarts the
/// reports at the new packet. A message holds at most `maxPacketsPerMessage` packets (so it fits in a
/// 1,200-byte datagram with an RR and the SRTCP trailer) and starts a new one where a receive delta would not fit
/// two bytes (8.19 s).
public struct TransportFeedbackGenerator: Sendable {
    /// The default report interval (libwebrtc sends every 50...250 ms depending on the rate; 50 ms reacts fastest).
    public static let defaultInterval: Duration = .milliseconds(50)
    /// Packets per message: at most 2 bytes of delta and 2/7 byte of chunk each, about 990 bytes for 430.
    public static let maxPacketsPerMessage = 430
    /// A jump in the transport-wide number larger than this restarts reporting at the new packet.
    public static let maxJump = 1000
    /// Arrivals remembered (a report is due long before this many packets arrive).
    static let capacity = 8192

    /// Our (the receiver's) SSRC, the feedback's sender.
    public let senderSSRC: SSRC
    /// The media SSRC named in the feedback.
    public let mediaSSRC: SSRC
    /// The time between reports.
    public let interval: Duration
    /// Feedback messages produced.
    public private(set) var messagesProduced = 0
    /// Packets that arrived after their number had been reported.
    public private(set) var lateArrivals = 0

    private var tracker = ExtendedSequenceNumberTracker()
    private var arrivals = [Int64](repeating: 0, count: capacity)
    private var numbers = [Int64](repeating: -1, count: capacity)
    private var nextToReport: Int64?
    private var lastReport: MonotonicTime?
    private var feedbackPacketCount: UInt8 = 0
    private var scratch: [MonotonicTime?] = []

    /// Creates a generator.
    /// - Parameters:
    ///   - senderSSRC: our SSRC.
    ///   - mediaSSRC: the media SSRC being received.
    ///   - interval: the report interval, clamped to 10 ms...1 s.
    public init(senderSSRC: SSRC, mediaSSRC: SSRC, interval: Duration = defaultInterval) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.interval = min(max(interval, .milliseconds(10)), .seconds(1))
        scratch.reserveCapacity(Self.maxPacketsPerMessage)
    }

    /// Records a packet's arrival.
    /// - Parameters:
    ///   - transportSequenceNumber: the number from its transport-wide sequence number extension.
    ///   - now: its arrival time.
    public mutating func received(_ transportSequenceNumber: SequenceNumber, now: MonotonicTime) {
        let previousHighest = tracker.highest
        let extended = tracker.extend(transportSequenceNumber)
        if let next = nextToReport, extended < next {
            lateArrivals += 1
            return
        }
        if nextToReport == nil { nextToReport = extended }
        if let previousHighest, extended - previousHighest > Int64(Self.maxJump) {
            // A jump no loss explains (a sender restart): report from here instead of thousands of "lost".
            nextToReport = extended
        }
        let slot = Int(extended & Int64(Self.capacity - 1))
        arrivals[slot] = now.nanoseconds
        numbers[slot] = extended
        if let highest = tracker.highest, let next = nextToReport, highest - next >= Int64(Self.capacity) {
            nextToReport = highest - Int64(Self.capacity) + 1  // too long without a poll: the oldest are dropped
        }
    }

    private var hasPending: Bool {
        guard let next = nextToReport, let highest = tracker.highest else { return false }
        return next <= highest
    }

    /// When the next report is due, nil when nothing is waiting to be reported.
    public var nextDeadline: MonotonicTime? {
        guard hasPending else { return nil }
        return lastReport.map { $0 + interval } ?? .zero
    }

    private func arrival(_ extended: Int64) -> MonotonicTime? {
        let slot = Int(extended & Int64(Self.capacity - 1))
        return numbers[slot] == extended ? MonotonicTime(nanoseconds: arrivals[slot]) : nil
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Produces the feedback due at `now` (none before `nextDeadline`).
    /// - Parameters:
    ///   - now: the current time.
    ///   - feedback: receives the messages (cleared first), in order.
    public mutating func poll(now: MonotonicTime, into feedback: inout [TransportFeedback]) {
        feedback.removeAll(keepingCapacity: true)
        guard let deadline = nextDeadline, deadline <= now, var start = nextToReport, let highest = tracker.highest
        else { return }
        let tick = TransportFeedback.deltaTick.saturatingNanoseconds
        let referenceUnit = TransportFeedback.referenceTimeUnit.saturatingNanoseconds
        while start <= highest {
            scratch.removeAll(keepingCapacity: true)
            var previousTick: Int64?
            var end = start
            while end <= highest, scratch.count < Self.maxPacketsPerMessage {
                let time = arrival(end)
                if let time {
                    let current = Self.floorDivide(time.nanoseconds, tick)
                    let base = previousTick ?? Self.floorDivide(time.nanoseconds, referenceUnit) * (referenceUnit / tick)
                    guard TransportFeedbackPacketStatus.received(ticks: current - base) != nil else { break }
                    previousTick = current
                }
                scratch.append(time)
                end += 1
            }
            if end == start { end += 1; scratch.append(nil) }  // cannot happen (a first delta always fits); no loop
            if let message = try? TransportFeedback(
                senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                baseSequenceNumber: SequenceNumber(UInt16(truncatingIfNeeded: start)),
                feedbackPacketCount: feedbackPacketCount, arrivals: scratch)
            {
                feedback.append(message)
                feedbackPacketCount &+= 1
                messagesProduced += 1
            }
            start = end
        }
        nextToReport = highest + 1
        lastReport = now
    }
}
