/// Why the depacketizer dropped an access unit instead of emitting it.
public enum H264FrameDropReason: Hashable, Sendable {
    /// Packets of the frame were lost (a sequence gap inside it, or its last packets never came).
    case packetLoss
    /// A FU-A continuation arrived without its start fragment.
    case missingFragmentStart
    /// A fragmented NAL unit never got its end fragment.
    case missingFragmentEnd
    /// A payload of the frame was malformed.
    case malformedPayload(H264PayloadError)
    /// The frame grew past the depacketizer's `maxFrameSize`.
    case tooLarge(limit: Int)
}
