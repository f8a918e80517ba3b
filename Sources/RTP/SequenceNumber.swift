/// A 16-bit RTP sequence number (RFC 3550 section 5.1) with wrapping arithmetic and wrap-aware ordering.
///
/// Ordering follows the serial-number rule of RFC 1982: `b` is after `a` when `(b - a) mod 2^16` lies in
/// `1 ... 2^15 - 1`. Sequence numbers are not `Comparable`, because that relation is not transitive.
public struct SequenceNumber: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit value.
    public var rawValue: UInt16

    /// Creates a sequence number.
    /// - Parameter rawValue: the value.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Creates a sequence number.
    /// - Parameter value: the value.
    public init(_ value: UInt16) { self.rawValue = value }

    /// Returns the number `n` steps later, wrapping modulo 2^16.
    /// - Parameters:
    ///   - lhs: the start.
    ///   - rhs: the number of steps (may be negative).
    public static func + (lhs: SequenceNumber, rhs: Int) -> SequenceNumber {
        SequenceNumber(lhs.rawValue &+ UInt16(truncatingIfNeeded: rhs))
    }

    /// Returns the number `n` steps earlier, wrapping modulo 2^16.
    /// - Parameters:
    ///   - lhs: the start.
    ///   - rhs: the number of steps.
    public static func - (lhs: SequenceNumber, rhs: Int) -> SequenceNumber {
        SequenceNumber(lhs.rawValue &- UInt16(truncatingIfNeeded: rhs))
    }

    /// Advances by `n` steps, wrapping.
    /// - Parameters:
    ///   - lhs: the number to advance.
    ///   - rhs: the number of steps.
    public static func += (lhs: inout SequenceNumber, rhs: Int) { lhs = lhs + rhs }

    /// The signed shortest distance from `self` to `other`, in `-32768 ... 32767`: positive when `other` is after.
    /// - Parameter other: the later (or earlier) number.
    public func distance(to other: SequenceNumber) -> Int {
        Int(Int16(bitPattern: other.rawValue &- rawValue))
    }

    /// Whether `self` comes after `other` under the serial-number rule.
    /// - Parameter other: the number to compare with.
    public func isAfter(_ other: SequenceNumber) -> Bool {
        other.distance(to: self) > 0
    }

    /// Whether `self` comes before `other` under the serial-number rule.
    /// - Parameter other: the number to compare with.
    public func isBefore(_ other: SequenceNumber) -> Bool {
        distance(to: other) > 0
    }

    /// The decimal value.
    public var description: String { String(rawValue) }
}

extension SequenceNumber {
    /// The largest initial sequence number the sender picks (libwebrtc's `kMaxInitRtpSeqNumber = 32767`): starting
    /// in the lower half leaves 2^15 packets before the first wrap, which some receivers mishandle early on.
    public static let maxInitialValue: UInt16 = 0x7FFF

    /// Picks a random initial sequence number in `0 ... maxInitialValue` (RFC 3550 section 5.1: "SHOULD be random").
    /// - Parameter generator: the random source, injected.
    public static func randomInitial<G: RandomNumberGenerator>(using generator: inout G) -> SequenceNumber {
        SequenceNumber(UInt16.random(in: 0...maxInitialValue, using: &generator))
    }
}
