/// Decides when the encoder must produce an IDR: on the first frame, when the caller asks, every `interval` frames
/// and every `duration` of the frames' own timestamps, whichever comes first. Both counters restart at every IDR the
/// encoder actually produces, whatever caused it.
///
/// Pure state: frame indices and 90 kHz timestamps come in as values.
public struct KeyframeScheduler: Sendable, Equatable {
    /// Frames between IDRs at most.
    public var interval: Int
    /// 90 kHz ticks between IDRs at most.
    public var durationTicks: Int64
    /// Frames offered since the last IDR (skipped ones included).
    public private(set) var framesSinceKeyframe = 0
    /// Timestamp of the last IDR, nil before the first.
    public private(set) var lastKeyframeTimestamp: Int64?

    /// The 90 kHz clock of RTP video (RFC 6184 section 8.2.1).
    public static let ticksPerSecond: Int64 = 90_000

    /// Creates a scheduler.
    /// - Parameters:
    ///   - interval: frames between IDRs at most (positive).
    ///   - duration: time between IDRs at most (positive).
    public init(interval: Int, duration: Duration) {
        self.interval = interval
        self.durationTicks = KeyframeScheduler.ticks(duration)
    }

    /// Converts a duration to 90 kHz ticks, rounding towards zero and saturating at `Int64`'s ends (a `Duration`
    /// holds 128 bits: `.seconds(Int64.max)` is 90 000 times more ticks than `Int64` holds).
    /// - Parameter duration: the duration.
    public static func ticks(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: ticksPerSecond)
        if overflow { return seconds < 0 ? .min : .max }
        let fraction = attoseconds / (1_000_000_000_000_000_000 / ticksPerSecond)
        let (sum, sumOverflow) = whole.addingReportingOverflow(fraction)
        if sumOverflow { return fraction < 0 ? .min : .max }
        return sum
    }

    /// Whether the frame with `timestamp` must be an IDR.
    ///
    /// The elapsed time is computed with saturation, so any pair of timestamps (a year of media time, `Int64.min`
    /// after `Int64.max`) gives an answer instead of a trap. A timestamp earlier than the last IDR's (a source that
    /// went back in time) counts as no time elapsed: only the frame rule applies until time passes the last IDR again.
    /// - Parameter timestamp: the frame's 90 kHz timestamp.
    public func isKeyframeDue(timestamp: Int64) -> Bool {
        guard let last = lastKeyframeTimestamp else { return true }
        if framesSinceKeyframe >= interval { return true }
        let (elapsed, overflow) = timestamp.subtractingReportingOverflow(last)
        if overflow { return timestamp > last }  // the true difference is beyond Int64 in that direction
        return elapsed >= durationTicks
    }

    /// Records the outcome of one frame.
    /// - Parameters:
    ///   - timestamp: the frame's 90 kHz timestamp.
    ///   - wasKeyframe: whether the encoder produced an IDR for it.
    public mutating func record(timestamp: Int64, wasKeyframe: Bool) {
        if wasKeyframe {
            framesSinceKeyframe = 1
            lastKeyframeTimestamp = timestamp
        } else if framesSinceKeyframe < Int.max {
            framesSinceKeyframe += 1
        }
    }
}
