/// Why a packet history could not be created.
public enum PacketHistoryError: Error, Hashable, Sendable {
    /// The capacity is not a power of two in 16...32768 (slots are indexed by sequence number modulo the capacity).
    case invalidCapacity(Int)
}
