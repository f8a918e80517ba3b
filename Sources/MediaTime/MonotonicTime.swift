/// A point on a monotonic clock, in nanoseconds since an arbitrary origin (the injected clock's).
///
/// The stages of the sender and the receiver never read a clock: time comes in as a `MonotonicTime` value, so that
/// they can be driven by a fake clock in tests and by `ContinuousClock`/`CLOCK_MONOTONIC` in production. All arithmetic
/// saturates instead of trapping: a process that runs for years, or a hostile value, cannot overflow it.
public struct MonotonicTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: Int64

    /// Creates a time.
    /// - Parameter nanoseconds: nanoseconds since the clock's origin.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The clock's origin.
    public static let zero = MonotonicTime(nanoseconds: 0)

    public static func < (lhs: MonotonicTime, rhs: MonotonicTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// `lhs` moved by `rhs`, saturating at the ends of the range.
    public static func + (lhs: MonotonicTime, rhs: Duration) -> MonotonicTime {
        MonotonicTime(nanoseconds: lhs.nanoseconds.addingSaturating(rhs.saturatingNanoseconds))
    }

    /// `lhs` moved back by `rhs`, saturating at the ends of the range.
    public static func - (lhs: MonotonicTime, rhs: Duration) -> MonotonicTime {
        MonotonicTime(nanoseconds: lhs.nanoseconds.subtractingSaturating(rhs.saturatingNanoseconds))
    }

    /// The time from `rhs` to `lhs` (negative when `lhs` is earlier), saturating.
    public static func - (lhs: MonotonicTime, rhs: MonotonicTime) -> Duration {
        .nanoseconds(lhs.nanoseconds.subtractingSaturating(rhs.nanoseconds))
    }

    public var description: String { "\(Double(nanoseconds) / 1e9) s" }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64`'s range (a `Duration` holds 128 bits).
    public var saturatingNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let fromSeconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if fromSeconds.overflow { return seconds < 0 ? .min : .max }
        return fromSeconds.partialValue.addingSaturating(attoseconds / 1_000_000_000)
    }
}

extension Int64 {
    /// `self + other`, clamped to the type's range.
    public func addingSaturating(_ other: Int64) -> Int64 {
        let (value, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : value
    }

    /// `self - other`, clamped to the type's range.
    public func subtractingSaturating(_ other: Int64) -> Int64 {
        let (value, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : value
    }

    /// `self * other`, clamped to the type's range.
    public func multipliedSaturating(by other: Int64) -> Int64 {
        let (value, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) == (other < 0) ? .max : .min) : value
    }
}
