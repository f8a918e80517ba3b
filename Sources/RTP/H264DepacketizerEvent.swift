/// What the depacketizer reports for the packets pushed into it.
public enum H264DepacketizerEvent: Sendable {
    /// A complete access unit.
    case frame(H264ReceivedFrame)
    /// An access unit was discarded; the decoder will miss it.
    case frameDropped(timestamp: RTPTimestamp, reason: H264FrameDropReason)
    /// The reorder window gave up on `count` packets starting at extended sequence number `first`.
    case packetsLost(first: Int64, count: Int)
    /// A datagram that is not a valid RTP packet; it was ignored.
    case malformedPacket(RTPError)
    /// A packet older than the next expected one (too late, or a duplicate); it was ignored.
    case latePacket(SequenceNumber)
    /// The SSRC changed, or the sequence numbers jumped back for good (a restarted sender): the depacketizer
    /// flushed what it held and started over with this SSRC.
    case resynchronized(SSRC)

    /// Whether the receiver should ask for a keyframe (RTCP PLI, RFC 4585 section 6.3.1): a frame was dropped or
    /// packets were lost, so later frames may reference missing data.
    public var requestsKeyframe: Bool {
        switch self {
        case .frameDropped, .packetsLost, .resynchronized: return true
        case .frame, .malformedPacket, .latePacket: return false
        }
    }
}
