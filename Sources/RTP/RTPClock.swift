import MediaTime

/// The stream's 90 kHz RTP clock (RFC 6184 section 8.2.1), derived from frames' capture times.
///
/// A frame captured `d` after the stream's first frame gets `offset + round(d x 90 kHz)`, so frames of a file at
/// 30 fps step exactly 3,000 ticks and a camera's capture times survive to the receiver (A/V sync with a separate
/// audio sender on the same clock). Sender Reports map "now" through the same function. The offset is random
/// (RFC 3550 section 5.1). Arithmetic wraps modulo 2^32 as RTP timestamps do, and never overflows, however long the
/// stream runs.
public struct RTPClock: Sendable, Hashable {
    /// The RTP clock rate of video (RFC 6184 section 8.2.1).
    public static let rate: Int64 = 90_000
    /// The random offset added to every timestamp.
    public let offset: UInt32
    /// The capture time that maps to `offset`: the stream's first frame.
    public let origin: MonotonicTime

    /// Creates a clock.
    /// - Parameters:
    ///   - offset: the random initial timestamp.
    ///   - origin: the first frame's capture time.
    public init(offset: UInt32, origin: MonotonicTime) {
        self.offset = offset
        self.origin = origin
    }

    /// The RTP timestamp of an instant.
    /// - Parameter time: a capture time (or now, for a Sender Report).
    public func timestamp(at time: MonotonicTime) -> RTPTimestamp {
        RTPTimestamp(UInt32(truncatingIfNeeded: Self.ticks(time - origin)) &+ offset)
    }

    /// A duration in 90 kHz ticks, rounded to the nearest tick (halves away from zero), without overflow.
    /// - Parameter duration: any duration.
    public static func ticks(_ duration: Duration) -> Int64 {
        let nanoseconds = duration.saturatingNanoseconds
        // 1 tick = 100,000 / 9 ns: split to keep the product in range.
        let magnitude = nanoseconds == .min ? Int64.max : abs(nanoseconds)
        let whole = magnitude / 100_000
        let rest = magnitude % 100_000
        let ticks = whole * 9 + (rest * 9 + 50_000) / 100_000
        return nanoseconds < 0 ? -ticks : ticks
    }
}
