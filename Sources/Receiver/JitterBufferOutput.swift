import RTP

/// What a `JitterBuffer` releases next.
public enum JitterBufferOutput<Packet: Sendable>: Sendable {
    /// The next packet in sequence order.
    case packet(SequenceNumber, Packet)
    /// `count` packets from `first` on did not arrive within the wait: the caller tells the depacketizer about the
    /// gap (and the frame it breaks is dropped or concealed).
    case lost(first: SequenceNumber, count: Int)
}
