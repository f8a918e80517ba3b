/// Why a jitter buffer could not be created.
public enum JitterBufferError: Error, Hashable, Sendable {
    /// The capacity is not a power of two in 16...32768 (slots are indexed by sequence number modulo the capacity,
    /// which must divide 2^16 for that to survive the wrap).
    case invalidCapacity(Int)
}
