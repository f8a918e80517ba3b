import Testing
import H264
import Video
@testable import Codec

/// Issue 11 item 3: any target from the minimum to the level's maximum is accepted whatever the starting rate, the
/// produced bitrate follows it, and a refused change changes nothing. On 9c36cd3, at 720p from 1.5 Mbit/s,
/// `setBitrate(target: 3_000_000)` failed with cmInitParaError after OpenH264 had already taken the new stream target
/// (its layer 0 ceiling was still 2.25 Mbit/s).
@Suite(.serialized) struct RateChangeTests {
    static let fps = 30.0

    /// Encodes `frames` pattern frames from `start` and returns the achieved bitrate over the last `measured` frames.
    static func encode(_ encoder: H264Encoder, pattern: TestPattern, picture: inout I420Frame, from start: Int,
                       frames: Int, measured: Int) throws -> (bitrate: Double, skipped: Int) {
        var bits = 0
        var skipped = 0
        for index in start..<(start + frames) {
            pattern.render(frameIndex: index, into: &picture)
            let result = try encoder.encode(.i420(picture), timestamp: EncoderTestSupport.ticks(frame: index, fps: fps))
            if index >= start + frames - measured {
                if let frame = result.encodedFrame { bits += 8 * frame.bytes.count } else { skipped += 1 }
            }
        }
        return (Double(bits) * fps / Double(measured), skipped)
    }

    @Test func raisingThreeTimesAndLoweringTenTimesAt720pIsAppliedAndMet() throws {
        let encoder = try H264Encoder(configuration: EncoderConfiguration(width: 1280, height: 720, frameRate: Self.fps,
                                                                          targetBitrate: 1_500_000))
        let pattern = try TestPattern(width: 1280, height: 720)
        var picture = I420Frame(width: 1280, height: 720)
        var next = 0
        let steps: [(target: Int, tolerance: Double)] = [(1_500_000, 0.10), (3_000_000, 0.10), (4_500_000, 0.10),
                                                         (450_000, 0.15), (4_500_000, 0.10)]
        for (step, (target, tolerance)) in steps.enumerated() {
            if step > 0 { try encoder.setBitrate(target: target) }
            let ceiling = target + target / 2
            #expect(encoder.configuration.targetBitrate == target)
            #expect(encoder.configuration.effectiveMaxBitrate == ceiling)
            let rates = encoder.openH264Rates
            #expect(rates.target == target && rates.layerTarget == target, "step \(step): \(rates)")
            #expect(rates.max == ceiling && rates.layerMax == ceiling, "step \(step): \(rates)")
            // 3 s at the new rate; the last 2 s measured (rate control settles within 1 s).
            let (achieved, skipped) = try Self.encode(encoder, pattern: pattern, picture: &picture, from: next,
                                                      frames: 90, measured: 60)
            next += 90
            let ratio = achieved / Double(target)
            #expect(abs(ratio - 1) <= tolerance, "step \(step) to \(target): \(ratio) x target, \(skipped) skipped")
        }
    }

    @Test(arguments: [(1_500_000, 14_000_000), (14_000_000, 10_000), (10_000, 14_000_000), (100_000, 9_000_000),
                      (14_000_000, 14_000_000)])
    func anyTargetIsAcceptedWhateverTheStart(start: Int, target: Int) throws {
        let encoder = try H264Encoder(configuration: EncoderConfiguration(width: 1280, height: 720,
                                                                          targetBitrate: start))
        try encoder.setBitrate(target: target)
        let ceiling = encoder.configuration.effectiveMaxBitrate
        let rates = encoder.openH264Rates
        #expect(rates.target == target && rates.layerTarget == target, "\(rates)")
        #expect(rates.max == ceiling && rates.layerMax == ceiling, "\(rates)")
        #expect(encoder.configuration.targetBitrate == target)
        let pattern = try TestPattern(width: 1280, height: 720)
        #expect(try encoder.encode(.i420(pattern.frame(0)), timestamp: 0).encodedFrame?.isKeyframe == true)
    }

    @Test func explicitCeilingsInEitherDirection() throws {
        let encoder = try H264Encoder(configuration: EncoderConfiguration(width: 640, height: 360,
                                                                          targetBitrate: 800_000))
        for (target, ceiling) in [(800_000, 14_000_000), (13_000_000, 13_000_000), (200_000, 200_000),
                                  (5_000_000, 6_000_000), (300_000, nil as Int?)] {
            try encoder.setBitrate(target: target, maxBitrate: ceiling)
            let expectedCeiling = ceiling ?? 450_000
            let rates = encoder.openH264Rates
            #expect(rates.target == target && rates.layerTarget == target, "\(rates)")
            #expect(rates.max == expectedCeiling && rates.layerMax == expectedCeiling, "\(rates)")
            #expect(encoder.configuration.effectiveMaxBitrate == expectedCeiling)
        }
    }

    @Test func aRefusedChangeChangesNothing() throws {
        let encoder = try H264Encoder(configuration: EncoderConfiguration(width: 1280, height: 720,
                                                                          targetBitrate: 1_500_000))
        let before = encoder.configuration
        let ratesBefore = encoder.openH264Rates
        #expect(throws: EncoderConfigurationError.self) { try encoder.setBitrate(target: 14_000_001) }
        #expect(throws: EncoderConfigurationError.self) { try encoder.setBitrate(target: 2_000_000, maxBitrate: 1_000_000) }
        #expect(throws: EncoderConfigurationError.self) { try encoder.setBitrate(target: 0) }
        #expect(throws: EncoderConfigurationError.bitrateBelowMinimum(9_999, minimum: 10_000)) {
            try encoder.setBitrate(target: 9_999)
        }
        #expect(encoder.configuration == before)
        let ratesAfter = encoder.openH264Rates
        #expect(ratesAfter.target == ratesBefore.target && ratesAfter.max == ratesBefore.max)
        #expect(ratesAfter.layerTarget == ratesBefore.layerTarget && ratesAfter.layerMax == ratesBefore.layerMax)
        #expect(ratesBefore.target == 1_500_000 && ratesBefore.layerMax == 2_250_000)
    }

    /// Whichever of the four OpenH264 calls fails, the encoder's rates and `configuration` are those from before.
    @Test(arguments: 0..<4)
    func aFailureInsideOpenH264RollsBack(failingCall: Int) throws {
        let encoder = try H264Encoder(configuration: EncoderConfiguration(width: 1280, height: 720,
                                                                          targetBitrate: 1_500_000))
        let before = encoder.configuration
        for target in [4_500_000, 150_000] {
            encoder.rateOptionsBeforeInjectedFailure = failingCall
            #expect(throws: OpenH264Error(operation: "SetOption", status: 1)) { try encoder.setBitrate(target: target) }
            encoder.rateOptionsBeforeInjectedFailure = nil
            #expect(encoder.configuration == before)
            let rates = encoder.openH264Rates
            #expect(rates.target == 1_500_000 && rates.layerTarget == 1_500_000, "\(rates)")
            #expect(rates.max == 2_250_000 && rates.layerMax == 2_250_000, "\(rates)")
        }
        // And the next change works.
        try encoder.setBitrate(target: 4_500_000)
        #expect(encoder.openH264Rates.layerMax == 6_750_000)
    }

    @Test func frameRateChangesAreAppliedAndTheBitrateHolds() throws {
        var configuration = EncoderConfiguration(width: 640, height: 360, frameRate: 30, targetBitrate: 600_000)
        configuration.keyframeInterval = 100_000
        let encoder = try H264Encoder(configuration: configuration)
        let pattern = try TestPattern(width: 640, height: 360)
        var picture = I420Frame(width: 640, height: 360)
        var timestamp: Int64 = 0
        var index = 0
        for (rate, seconds) in [(30.0, 2), (15.0, 3), (60.0, 3)] {
            if rate != encoder.configuration.frameRate { try encoder.setFrameRate(rate) }
            #expect(encoder.configuration.frameRate == rate)
            #expect(encoder.openH264FrameRate == rate)
            let frames = Int(rate) * seconds
            var bits = 0
            for frame in 0..<frames {
                pattern.render(frameIndex: index, into: &picture)
                let result = try encoder.encode(.i420(picture), timestamp: timestamp)
                if frame >= Int(rate), let encoded = result.encodedFrame { bits += 8 * encoded.bytes.count }
                timestamp += Int64(90_000 / rate)
                index += 1
            }
            let achieved = Double(bits) / Double(seconds - 1)
            #expect(abs(achieved / 600_000 - 1) <= 0.12, "at \(rate) fps: \(achieved) bit/s")
        }
        #expect(throws: EncoderConfigurationError.self) { try encoder.setFrameRate(.nan) }
        #expect(encoder.configuration.frameRate == 60)
        #expect(encoder.openH264FrameRate == 60)
    }
}
