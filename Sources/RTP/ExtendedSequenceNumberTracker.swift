/// Extends 16-bit sequence numbers to 64 bits by counting rollovers (RFC 3550 section 6.4.1 "extended highest
/// sequence number received", Appendix A.1), tolerating reordering: a number slightly older than the highest seen
/// is placed in the correct cycle rather than counted as a wrap.
public struct ExtendedSequenceNumberTracker: Hashable, Sendable {
    /// The highest extended sequence number seen so far, or `nil` before the first packet.
    public private(set) var highest: Int64?

    /// Creates an empty tracker.
    public init() {}

    /// Extends one sequence number and updates the highest value seen.
    /// - Parameter sequenceNumber: a received sequence number.
    /// - Returns: its extended value: `cycles * 2^16 + sequenceNumber`, where a number within 2^15 behind the
    ///   highest is put in the cycle it belongs to (possibly the previous one).
    public mutating func extend(_ sequenceNumber: SequenceNumber) -> Int64 {
        guard let highest else {
            self.highest = Int64(sequenceNumber.rawValue)
            return Int64(sequenceNumber.rawValue)
        }
        let lowBits = SequenceNumber(UInt16(truncatingIfNeeded: highest))
        let extended = highest + Int64(lowBits.distance(to: sequenceNumber))
        if extended > highest { self.highest = extended }
        return extended
    }

    /// The number of 2^16 cycles completed, i.e. the upper bits of `highest` (RFC 3550 Appendix A.1 `cycles`).
    public var cycles: Int64 { (highest ?? 0) >> 16 }

    /// The extended highest sequence number as the 32-bit field of an RTCP report block (RFC 3550 section 6.4.1).
    public var reportValue: UInt32 { UInt32(truncatingIfNeeded: highest ?? 0) }
}
