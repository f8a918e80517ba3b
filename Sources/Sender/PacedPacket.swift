import MediaTime
import RTP

/// One packet waiting in the `Pacer`: a reference by sequence number (the packet stays in the `PacketHistory` as its
/// plan and frame, and is written from the frame when it leaves, so queueing copies nothing) and its size for the
/// budget.
public struct PacedPacket: Hashable, Sendable {
    /// The media sequence number; for a retransmission, the original packet's (the RTX sequence number is assigned
    /// when it is sent).
    public var sequenceNumber: SequenceNumber
    /// Bytes this packet will take on the wire (RTP; the pacer does not count IP/UDP/SRTP overhead).
    public var size: Int
    /// Retransmission or new media.
    public var kind: PacedPacketKind
    /// When it was queued (set by `Pacer.enqueue`).
    public var enqueuedAt: MonotonicTime
    /// Whether it is the first packet of a keyframe (for the caller's keyframe-latency measurement).
    public var isKeyframeStart: Bool

    /// Creates a paced packet.
    /// - Parameters:
    ///   - sequenceNumber: the (original) sequence number.
    ///   - size: bytes on the wire.
    ///   - kind: retransmission or media.
    ///   - isKeyframeStart: whether it starts a keyframe.
    public init(sequenceNumber: SequenceNumber, size: Int, kind: PacedPacketKind, isKeyframeStart: Bool = false) {
        self.sequenceNumber = sequenceNumber
        self.size = size
        self.kind = kind
        self.enqueuedAt = .zero
        self.isKeyframeStart = isKeyframeStart
    }
}
