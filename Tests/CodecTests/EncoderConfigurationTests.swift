import Testing
@testable import Codec
import Video

/// Every invalid configuration is refused up front with the error naming its limit.
@Suite struct EncoderConfigurationTests {
    static func config(_ w: Int, _ h: Int, fps: Double = 30, bitrate: Int = 1_500_000,
                       _ change: (inout EncoderConfiguration) -> Void = { _ in }) -> EncoderConfiguration {
        var c = EncoderConfiguration(width: w, height: h, frameRate: fps, targetBitrate: bitrate)
        change(&c)
        return c
    }

    static let invalid: [(String, EncoderConfiguration, EncoderConfigurationError)] = [
        ("odd width", config(321, 240), .oddSize(width: 321, height: 240)),
        ("odd height", config(320, 241), .oddSize(width: 320, height: 241)),
        ("too small", config(8, 240), .sizeTooSmall(width: 8, height: 240, minimum: 16)),
        ("1080p at level 3.1", config(1920, 1080),
         .frameSizeExceedsLevel(macroblocks: 8160, maxFrameSize: 3600, level: .level3_1)),
        ("720p60 at level 3.1", config(1280, 720, fps: 60),
         .macroblockRateExceedsLevel(macroblocksPerSecond: 216_000, maxMacroblocksPerSecond: 108_000,
                                     level: .level3_1)),
        ("very wide", config(3072, 64),
         .dimensionExceedsLevel(macroblocks: 192, limit: 169, level: .level3_1)),
        ("zero frame rate", config(320, 240, fps: 0), .frameRateOutOfRange(0, supported: 1...60)),
        ("frame rate above OpenH264's", config(320, 240, fps: 61), .frameRateOutOfRange(61, supported: 1...60)),
        ("zero bitrate", config(320, 240, bitrate: 0), .bitrateNotPositive(0)),
        ("negative bitrate", config(320, 240, bitrate: -1), .bitrateNotPositive(-1)),
        ("baseline above MaxBR", config(1280, 720, bitrate: 14_000_001),
         .bitrateExceedsLevel(bitrate: 14_000_001, maxBitrate: 14_000_000, level: .level3_1,
                              profile: .constrainedBaseline)),
        ("high above MaxBR", config(1280, 720, bitrate: 16_800_001) { $0.profile = .high },
         .bitrateExceedsLevel(bitrate: 16_800_001, maxBitrate: 16_800_000, level: .level3_1, profile: .high)),
        ("ceiling below target", config(320, 240, bitrate: 1_000_000) { $0.maxBitrate = 500_000 },
         .maxBitrateBelowTarget(target: 1_000_000, maxBitrate: 500_000)),
        ("ceiling above MaxBR", config(320, 240) { $0.maxBitrate = 14_500_000 },
         .bitrateExceedsLevel(bitrate: 14_500_000, maxBitrate: 14_000_000, level: .level3_1,
                              profile: .constrainedBaseline)),
        ("zero keyframe interval", config(320, 240) { $0.keyframeInterval = 0 }, .keyframeIntervalNotPositive(0)),
        ("zero keyframe duration", config(320, 240) { $0.keyframeIntervalDuration = .zero },
         .keyframeDurationNotPositive(.zero)),
        ("zero threads", config(320, 240) { $0.threads = 0 }, .threadCountOutOfRange(0, maximum: 4)),
        ("too many threads", config(320, 240) { $0.threads = 5 }, .threadCountOutOfRange(5, maximum: 4)),
        ("tiny NAL size", config(320, 240) { $0.maxNALUnitSize = 100 }, .maxNALUnitSizeTooSmall(100, minimum: 420)),
        ("NAL size just below OpenH264's floor", config(320, 240) { $0.maxNALUnitSize = 419 },
         .maxNALUnitSizeTooSmall(419, minimum: 420)),
    ]

    @Test(arguments: invalid)
    func refusesInvalid(name: String, configuration: EncoderConfiguration, expected: EncoderConfigurationError) {
        #expect(throws: expected, "\(name)") { try configuration.validate() }
        #expect(throws: expected, "\(name): the encoder refuses it too") {
            _ = try H264Encoder(configuration: configuration)
        }
    }

    @Test func errorsNameTheLimit() {
        let error = EncoderConfigurationError.frameSizeExceedsLevel(macroblocks: 8160, maxFrameSize: 3600,
                                                                    level: .level3_1)
        #expect(error.description.contains("MaxFS 3600"))
        #expect(error.description.contains("level 3.1"))
    }

    @Test func acceptsTheLevelEdges() throws {
        try EncoderConfigurationTests.config(1280, 720, fps: 30, bitrate: 14_000_000) { $0.maxBitrate = 14_000_000 }
            .validate()
        try EncoderConfigurationTests.config(1280, 720, bitrate: 16_800_000) { $0.profile = .high }.validate()
        try EncoderConfigurationTests.config(16, 16).validate()
        try EncoderConfigurationTests.config(1920, 1080) { $0.level = .level4_0 }.validate()
    }

    @Test func theSmallestNALSizeAcceptedIsOneOpenH264Initialises() throws {
        let smallest = EncoderConfigurationTests.config(320, 240) { $0.maxNALUnitSize = EncoderConfiguration.minimumMaxNALUnitSize }
        let encoder = try H264Encoder(configuration: smallest)
        let frame = try #require(try encoder.encode(.i420(TestPattern(width: 320, height: 240).frame(0)), timestamp: 0).encodedFrame)
        #expect(frame.isKeyframe)
        #expect(frame.nalUnits.allSatisfy { $0.length <= EncoderConfiguration.minimumMaxNALUnitSize })
    }

    @Test func defaults() {
        let c = EncoderConfiguration(width: 1280, height: 720)
        #expect(c.profile == .constrainedBaseline)
        #expect(c.level.levelIdc == 31)
        #expect(c.frameRate == 30)
        #expect(c.targetBitrate == 1_500_000)
        #expect(c.effectiveMaxBitrate == 2_250_000)
        #expect(c.keyframeInterval == 7200)
        #expect(c.keyframeIntervalDuration == .seconds(240))
        #expect(c.threads == 1)
        #expect(c.maxNALUnitSize == nil)
        #expect(c.frameSkipping)
        #expect(c.qpRange == 12...45)
        // The default ceiling never exceeds the level's MaxBR.
        #expect(EncoderConfigurationTests.config(1280, 720, bitrate: 12_000_000).effectiveMaxBitrate == 14_000_000)
    }

    /// Issue 13 item 3: the QP window is ours, not OpenH264's silent 12...42 (which it substitutes when iMinQp is 0).
    @Test(arguments: [12...45, 12...51, 20...30, 12...12])
    func theQPWindowReachesOpenH264Unchanged(range: ClosedRange<Int>) throws {
        var c = EncoderConfiguration(width: 320, height: 240)
        c.qpRange = range
        #expect(try H264Encoder(configuration: c).openH264QPRange == range)
    }

    /// Issue 13: the denoiser is on by default and the configuration reaches OpenH264 either way.
    @Test func theDenoiserIsOnByDefaultAndCanBeTurnedOff() throws {
        var c = EncoderConfiguration(width: 320, height: 240)
        #expect(c.denoise)
        #expect(try H264Encoder(configuration: c).openH264Denoise)
        c.denoise = false
        #expect(try H264Encoder(configuration: c).openH264Denoise == false)
    }

    @Test func openH264ErrorKeepsTheRawStatus() {
        let error = OpenH264Error(operation: "InitializeExt", status: 1)
        #expect(error.description == "OpenH264 InitializeExt failed: cmInitParaError (1)")
        let decode = OpenH264Error(operation: "DecodeFrameNoDelay", status: 0x14)
        #expect(decode.statusName == "dsBitstreamError|dsNoParamSets")
    }
}
