/// Something the application may want to react to, delivered on `H264Sender.events`.
public enum SenderEvent: Sendable, Equatable {
    /// Why a keyframe was asked for.
    public enum KeyframeReason: String, Sendable, Equatable {
        /// An RTCP Picture Loss Indication.
        case pictureLoss
        /// An RTCP Full Intra Request.
        case fullIntraRequest
        /// The application (`requestKeyframe()`, the control endpoint).
        case application
        /// A frame failed and the decoder's references are gone.
        case frameFailure
    }

    /// What moved the target bitrate.
    public enum BitrateReason: String, Sendable, Equatable {
        /// The application (`setBitrate(_:)`, the control endpoint).
        case application
        /// The peer's REMB.
        case estimatedMaximumBitrate
        /// The peer's TMMBR.
        case temporaryMaximumBitrate
        /// The sender's congestion control (loss reported by the peer).
        case congestionControl
    }

    /// Why a frame given to the sender did not reach the wire.
    public enum DropReason: Sendable, Equatable {
        /// A newer frame arrived while it waited for the busy encoder.
        case encoderBusy
        /// The encoder's rate control skipped it (its reason).
        case rateControl(String)
        /// Encoding, packetizing or protecting it failed (the error).
        case failure(String)
    }

    /// A keyframe was asked for.
    case keyframeRequested(KeyframeReason)
    /// A keyframe left, `latency` after the request it answered (nil for a periodic one).
    case keyframeSent(latency: Duration?)
    /// The encoder's target changed.
    case bitrateChanged(target: Int, reason: BitrateReason)
    /// A bitrate limit from the peer could not be applied (the stream is unchanged).
    case bitrateChangeFailed(String)
    /// A frame was dropped.
    case frameDropped(DropReason)
    /// The encoder switched to another picture size (resolution adaptation); `reason` is `initial`,
    /// `bitrate-below-floor`, `frame-skipping` or `bitrate-allows-larger`.
    case resolutionChanged(width: Int, height: Int, reason: String)
}
