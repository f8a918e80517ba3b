/// Why a packet history could not be created or could not store a packet.
public enum PacketHistoryError: Error, Hashable, Sendable {
    /// The capacity is not a power of two in 16...32768 (slots are indexed by sequence number modulo the capacity).
    case invalidCapacity(Int)
    /// The slot size is not in 12...65535 bytes.
    case invalidSlotSize(Int)
    /// The packet is larger than a slot.
    case packetTooLarge(size: Int, slotSize: Int)
    /// Fewer than the 12 bytes of an RTP fixed header (RFC 3550 section 5.1).
    case notRTP(size: Int)
}
