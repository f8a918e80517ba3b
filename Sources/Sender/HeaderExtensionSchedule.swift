import MediaTime
import RTP

/// Which per-frame header extensions a stream's next frame carries (libwebrtc's rules, read in
/// `absolute_capture_time_sender.cc` and `rtp_sender_video.cc`); the packetizer then puts the capture time on the
/// frame's first packet and the playout delay on every packet.
///
/// - **abs-capture-time**: sent when libwebrtc's `AbsoluteCaptureTimeSender::OnSendPacket` would send it: forced on
///   keyframes; otherwise when none was sent in the last second (`interpolationMaximumInterval`, by the session's
///   clock), or when the receiver, extrapolating the last value sent along the RTP timestamps (90 kHz), would be off
///   by more than 1 ms (`interpolationMaximumError`: a capture clock that jumped, or timestamps re-anchored). A
///   receiver interpolates the frames in between the same way.
/// - **playout-delay**: on every packet of the stream's first frame and of every keyframe. libwebrtc keeps it on
///   every frame from a change of the delay until a keyframe or base-layer frame has been sent, and on every
///   keyframe; our delay is fixed for the session and the first frame is a keyframe, so that is the first frame and
///   the keyframes.
/// - **dependency descriptor**: on every frame, from `DependencyDescriptorSequence` (the structure on every
///   keyframe). A frame it cannot describe (never with libwebrtc's L1T1-L1T3 structures) goes without one.
struct HeaderExtensionSchedule {
    /// Whether the stream sends the capture time at all.
    let sendsAbsoluteCaptureTime: Bool
    /// The delay bounds the stream sends, if any.
    let playoutDelay: PlayoutDelay?
    /// The capture time last sent: its frame's RTP timestamp, the value, and when it was sent.
    private var lastCaptureTime: (timestamp: RTPTimestamp, value: NTPTimestamp, sentAt: MonotonicTime)?
    /// Whether the playout delay is still to go out with the next frame.
    private var playoutDelayPending = true
    /// The frames' dependency descriptors, when the stream sends them.
    private(set) var dependencyDescriptors: DependencyDescriptorSequence?

    /// libwebrtc's `AbsoluteCaptureTimeSender::kInterpolationMaxInterval`.
    static let interpolationMaximumInterval = Duration.seconds(1)
    /// libwebrtc's `AbsoluteCaptureTimeSender::kInterpolationMaxError`, in UQ32.32 units (2^32 / 1000).
    static let interpolationMaximumError: UInt64 = (1 << 32) / 1000

    /// Creates a schedule.
    /// - Parameters:
    ///   - sendsAbsoluteCaptureTime: whether the capture time extension is negotiated.
    ///   - playoutDelay: the delay bounds to send, or nil (also when the extension is not negotiated).
    ///   - dependencyDescriptors: the descriptor sequence, when the extension is negotiated.
    init(
        sendsAbsoluteCaptureTime: Bool, playoutDelay: PlayoutDelay?,
        dependencyDescriptors: DependencyDescriptorSequence? = nil
    ) {
        self.sendsAbsoluteCaptureTime = sendsAbsoluteCaptureTime
        self.playoutDelay = playoutDelay
        self.dependencyDescriptors = dependencyDescriptors
    }

    /// The extensions of the next frame; records what is sent.
    /// - Parameters:
    ///   - timestamp: the frame's RTP timestamp.
    ///   - captureTime: its capture time on the wall clock (NTP format).
    ///   - isKeyframe: whether it is an IDR.
    ///   - temporalLayer: its temporal layer.
    ///   - now: the session's time now.
    /// - Returns: the values for the packetizer.
    mutating func extensions(
        timestamp: RTPTimestamp, captureTime: NTPTimestamp, isKeyframe: Bool, temporalLayer: Int = 0,
        now: MonotonicTime
    ) -> RTPPacketExtensions {
        var result = RTPPacketExtensions.none
        if sendsAbsoluteCaptureTime,
           isKeyframe || shouldSendCaptureTime(timestamp: timestamp, captureTime: captureTime, now: now)
        {
            result.absoluteCaptureTime = AbsoluteCaptureTime(captureTimestamp: captureTime)
            lastCaptureTime = (timestamp, captureTime, now)
        }
        if let playoutDelay, playoutDelayPending || isKeyframe {
            result.playoutDelay = playoutDelay
        }
        playoutDelayPending = false
        result.dependencyDescriptor = try? dependencyDescriptors?.describe(
            isKeyframe: isKeyframe, temporalLayer: temporalLayer)
        return result
    }

    /// libwebrtc's `ShouldSendExtension` for a frame that is not a keyframe.
    private func shouldSendCaptureTime(timestamp: RTPTimestamp, captureTime: NTPTimestamp, now: MonotonicTime) -> Bool {
        guard let last = lastCaptureTime, now - last.sentAt <= Self.interpolationMaximumInterval else { return true }
        let interpolated = AbsoluteCaptureTime.interpolate(last.value, from: last.timestamp, to: timestamp)
        let error = min(interpolated.rawValue &- captureTime.rawValue, captureTime.rawValue &- interpolated.rawValue)
        return error > Self.interpolationMaximumError
    }
}
