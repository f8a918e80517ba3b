import Testing
@testable import Codec
import Video

/// Issue 11 item 1 at the library level: no field value of `EncoderConfiguration` can trap, in `validate()`, in
/// `H264Encoder.init` or in the runtime setters; each is a typed error with its exact text. Every row here trapped or
/// was accepted on 9c36cd3 (`Int(Double)` in the 1.5x ceiling, `(width + 15) / 16`, the area product, the 90 kHz
/// conversion of the keyframe duration, `UInt32(maxNALUnitSize)`).
@Suite struct EncoderConfigurationHostileTests {
    static func config(_ change: (inout EncoderConfiguration) -> Void) -> EncoderConfiguration {
        var c = EncoderConfiguration(width: 320, height: 240)
        change(&c)
        return c
    }

    static let hostile: [(String, EncoderConfiguration, EncoderConfigurationError, String)] = [
        ("NaN frame rate", config { $0.frameRate = .nan }, .frameRateOutOfRange(.nan, supported: 1...60),
         "frame rate nan is outside the supported range 1.0...60.0"),
        ("infinite frame rate", config { $0.frameRate = .infinity }, .frameRateOutOfRange(.infinity, supported: 1...60),
         "frame rate inf is outside the supported range 1.0...60.0"),
        ("-infinite frame rate", config { $0.frameRate = -.infinity },
         .frameRateOutOfRange(-.infinity, supported: 1...60),
         "frame rate -inf is outside the supported range 1.0...60.0"),
        ("zero frame rate", config { $0.frameRate = 0 }, .frameRateOutOfRange(0, supported: 1...60),
         "frame rate 0.0 is outside the supported range 1.0...60.0"),
        ("1e300 frame rate", config { $0.frameRate = 1e300 }, .frameRateOutOfRange(1e300, supported: 1...60),
         "frame rate 1e+300 is outside the supported range 1.0...60.0"),
        ("Int.max target", config { $0.targetBitrate = .max },
         .bitrateExceedsLevel(bitrate: .max, maxBitrate: 14_000_000, level: .level3_1, profile: .constrainedBaseline),
         "bitrate 9223372036854775807 bit/s exceeds level 3.1 MaxBR 14000000 bit/s for Constrained Baseline (H.264 Table A-1)"),
        ("9e18 target", config { $0.targetBitrate = 9_000_000_000_000_000_000 },
         .bitrateExceedsLevel(bitrate: 9_000_000_000_000_000_000, maxBitrate: 14_000_000, level: .level3_1,
                              profile: .constrainedBaseline),
         "bitrate 9000000000000000000 bit/s exceeds level 3.1 MaxBR 14000000 bit/s for Constrained Baseline (H.264 Table A-1)"),
        ("Int.min target", config { $0.targetBitrate = .min }, .bitrateNotPositive(.min),
         "bitrate -9223372036854775808 bit/s must be positive"),
        ("Int.min ceiling", config { $0.maxBitrate = .min }, .bitrateNotPositive(.min),
         "bitrate -9223372036854775808 bit/s must be positive"),
        ("one bit per second", config { $0.targetBitrate = 1 }, .bitrateBelowMinimum(1, minimum: 10_000),
         "bitrate 1 bit/s is below the minimum 10000 bit/s"),
        ("Int.max ceiling", config { $0.maxBitrate = .max },
         .bitrateExceedsLevel(bitrate: .max, maxBitrate: 14_000_000, level: .level3_1, profile: .constrainedBaseline),
         "bitrate 9223372036854775807 bit/s exceeds level 3.1 MaxBR 14000000 bit/s for Constrained Baseline (H.264 Table A-1)"),
        ("Int.max width", config { $0.width = .max }, .oddSize(width: .max, height: 240),
         "frame size 9223372036854775807x240 must be even in both dimensions (4:2:0)"),
        ("Int.max - 1 width", config { $0.width = .max - 1 },
         .dimensionExceedsLevel(macroblocks: 576_460_752_303_423_488, limit: 169, level: .level3_1),
         "a dimension of 576460752303423488 macroblocks exceeds level 3.1 limit sqrt(8*MaxFS) = 169 (H.264 A.3.1)"),
        ("huge both", config { $0.width = 1 << 40; $0.height = 1 << 40 },
         .dimensionExceedsLevel(macroblocks: 1 << 36, limit: 169, level: .level3_1),
         "a dimension of 68719476736 macroblocks exceeds level 3.1 limit sqrt(8*MaxFS) = 169 (H.264 A.3.1)"),
        ("Int.min height", config { $0.height = .min }, .sizeTooSmall(width: 320, height: .min, minimum: 16),
         "frame size 320x-9223372036854775808 is below the minimum 16x16"),
        ("negative keyframe interval", config { $0.keyframeInterval = .min }, .keyframeIntervalNotPositive(.min),
         "keyframe interval -9223372036854775808 frames must be positive"),
        ("negative keyframe duration", config { $0.keyframeIntervalDuration = .seconds(-1) },
         .keyframeDurationNotPositive(.seconds(-1)), "keyframe interval duration -1.0 seconds must be positive"),
        ("Int64.max s keyframe duration", config { $0.keyframeIntervalDuration = .seconds(Int64.max) },
         .keyframeDurationTooLong(.seconds(Int64.max), maximum: .seconds(86_400)),
         "keyframe interval duration 9.223372036854776e+18 seconds is above the maximum 86400.0 seconds"),
        ("a day and a second", config { $0.keyframeIntervalDuration = .seconds(86_401) },
         .keyframeDurationTooLong(.seconds(86_401), maximum: .seconds(86_400)),
         "keyframe interval duration 86401.0 seconds is above the maximum 86400.0 seconds"),
        ("Int.max threads", config { $0.threads = .max }, .threadCountOutOfRange(.max, maximum: 4),
         "thread count 9223372036854775807 is outside 1...4"),
        ("QP window from 0", config { $0.qpRange = 0...51 }, .qpRangeOutOfBounds(0...51, supported: 12...51),
         "QP range 0...51 is outside 12...51"),
        ("QP window to 52", config { $0.qpRange = 12...52 }, .qpRangeOutOfBounds(12...52, supported: 12...51),
         "QP range 12...52 is outside 12...51"),
        ("QP window Int.min...Int.max", config { $0.qpRange = Int.min...Int.max },
         .qpRangeOutOfBounds(Int.min...Int.max, supported: 12...51),
         "QP range -9223372036854775808...9223372036854775807 is outside 12...51"),
        ("Int.max NAL size", config { $0.maxNALUnitSize = .max }, .maxNALUnitSizeTooLarge(.max, maximum: 65_535),
         "maximum NAL unit size 9223372036854775807 is above the maximum 65535 bytes"),
        ("65536 NAL size", config { $0.maxNALUnitSize = 65_536 }, .maxNALUnitSizeTooLarge(65_536, maximum: 65_535),
         "maximum NAL unit size 65536 is above the maximum 65535 bytes"),
        ("Int.min NAL size", config { $0.maxNALUnitSize = .min }, .maxNALUnitSizeTooSmall(.min, minimum: 420),
         "maximum NAL unit size -9223372036854775808 is below the minimum 420 bytes"),
    ]

    @Test(arguments: hostile)
    func refusesWithATypedError(name: String, configuration: EncoderConfiguration,
                                expected: EncoderConfigurationError, message: String) {
        // Compared by their exact text (a NaN payload is never == itself).
        #expect(expected.description == message, "\(name)")
        #expect(Self.errorText { try configuration.validate() } == message, "\(name)")
        #expect(Self.errorText { _ = try H264Encoder(configuration: configuration) } == message,
                "\(name): the encoder refuses it too")
    }

    /// The text of the `EncoderConfigurationError` `body` throws, or a note saying what happened instead.
    static func errorText(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "no error"
        } catch let error as EncoderConfigurationError {
            return error.description
        } catch {
            return "another error: \(error)"
        }
    }

    @Test func theDefaultCeilingNeverOverflows() {
        for target in [Int.max, Int.max - 1, 9_000_000_000_000_000_000, 6_148_914_691_236_517_206, Int.min, -1, 0, 1,
                       3, 13_999_999, 14_000_000] {
            let c = EncoderConfiguration(width: 320, height: 240, targetBitrate: target)
            let ceiling = c.effectiveMaxBitrate
            #expect(ceiling >= min(target, 14_000_000), "target \(target)")
            #expect(ceiling <= max(target, 14_000_000), "target \(target)")
        }
        #expect(EncoderConfiguration(width: 320, height: 240, targetBitrate: 1).effectiveMaxBitrate == 2)
        #expect(EncoderConfiguration(width: 320, height: 240, targetBitrate: 3).effectiveMaxBitrate == 5)
        #expect(EncoderConfiguration(width: 320, height: 240, targetBitrate: 1_000_000).effectiveMaxBitrate == 1_500_000)
        #expect(EncoderConfiguration(width: 320, height: 240, targetBitrate: 10_000_000).effectiveMaxBitrate
                == 14_000_000)
        // A made-up level whose MaxBR x factor overflows saturates instead of trapping.
        var c = EncoderConfiguration(width: 320, height: 240, targetBitrate: .max)
        c.level = H264Level(levelIdc: 99, maxMacroblocksPerSecond: .max, maxFrameSizeMacroblocks: .max,
                            maxBitrateUnits: .max)
        #expect(c.level.maxBitrate(for: .high) == .max)
        #expect(c.effectiveMaxBitrate == .max)
        #expect(c.level.maxDimensionMacroblocks == 8_589_934_592)
        c.targetBitrate = 1_000_000
        #expect(throws: Never.self) { try c.validate() }
    }

    @Test func macroblockRateErrorTextNeverTraps() {
        let error = EncoderConfigurationError.macroblockRateExceedsLevel(
            macroblocksPerSecond: .infinity, maxMacroblocksPerSecond: 108_000, level: .level3_1)
        #expect(error.description == "inf macroblocks/s exceeds level 3.1 MaxMBPS 108000 (H.264 Table A-1)")
        let nan = EncoderConfigurationError.macroblockRateExceedsLevel(
            macroblocksPerSecond: .nan, maxMacroblocksPerSecond: 108_000, level: .level3_1)
        #expect(nan.description == "nan macroblocks/s exceeds level 3.1 MaxMBPS 108000 (H.264 Table A-1)")
    }

    @Test func runtimeSettersRefuseHostileValuesAndChangeNothing() throws {
        let encoder = try H264Encoder(configuration: EncoderConfiguration(width: 320, height: 240))
        let before = encoder.configuration
        for rate in [Double.nan, .infinity, -.infinity, 0, -1, 1e300, 61] {
            #expect(Self.errorText { try encoder.setFrameRate(rate) }
                    == EncoderConfigurationError.frameRateOutOfRange(rate, supported: 1...60).description)
        }
        let level = EncoderConfigurationError.bitrateExceedsLevel(bitrate: .max, maxBitrate: 14_000_000,
                                                                  level: .level3_1, profile: .constrainedBaseline)
        #expect(throws: level) { try encoder.setBitrate(target: .max) }
        #expect(throws: EncoderConfigurationError.bitrateNotPositive(.min)) { try encoder.setBitrate(target: .min) }
        #expect(throws: level) { try encoder.setBitrate(target: 1_000_000, maxBitrate: .max) }
        #expect(throws: EncoderConfigurationError.bitrateNotPositive(.min)) {
            try encoder.setBitrate(target: 1_000_000, maxBitrate: .min)
        }
        #expect(encoder.configuration == before)
    }
}
