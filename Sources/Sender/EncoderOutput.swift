import Codec
import H264
import MediaTime
import RTP

/// What the encoder stage hands to the send path for each frame it took.
package enum EncoderOutput: Sendable {
    /// An access unit, with when its frame was captured and, for a requested keyframe, when the request arrived.
    case frame(EncodedFrame, EncodeStatistics, captureTime: MonotonicTime, keyframeRequestedAt: MonotonicTime?)
    /// The encoder switched to another size; the next frame is an IDR of that size.
    case resolutionChanged(ResolutionChange)
    /// Rate control skipped the frame.
    case skipped(FrameSkipReason)
    /// The frame failed and was dropped; an IDR follows.
    case failed(String)
    /// Too many frames failed in a row: the stream must end.
    case fatal(SenderError)
}
