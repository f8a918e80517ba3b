#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The two clocks a session's driver reads (sender and receiver alike), injected so that tests can drive them: a
/// monotonic one for capture times, throttles and latencies, and the wall clock for the NTP timestamps of Sender
/// Reports and the RTT of reception reports.
public struct MediaClock: Sendable {
    /// Now, on the monotonic clock.
    public var monotonic: @Sendable () -> MonotonicTime
    /// Now, on the wall clock, in NTP format (RFC 3550 section 4).
    public var wall: @Sendable () -> NTPTimestamp

    /// Creates a clock from two functions.
    /// - Parameters:
    ///   - monotonic: the monotonic clock.
    ///   - wall: the wall clock.
    public init(monotonic: @escaping @Sendable () -> MonotonicTime, wall: @escaping @Sendable () -> NTPTimestamp) {
        self.monotonic = monotonic
        self.wall = wall
    }

    /// The process's clocks: `ContinuousClock` measured from `origin`, and `CLOCK_REALTIME`.
    /// - Parameter origin: the instant that maps to `MonotonicTime.zero`.
    public static func system(origin: ContinuousClock.Instant) -> MediaClock {
        MediaClock(
            monotonic: { MonotonicTime(nanoseconds: (ContinuousClock.now - origin).saturatingNanoseconds) },
            wall: {
                var ts = timespec()
                clock_gettime(CLOCK_REALTIME, &ts)
                return NTPTimestamp(unixSeconds: Int64(ts.tv_sec), nanoseconds: Int64(ts.tv_nsec))
            })
    }
}
