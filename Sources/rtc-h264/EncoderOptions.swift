import ArgumentParser
import Codec

/// The encoder options `send`, `sdp` and `encode` share, so that the same flags give the same encoder configuration
/// whether the stream is sent, described or written to a file.
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

    @Option(help: "Encoder threads (1 gives a deterministic bitstream).")
    var threads = 1

    /// The size to render the test pattern at: `--size`, or `defaultSize`.
    var patternSize: FrameSize { size ?? Self.defaultSize }

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
        configuration.keyframeIntervalDuration = .milliseconds(Int64((keyframeIntervalDuration * 1000).rounded()))
        configuration.threads = threads
        configuration.frameSkipping = frameSkipping
        configuration.maxNALUnitSize = maxNALUnitSize
        try configuration.validate()
        return configuration
    }
}
