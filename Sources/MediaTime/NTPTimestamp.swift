/// A 64-bit NTP timestamp (RFC 5905 section 6): seconds since 1900-01-01 and a 32-bit binary fraction. RTCP
/// sender reports carry it whole; report blocks carry its middle 32 bits as LSR (RFC 3550 section 6.4.1).
public struct NTPTimestamp: RawRepresentable, Hashable, Sendable, Comparable {
    /// Seconds between the NTP era (1900) and the Unix epoch (1970) (RFC 868).
    public static let unixEpochOffset: Int64 = 2_208_988_800

    /// The 64-bit value: seconds in the upper half, fraction in the lower half.
    public var rawValue: UInt64

    /// Creates a timestamp from its 64-bit value.
    /// - Parameter rawValue: seconds << 32 | fraction.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Creates a timestamp from its halves.
    /// - Parameters:
    ///   - seconds: seconds since 1900 (modulo 2^32).
    ///   - fraction: fraction of a second in units of 2^-32 s.
    public init(seconds: UInt32, fraction: UInt32) {
        self.rawValue = UInt64(seconds) << 32 | UInt64(fraction)
    }

    /// Converts a Unix time (the caller reads the clock; this type never does). Never traps: the seconds wrap
    /// modulo 2^32 as NTP eras do, and nanoseconds outside 0..<1_000_000_000 are clamped into it.
    /// - Parameters:
    ///   - unixSeconds: seconds since 1970.
    ///   - nanoseconds: 0..<1_000_000_000.
    public init(unixSeconds: Int64, nanoseconds: Int64) {
        let seconds = UInt32(truncatingIfNeeded: unixSeconds &+ Self.unixEpochOffset)
        let clamped = UInt64(min(max(nanoseconds, 0), 999_999_999))
        let fraction = UInt32(truncatingIfNeeded: (clamped << 32) / 1_000_000_000)
        self.init(seconds: seconds, fraction: fraction)
    }

    /// The seconds half.
    public var seconds: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 32) }
    /// The fraction half.
    public var fraction: UInt32 { UInt32(truncatingIfNeeded: rawValue) }
    /// The middle 32 bits (16.16 fixed point seconds), the LSR field of a report block (RFC 3550 section 6.4.1).
    public var middle32: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) }

    /// Orders by the raw value (valid within one NTP era).
    /// - Parameters:
    ///   - lhs: a timestamp.
    ///   - rhs: another timestamp.
    public static func < (lhs: NTPTimestamp, rhs: NTPTimestamp) -> Bool { lhs.rawValue < rhs.rawValue }
}
