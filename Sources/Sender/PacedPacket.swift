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
    /// The index of the session's outgoing stream whose history holds it (0, the first, unless given).
    package var stream: Int

    /// Creates a paced packet.
    /// - Parameters:
    ///   - sequenceNumber: the (original) sequence number.
    ///   - size: bytes on the wire.
    ///   - kind: retransmission or media.
    ///   - isKeyframeStart: whether it starts a keyframe.
    public init(sequenceNumber: SequenceNumber, size: Int, kind: PacedPacketKind, isKeyframeStart: Bool = false) {
        self.init(stream: 0, sequenceNumber: sequenceNumber, size: size, kind: kind, isKeyframeStart: isKeyframeStart)
    }

    /// Creates a paced packet of one of the session's outgoing streams.
    /// - Parameters:
    ///   - stream: the index of its stream in the session.
    ///   - sequenceNumber: the (original) sequence number, in that stream.
    ///   - size: bytes on the wire.
    ///   - kind: retransmission or media.
    ///   - isKeyframeStart: whether it starts a keyframe.
    package init(
        stream: Int, sequenceNumber: SequenceNumber, size: Int, kind: PacedPacketKind, isKeyframeStart: Bool = false
    ) {
        self.stream = stream
        self.sequenceNumber = sequenceNumber
        self.size = size
        self.kind = kind
        self.enqueuedAt = .zero
        self.isKeyframeStart = isKeyframeStart
    }
}
