/// Maps a monotonic 90 kHz media time (`EncodedFrame.timestamp`, an `Int64` that never wraps) to the 32-bit RTP
/// timestamp, adding a random initial offset as RFC 3550 section 5.1 asks ("the initial value of the timestamp
/// SHOULD be random").
public struct RTPTimestampMapper: Hashable, Sendable {
    /// The offset added to every media time, modulo 2^32.
    public let offset: UInt32

    /// Creates a mapper with a known offset (tests, or a restarted sender that keeps its timeline).
    /// - Parameter offset: the value of the RTP timestamp at media time 0.
    public init(offset: UInt32) { self.offset = offset }

    /// Creates a mapper with a random offset.
    /// - Parameter generator: the random source, injected.
    public init<G: RandomNumberGenerator>(using generator: inout G) {
        self.offset = UInt32.random(in: .min ... .max, using: &generator)
    }

    /// The RTP timestamp for a media time.
    /// - Parameter mediaTime: 90 kHz ticks (may exceed 2^32 or be negative; the result wraps).
    public func timestamp(for mediaTime: Int64) -> RTPTimestamp {
        RTPTimestamp(UInt32(truncatingIfNeeded: mediaTime) &+ offset)
    }
}
