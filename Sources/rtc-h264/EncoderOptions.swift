import ArgumentParser
import Codec
import MediaTime

/// The encoder options `send`, `sdp` and `encode` share, so that the same flags give the same encoder configuration
/// whether the stream is sent, described or written to a file.
///
/// `validate()` range-checks every flag before anything converts it (a usage error naming the flag, never a trap);
/// the level-dependent limits are checked by `configuration(...)` and reported against the flag they concern
/// (`flag(for:)`).
struct EncoderOptions: ParsableArguments {
    /// The test pattern's size when `--size` is not given.
    static let defaultSize = FrameSize(width: 1280, height: 720)
    /// The frame rate when neither `--fps` nor the input gives one.
    static let defaultFrameRate = 30.0
    /// The level written in the SPS unless `encode --level` says otherwise (as `EncoderConfiguration` defaults to).
    static let defaultLevel = H264Level.level3_1

    @Option(help: "Frame size WxH (default: the input's size, or \(EncoderOptions.defaultSize) for the pattern).")
    var size: FrameSize?

    @Option(help: "Frames per second (default: the input's rate, or \(Int(EncoderOptions.defaultFrameRate))).")
    var fps: Double?

    @Option(
        help: "H.264 profile: baseline (Constrained Baseline) or high. Level \(EncoderOptions.defaultLevel) by default.")
    var profile: ProfileArgument = .baseline

    @Option(help: "Target bitrate (CBR), e.g. 1.5M, 800k, 1500000.")
    var bitrate = RateArgument(bps: 1_500_000)

    @Option(help: "Hard ceiling (default: 1.5x the target, within the level).")
    var maxBitrate: RateArgument?

    @Option(help: "Frames between periodic IDRs.")
    var keyframeInterval = EncoderConfiguration.defaultKeyframeInterval

    @Option(help: "Seconds between periodic IDRs, on the frames' timestamps (whichever interval ends first).")
    var keyframeIntervalDuration = EncoderConfiguration.defaultKeyframeIntervalDuration.inSeconds

    @Option(help: "Encoder threads, each encoding one slice of every frame (1: one slice, the default). 2 cut the encode of a 720p frame by about 9 % on a 2-core machine for 0.004 dB.")
    var threads = 1

    @Option(help: "QP window of rate control, MIN-MAX within 12-51 (default: \(EncoderConfiguration.defaultQPRange.lowerBound)-\(EncoderConfiguration.defaultQPRange.upperBound), Docs/Encoder.md).")
    var qpRange: String?

    @Flag(name: .customLong("no-denoise"), help: "Turn OpenH264's denoiser off: about 2 ms less CPU per 720p frame, lower quality at the same bitrate (Docs/Encoder.md).")
    var noDenoise = false

    @Option(name: .customLong("temporal-layers"), help: ArgumentHelp(
        "Temporal layers, 1-3 (L1T1-L1T3, OpenH264's iTemporalLayerNum): frames above the base layer are never referenced by lower layers, so dropping them leaves a decodable stream at a half or a quarter of the frame rate.",
        discussion: "The stream stays plain AVC and every receiver decodes all layers. Above 1, each packet carries the dependency descriptor header extension (its layer and the frames it needs), in the SDP of send/sdp, offered over WHIP and answered over WHEP when the viewer offers it, so that a forwarder can drop the upper layers.",
        valueName: "n"))
    var temporalLayers: Int = 1

    /// The size to render the test pattern at: `--size`, or `defaultSize`.
    var patternSize: FrameSize { size ?? Self.defaultSize }

    /// Range-checks each flag on its own (the level's limits need the input and come later).
    /// - Throws: `ValidationError` naming the flag and the accepted range.
    func validate() throws {
        if let size {
            let minimum = EncoderConfiguration.minimumDimension
            guard size.width >= minimum, size.height >= minimum, size.width % 2 == 0, size.height % 2 == 0 else {
                throw ValidationError("--size: invalid frame size \(size) (even dimensions of at least \(minimum) needed)")
            }
        }
        if let fps {
            let range = EncoderConfiguration.supportedFrameRates
            guard fps.isFinite, range.contains(fps) else {
                throw ValidationError("--fps: \(EncoderConfigurationError.frameRateOutOfRange(fps, supported: range))")
            }
        }
        guard keyframeInterval > 0 else {
            throw ValidationError("--keyframe-interval \(keyframeInterval) must be a positive number of frames")
        }
        _ = try Self.keyframeDuration(seconds: keyframeIntervalDuration)
        let threadRange = 1...EncoderConfiguration.maximumThreads
        guard threadRange.contains(threads) else {
            throw ValidationError("--threads \(threads) is outside \(threadRange.lowerBound)...\(threadRange.upperBound)")
        }
        _ = try Self.parseQPRange(qpRange)
        if let maxBitrate, maxBitrate.bps < bitrate.bps {
            throw ValidationError("--max-bitrate \(RateParser.format(bitrate: maxBitrate.bps)) is below --bitrate "
                                  + RateParser.format(bitrate: bitrate.bps))
        }
    }

    /// `--qp-range MIN-MAX`, both within `EncoderConfiguration.supportedQPRange`, MIN <= MAX.
    /// - Parameter text: the flag's value, or nil for the default.
    /// - Returns: the window.
    /// - Throws: `ValidationError` naming the flag.
    static func parseQPRange(_ text: String?) throws -> ClosedRange<Int> {
        guard let text else { return EncoderConfiguration.defaultQPRange }
        let supported = EncoderConfiguration.supportedQPRange
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count <= 3 }), let low = Int(parts[0]), let high = Int(parts[1]),
              supported.contains(low), supported.contains(high), low <= high else {
            throw ValidationError("--qp-range \(text) is not MIN-MAX within \(supported.lowerBound)-\(supported.upperBound)")
        }
        return low...high
    }

    /// `--keyframe-interval-duration` as a `Duration`, range-checked as a `Double` before any conversion (NaN,
    /// infinities, 1e300 and values of 0 or less are refused).
    /// - Parameter seconds: the flag's value.
    /// - Returns: the duration, rounded to milliseconds.
    /// - Throws: `ValidationError` naming the flag.
    static func keyframeDuration(seconds: Double) throws -> Duration {
        let maximum = EncoderConfiguration.maximumKeyframeIntervalDuration.inSeconds
        guard seconds.isFinite, seconds > 0, seconds <= maximum else {
            throw ValidationError("--keyframe-interval-duration \(seconds) is outside (0, \(Int(maximum))] seconds")
        }
        let milliseconds = (seconds * 1000).rounded()
        guard milliseconds >= 1 else {
            throw ValidationError("--keyframe-interval-duration \(seconds) is below one millisecond")
        }
        return .milliseconds(Int64(milliseconds))
    }

    /// The flag a configuration error is about, for a usage error that names it.
    /// - Parameter error: the library's error.
    /// - Returns: the flag, e.g. "--bitrate".
    static func flag(for error: EncoderConfigurationError) -> String {
        switch error {
        case .oddSize, .sizeTooSmall, .frameSizeExceedsLevel, .dimensionExceedsLevel: return "--size"
        case .frameRateOutOfRange, .macroblockRateExceedsLevel: return "--fps"
        case .bitrateNotPositive, .bitrateExceedsLevel, .bitrateBelowMinimum: return "--bitrate/--max-bitrate"
        case .maxBitrateBelowTarget: return "--max-bitrate"
        case .keyframeIntervalNotPositive: return "--keyframe-interval"
        case .keyframeDurationNotPositive, .keyframeDurationTooLong: return "--keyframe-interval-duration"
        case .threadCountOutOfRange: return "--threads"
        case .maxNALUnitSizeTooSmall, .maxNALUnitSizeTooLarge: return "--mtu"
        case .qpRangeOutOfBounds: return "--qp-range"
        case .temporalLayersOutOfRange: return "--temporal-layers"
        }
    }

    /// The encoder configuration these options describe, checked against the encoder's and the level's limits.
    /// - Parameters:
    ///   - sourceWidth: the input's width, or nil for the test pattern (then `--size`, else `defaultSize`).
    ///   - sourceHeight: the input's height, or nil for the test pattern.
    ///   - sourceFrameRate: the input's frame rate, or nil when it has none (then `--fps`, else `defaultFrameRate`).
    ///   - level: the level to encode at.
    ///   - frameSkipping: whether rate control may skip frames.
    ///   - maxNALUnitSize: the slice-size limit for packetization mode 0, or nil for one slice per picture.
    /// - Returns: the validated configuration.
    /// - Throws: `EncoderConfigurationError` naming the first limit broken.
    func configuration(
        sourceWidth: Int?, sourceHeight: Int?, sourceFrameRate: Double?, level: H264Level = EncoderOptions.defaultLevel,
        frameSkipping: Bool = EncoderConfiguration.defaultFrameSkipping, maxNALUnitSize: Int? = nil
    ) throws(EncoderConfigurationError) -> EncoderConfiguration {
        var configuration = EncoderConfiguration(
            width: size?.width ?? sourceWidth ?? Self.defaultSize.width,
            height: size?.height ?? sourceHeight ?? Self.defaultSize.height,
            frameRate: fps ?? sourceFrameRate ?? Self.defaultFrameRate, targetBitrate: bitrate.bps)
        configuration.profile = profile.encoderProfile
        configuration.level = level
        configuration.maxBitrate = maxBitrate?.bps
        configuration.keyframeInterval = keyframeInterval
        // validate() refused every value this cannot convert; zero makes the library name the flag if it is bypassed.
        configuration.keyframeIntervalDuration = (try? Self.keyframeDuration(seconds: keyframeIntervalDuration)) ?? .zero
        configuration.threads = threads
        configuration.qpRange = (try? Self.parseQPRange(qpRange)) ?? EncoderConfiguration.defaultQPRange
        configuration.frameSkipping = frameSkipping
        configuration.denoise = !noDenoise
        configuration.temporalLayers = temporalLayers
        configuration.maxNALUnitSize = maxNALUnitSize
        try configuration.validate()
        return configuration
    }
}
