import H264
import MediaTime
import Video

/// An `H264Encoder` that adapts the picture size to the bitrate, as a WebRTC sender with degradation preference
/// "maintain framerate": it takes frames of the input size, encodes them at the size `QualityScaler` chooses (a rung
/// of the input's `ResolutionLadder`, scaled with libyuv inside `H264Encoder`), and on a switch re-creates the
/// OpenH264 encoder at the new size, so the next frame is an IDR with new SPS and PPS. The caller's RTP timestamps
/// and sequence numbers are untouched: a switch is just an IDR of another size in the same stream (same
/// profile and level, so `profile-level-id` stays valid).
///
/// Every switch is reported with the first frame at the new size (`AdaptiveEncodeResult.resolutionChange`) and
/// counted by reason; every skipped frame is returned with its reason and counted.
///
/// How much detail the smaller rungs keep is measured on the input (`ResamplingLossMeter`: every rung on the first
/// frame, then one rung every `QualityScaler.Settings.detailMeasureInterval` frames in turn) and given to the scaler,
/// which raises the floors of rungs whose pixels carry no detail (a soft source); the initial rung is chosen again
/// after the first frame's measurements. Only I420 input of the input size is measured; other frames leave the
/// floors as they were.
///
/// The class owns one `H264Encoder` at a time. Not thread-safe: use it from one task or thread at a time.
public final class AdaptiveH264Encoder {
    /// The stream's configuration: the input size (the ladder's top rung) and the rates in force. The encoder in use
    /// has the same settings at `currentSize`.
    public private(set) var configuration: EncoderConfiguration
    /// The size decisions and their state.
    public private(set) var scaler: QualityScaler
    /// Counts of frames, skips and switches.
    public private(set) var statistics = AdaptiveEncoderStatistics()
    private var encoder: H264Encoder
    private var pendingChange: ResolutionChange?
    private var meter: ResamplingLossMeter
    /// Input frames seen (for the measurement schedule).
    private var framesSeen = 0

    /// Creates the encoder at the rung the start bitrate allows.
    /// - Parameters:
    ///   - configuration: the stream: input size, rates, profile, level, keyframe rules; validated first.
    ///   - preference: what to give up first (default: keep the frame rate, lower the resolution).
    ///   - settings: the scaler's tunables (measured defaults).
    /// - Throws: `EncoderConfigurationError` for a bad configuration, `OpenH264Error` if OpenH264 refuses it.
    public init(configuration: EncoderConfiguration, preference: DegradationPreference = .maintainFramerate,
                settings: QualityScaler.Settings = QualityScaler.Settings()) throws {
        try configuration.validate()
        let scaler = Self.initialScaler(configuration: configuration, preference: preference, settings: settings)
        encoder = try H264Encoder(configuration: AdaptiveH264Encoder.configuration(configuration, at: scaler.rung))
        meter = try ResamplingLossMeter(ladder: scaler.ladder)
        self.configuration = configuration
        self.scaler = scaler
        let initial = ResolutionChange(from: scaler.rung, to: scaler.rung, reason: .initial)
        statistics.lastResolutionChange = initial
        pendingChange = initial
    }

    /// The size frames are encoded at now.
    public var currentSize: ResolutionRung { scaler.rung }

    /// The size an encoder of this configuration starts at before its first frame: the rung the start bitrate allows
    /// under `preference` (what `currentSize` is right after `init`). The first frame's detail measurement can only
    /// raise floors, so a soft source may then start at a smaller rung; a sharp one (the test pattern, camera
    /// footage in focus) starts at this one. For the SPS of an SDP written before the first frame
    /// (`sprop-parameter-sets`), encode at `configuration(_:at:)` of this size.
    /// - Parameters:
    ///   - configuration: the stream, as for `init`.
    ///   - preference: what to give up first.
    ///   - settings: the scaler's tunables.
    /// - Returns: the starting rung.
    /// - Throws: `EncoderConfigurationError` for a bad configuration.
    public static func startingSize(
        configuration: EncoderConfiguration, preference: DegradationPreference = .maintainFramerate,
        settings: QualityScaler.Settings = QualityScaler.Settings()
    ) throws -> ResolutionRung {
        try configuration.validate()
        return initialScaler(configuration: configuration, preference: preference, settings: settings).rung
    }

    /// The scaler a new encoder starts with (shared by `init` and `startingSize`, so that they cannot disagree).
    private static func initialScaler(configuration: EncoderConfiguration, preference: DegradationPreference,
                                      settings: QualityScaler.Settings) -> QualityScaler {
        let ladder = ResolutionLadder(width: configuration.width, height: configuration.height)
        var settings = settings
        // A mean QP above the ceiling can never happen: "at the ceiling" is the ceiling at most.
        settings.highQP = min(settings.highQP, configuration.qpRange.upperBound)
        return QualityScaler(ladder: ladder, preference: preference, settings: settings,
                             targetBitrate: configuration.targetBitrate, frameRate: configuration.frameRate)
    }

    /// SPS and PPS of the last IDR, in Annex-B form (for `sprop-parameter-sets`; they change with the size).
    public var parameterSets: [UInt8] { encoder.parameterSets }

    /// Whether an IDR was asked for and not produced yet.
    public var keyframePending: Bool { encoder.keyframePending }

    /// `configuration` at another size (same rates, profile, level and keyframe rules), as the encoder runs at a rung.
    /// - Parameters:
    ///   - configuration: the stream's configuration (the input size).
    ///   - rung: the size to encode at.
    /// - Returns: the configuration at `rung`.
    public static func configuration(_ configuration: EncoderConfiguration,
                                     at rung: ResolutionRung) -> EncoderConfiguration {
        var resized = configuration
        resized.width = rung.width
        resized.height = rung.height
        return resized
    }

    /// Encodes one borrowed I420 picture of any size (normally the input size), at the size the scaler chooses for
    /// this frame.
    /// - Parameters:
    ///   - view: the picture, only read during the call.
    ///   - timestamp: its presentation time in 90 kHz units.
    ///   - now: the current time, for the scaler's hysteresis (injected: no clock is read here).
    ///   - forceKeyframe: produce an IDR for this frame (or the next one encoded).
    ///   - allowResolutionChange: whether this frame may start a new size (a switch is an IDR); false defers any
    ///     switch to a later frame, as a caller's keyframe throttle does right after an IDR.
    /// - Returns: the result, with the change if this frame starts a new size.
    /// - Throws: `OpenH264Error`, `VideoError`; after a failed switch the previous size stays in use.
    public func encode(_ view: I420FrameView, timestamp: Int64, now: MonotonicTime, forceKeyframe: Bool = false,
                       allowResolutionChange: Bool = true) throws -> AdaptiveEncodeResult {
        try measureDetail(view)
        if allowResolutionChange { try adaptIfNeeded(now: now) }
        return record(try encoder.encode(view, timestamp: timestamp, forceKeyframe: forceKeyframe))
    }

    /// Encodes one frame of any format and size (see `H264Encoder.encode(_:timestamp:forceKeyframe:)`), at the size
    /// the scaler chooses for this frame.
    /// - Parameters:
    ///   - frame: the picture.
    ///   - timestamp: its presentation time in 90 kHz units.
    ///   - now: the current time, for the scaler's hysteresis.
    ///   - forceKeyframe: produce an IDR for this frame (or the next one encoded).
    /// - Returns: the result, with the change if this frame starts a new size.
    /// - Throws: `OpenH264Error`, `VideoError`.
    public func encode(_ frame: VideoFrame, timestamp: Int64, now: MonotonicTime, forceKeyframe: Bool = false)
        throws -> AdaptiveEncodeResult {
        if case .i420(let picture) = frame {
            try picture.withView { (view) throws in try measureDetail(view) }
        } else {
            framesSeen += 1
        }
        try adaptIfNeeded(now: now)
        return record(try encoder.encode(frame, timestamp: timestamp, forceKeyframe: forceKeyframe))
    }

    /// Asks for an IDR on the next encoded frame (RTCP PLI or FIR); it stands until an IDR is produced.
    public func requestKeyframe() { encoder.requestKeyframe() }

    /// Changes the target and the ceiling (see `H264Encoder.setBitrate(target:maxBitrate:)`: any target from
    /// `EncoderConfiguration.minimumBitrate` to the level's MaxBR, atomic). A target below the current size's floor
    /// switches to a smaller size at the next frame.
    /// - Parameters:
    ///   - target: bit/s.
    ///   - maxBitrate: the ceiling, or nil for 1.5x the target within the level.
    /// - Throws: `EncoderConfigurationError` or `OpenH264Error`; nothing changes then.
    public func setBitrate(target: Int, maxBitrate: Int? = nil) throws {
        try encoder.setBitrate(target: target, maxBitrate: maxBitrate)
        configuration.targetBitrate = target
        configuration.maxBitrate = maxBitrate
    }

    /// What the encoder gives up first when the bitrate cannot carry the input at full quality.
    public var preference: DegradationPreference { scaler.preference }

    /// Changes the degradation preference at run time. No IDR follows unless the size in use is outside what the new
    /// preference allows: then the next frame is encoded at the size it allows (an IDR with new SPS and PPS,
    /// reported with reason `preferenceChanged`); otherwise the stream goes on as it was and later decisions follow the
    /// new preference.
    /// - Parameter preference: the new preference.
    public func setDegradationPreference(_ preference: DegradationPreference) {
        scaler.setPreference(preference)
    }

    /// Changes the nominal frame rate (see `H264Encoder.setFrameRate(_:)`); the floors scale with it.
    /// - Parameter frameRate: frames per second.
    /// - Throws: `EncoderConfigurationError` or `OpenH264Error`; nothing changes then.
    public func setFrameRate(_ frameRate: Double) throws {
        // Checked against the input size, so that a switch back to it stays within the level.
        try configuration.validate(frameRate: frameRate,
                                   macroblocks: configuration.widthInMacroblocks * configuration.heightInMacroblocks)
        try encoder.setFrameRate(frameRate)
        configuration.frameRate = frameRate
    }

    /// Measures the resampling PSNR of the rungs due at this frame (all on the first, then one every
    /// `detailMeasureInterval` frames, in turn) and gives it to the scaler; after the first frame's, chooses the
    /// initial rung again (re-creating the encoder, which has not encoded anything yet, if it changes).
    private func measureDetail(_ view: I420FrameView) throws {
        defer { framesSeen += 1 }
        let rungs = scaler.ladder.count
        guard rungs > 1 else { return }
        let interval = max(1, scaler.settings.detailMeasureInterval)
        if framesSeen == 0 {
            for index in 1..<rungs {
                guard let psnr = try meter.psnr(of: view, atRung: index) else { return }
                scaler.recordResamplingPSNR(psnr, rung: index)
            }
            let index = scaler.bestRungIndex(targetBitrate: configuration.targetBitrate,
                                             frameRate: configuration.frameRate, hysteresis: 1)
            guard index != scaler.rungIndex else { return }
            let rung = scaler.ladder.rungs[index]
            encoder = try H264Encoder(configuration: AdaptiveH264Encoder.configuration(configuration, at: rung))
            scaler.chooseInitialRung(targetBitrate: configuration.targetBitrate, frameRate: configuration.frameRate)
            let change = ResolutionChange(from: scaler.rung, to: scaler.rung, reason: .initial)
            statistics.lastResolutionChange = change
            pendingChange = change
        } else if framesSeen % interval == 0 {
            let index = 1 + (framesSeen / interval - 1) % (rungs - 1)
            if let psnr = try meter.psnr(of: view, atRung: index) { scaler.recordResamplingPSNR(psnr, rung: index) }
        }
    }

    /// Asks the scaler and, on a decision, re-creates the encoder at the new size (carrying over a pending keyframe
    /// request, which the new encoder's first IDR satisfies anyway).
    private func adaptIfNeeded(now: MonotonicTime) throws {
        guard let decision = scaler.decide(targetBitrate: configuration.targetBitrate,
                                           frameRate: configuration.frameRate, now: now) else { return }
        let from = scaler.rung
        let to = scaler.ladder.rungs[decision.rungIndex]
        encoder = try H264Encoder(configuration: AdaptiveH264Encoder.configuration(configuration, at: to))
        scaler.apply(decision, now: now)
        let change = ResolutionChange(from: from, to: to, reason: decision.reason)
        statistics.countSwitch(decision.reason)
        statistics.lastResolutionChange = change
        pendingChange = change
    }

    /// Counts the outcome, feeds the scaler, and attaches a pending change to the first frame produced after it.
    private func record(_ output: EncodeResult) -> AdaptiveEncodeResult {
        var change: ResolutionChange?
        switch output {
        case .frame(_, let frameStatistics):
            statistics.framesEncoded += 1
            scaler.recordFrame(skipped: false, qp: frameStatistics.averageQP)
            change = pendingChange
            pendingChange = nil
        case .skipped(let reason):
            statistics.countSkip(reason)
            scaler.recordFrame(skipped: reason == .rateControl)
        }
        return AdaptiveEncodeResult(output: output, resolutionChange: change)
    }
}
