/// A 32-bit RTP timestamp (RFC 3550 section 5.1); for video the clock is 90 kHz (RFC 6184 section 5.1).
/// Arithmetic wraps modulo 2^32; differences are taken as the shortest signed distance.
public struct RTPTimestamp: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 32-bit value.
    public var rawValue: UInt32

    /// The H.264 RTP clock rate in Hz (RFC 6184 section 8.2.1: "the clock rate ... MUST be 90000").
    public static let videoClockRate: Int64 = 90_000

    /// Creates a timestamp.
    /// - Parameter rawValue: the value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates a timestamp.
    /// - Parameter value: the value.
    public init(_ value: UInt32) { self.rawValue = value }

    /// Returns the timestamp `ticks` later, wrapping modulo 2^32.
    /// - Parameter ticks: clock ticks (may be negative).
    public func advanced(by ticks: Int64) -> RTPTimestamp {
        RTPTimestamp(rawValue &+ UInt32(truncatingIfNeeded: ticks))
    }

    /// The signed shortest distance in ticks from `self` to `other` (positive when `other` is later).
    /// - Parameter other: the other timestamp.
    public func distance(to other: RTPTimestamp) -> Int64 {
        Int64(Int32(bitPattern: other.rawValue &- rawValue))
    }

    /// The decimal value.
    public var description: String { String(rawValue) }
}
