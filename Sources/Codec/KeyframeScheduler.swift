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

    /// Converts a duration to 90 kHz ticks, rounding down.
    /// - Parameter duration: the duration.
    public static func ticks(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * ticksPerSecond + attoseconds / (1_000_000_000_000_000_000 / ticksPerSecond)
    }

    /// Whether the frame with `timestamp` must be an IDR.
    /// - Parameter timestamp: the frame's 90 kHz timestamp.
    public func isKeyframeDue(timestamp: Int64) -> Bool {
        guard let last = lastKeyframeTimestamp else { return true }
        return framesSinceKeyframe >= interval || timestamp - last >= durationTicks
    }

    /// Records the outcome of one frame.
    /// - Parameters:
    ///   - timestamp: the frame's 90 kHz timestamp.
    ///   - wasKeyframe: whether the encoder produced an IDR for it.
    public mutating func record(timestamp: Int64, wasKeyframe: Bool) {
        if wasKeyframe {
            framesSinceKeyframe = 1
            lastKeyframeTimestamp = timestamp
        } else {
            framesSinceKeyframe += 1
        }
    }
}
