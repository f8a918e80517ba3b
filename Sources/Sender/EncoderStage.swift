import Codec
import H264
import MediaTime
import RTP
import Video

/// The encoder stage: takes frames from the mailbox, encodes them with OpenH264 and hands the access units on.
///
/// It runs on a thread of its own (the sender's encoder loop), never on the I/O loop, so RTCP, control requests and
/// the application's channels are served while a frame encodes. It owns the encoder, the encoder's applied rates and
/// the keyframe throttle (the one owner of "a keyframe is wanted"). Confined to its thread.
final class EncoderStage {
    private let encoder: any FrameEncoder
    private var throttle: KeyframeRequestThrottle
    private let mailbox: FrameMailbox
    private let clock: MediaClock
    private let deliver: (EncoderOutput) -> Void
    private let maximumConsecutiveFailures: Int
    private var consecutiveFailures = 0
    /// The stream's first capture time: the encoder's media time counts from it.
    private var origin: MonotonicTime?

    /// Creates the stage.
    /// - Parameters:
    ///   - encoder: the encoder (created and validated by the sender).
    ///   - throttle: the keyframe-request window.
    ///   - mailbox: where frames come from.
    ///   - clock: the sender's clocks.
    ///   - maximumConsecutiveFailures: failures in a row that end the stream.
    ///   - deliver: receives each output, in order (it hops to the I/O loop).
    init(encoder: any FrameEncoder, throttle: KeyframeRequestThrottle, mailbox: FrameMailbox, clock: MediaClock,
         maximumConsecutiveFailures: Int, deliver: @escaping (EncoderOutput) -> Void) {
        self.encoder = encoder
        self.throttle = throttle
        self.mailbox = mailbox
        self.clock = clock
        self.maximumConsecutiveFailures = maximumConsecutiveFailures
        self.deliver = deliver
    }

    /// The encoder's applied target and ceiling, in bit/s.
    var appliedRates: (target: Int, ceiling: Int) {
        (encoder.configuration.targetBitrate, encoder.configuration.effectiveMaxBitrate)
    }

    /// Schedules the next `drain()` behind whatever else is queued on the encoder's thread (set by the sender).
    var reschedule: (() -> Void)?

    /// Encodes the frame waiting, if any, then lets the keyframe requests and rate changes queued meanwhile run
    /// before the next frame: a camera that always has a frame waiting must not starve them.
    func drain() {
        guard let slot = mailbox.take() else { return }  // none: the mailbox marks the encoder idle
        encode(slot)
        mailbox.recycle(slot.frame)
        if let reschedule { reschedule() } else { drain() }
    }

    /// Records a keyframe request; the next frame outside the throttle's window is an IDR.
    /// - Parameter now: when the request arrived.
    func requestKeyframe(at now: MonotonicTime) {
        throttle.request(at: now)
    }

    /// Moves the encoder to a new target and ceiling; on failure the encoder is unchanged.
    /// - Parameters:
    ///   - target: bit/s.
    ///   - ceiling: bit/s.
    /// - Throws: the encoder's error.
    func setRates(target: Int, ceiling: Int) throws {
        guard target != encoder.configuration.targetBitrate || ceiling != encoder.configuration.effectiveMaxBitrate else { return }
        try encoder.setBitrate(target: target, maxBitrate: ceiling)
    }

    /// Changes the frame rate rate control plans for.
    /// - Parameter frameRate: frames per second.
    /// - Throws: the encoder's error (the encoder is unchanged).
    func setFrameRate(_ frameRate: Double) throws {
        try encoder.setFrameRate(frameRate)
    }

    /// Changes what the encoder gives up first; the size changes (with an IDR) at the next frame outside the keyframe
    /// throttle's window only if the new preference does not allow the size in use.
    /// - Parameter preference: the new preference.
    /// - Throws: `SenderError.invalidConfiguration` when the encoder does not adapt its size (a plain encoder).
    func setDegradationPreference(_ preference: DegradationPreference) throws {
        guard let adaptive = encoder as? AdaptiveH264Encoder else {
            throw SenderError.invalidConfiguration("this sender's encoder does not adapt its resolution")
        }
        adaptive.setDegradationPreference(preference)
    }

    private func encode(_ slot: FrameMailbox.Slot) {
        let origin = self.origin ?? slot.captureTime
        self.origin = origin
        let now = clock.monotonic()
        // The window is kept in media time (the capture time the RTP timestamp follows), not in the time the frame
        // is encoded at: frames wait for the encoder for varying times (a busy machine, a slow IDR), and on the
        // encode clock a frame that waited 150 ms more than the last IDR passed the window with a timestamp 233 ms
        // after the IDR's (issue 20; KeyframeThrottleMediaTimeTests).
        let force = throttle.shouldForceKeyframe(at: slot.captureTime)
        // A size switch is an IDR too: none inside the window of the last one. The PLI flood of issue 20 made rate
        // control skip frames, the scaler stepped down on the skips, and its IDR came 33-100 ms after a requested one.
        let allowSwitch = !throttle.isWithinWindow(at: slot.captureTime)
        let requestedAt = throttle.pendingSince
        do {
            let mediaTime = RTPClock.ticks(slot.captureTime - origin)
            let adaptive = try slot.frame.withView {
                try encoder.encode($0, timestamp: mediaTime, now: now, forceKeyframe: force,
                                   allowResolutionChange: allowSwitch)
            }
            consecutiveFailures = 0
            if let change = adaptive.resolutionChange { deliver(.resolutionChanged(change)) }
            switch adaptive.output {
            case .skipped(let reason):
                deliver(.skipped(reason))
            case .frame(let frame, let statistics):
                var served: MonotonicTime?
                if frame.isKeyframe {
                    served = requestedAt
                    throttle.keyframeEncoded(at: slot.captureTime)
                }
                deliver(.frame(frame, statistics, captureTime: slot.captureTime, keyframeRequestedAt: served))
            }
        } catch {
            consecutiveFailures += 1
            if consecutiveFailures >= maximumConsecutiveFailures {
                deliver(.fatal(.tooManyFrameFailures(count: consecutiveFailures, lastError: "\(error)")))
                return
            }
            // The next frame must be an IDR: whatever the receiver decoded last may be gone.
            throttle.request(at: now)
            deliver(.failed("\(error)"))
        }
    }
}
