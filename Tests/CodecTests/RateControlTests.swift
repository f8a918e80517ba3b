import Testing
import H264
import Video
@testable import Codec

/// CBR behaviour on the test pattern (its noise band keeps demand above the target): 1 s windows within 10% of the
/// target when they hold no IDR, never above the 1.5x ceiling, and a new target met within 1 s of a change.
@Suite struct RateControlTests {
    static let fps = 30.0

    @Test(arguments: [(320, 240, 300_000), (640, 360, 600_000)])
    func windowsStayNearTarget(width: Int, height: Int, target: Int) throws {
        var c = EncoderConfiguration(width: width, height: height, frameRate: RateControlTests.fps,
                                     targetBitrate: target)
        c.keyframeInterval = 90  // IDRs inside the measured span, so the ceiling is checked with keyframes too
        let outputs = try EncoderTestSupport.run(c, frames: 300)
        let windows = EncoderTestSupport.windows(outputs, fps: RateControlTests.fps, from: 60)
        #expect(windows.count == 8)
        #expect(windows.contains { $0.hasKeyframe })
        #expect(windows.contains { !$0.hasKeyframe })
        for window in windows {
            let ratio = Double(window.bits) / Double(target)
            #expect(ratio <= 1.5, "window at frame \(window.firstFrame): \(ratio) x target")
            if !window.hasKeyframe {
                #expect(abs(ratio - 1) <= 0.10, "window at frame \(window.firstFrame): \(ratio) x target")
            }
        }
    }

    @Test(arguments: [300_000, 600_000])
    func newTargetIsMetWithinOneSecond(newTarget: Int) throws {
        let c = EncoderConfiguration(width: 320, height: 240, frameRate: RateControlTests.fps, targetBitrate: 450_000)
        let changeAt = 120
        let outputs = try EncoderTestSupport.run(c, frames: 300, beforeFrame: { index, encoder in
            if index == changeAt { try encoder.setBitrate(target: newTarget) }
        })
        // From 1 s after the change, every 1 s window is within 10% of the new target.
        let windows = EncoderTestSupport.windows(outputs, fps: RateControlTests.fps, from: changeAt + 30)
        #expect(windows.count == 5)
        for window in windows {
            let ratio = Double(window.bits) / Double(newTarget)
            #expect(abs(ratio - 1) <= 0.10, "window at frame \(window.firstFrame): \(ratio) x new target")
        }
    }

    @Test func skippedFramesAreReportedNotDropped() throws {
        // Demand far above a tiny target: rate control must skip, and say so.
        let c = EncoderConfiguration(width: 320, height: 240, frameRate: RateControlTests.fps, targetBitrate: 50_000)
        let outputs = try EncoderTestSupport.run(c, frames: 90)
        #expect(outputs.count == 90)
        let skipped = outputs.filter { if case .skipped(.rateControl) = $0.result { return true } else { return false } }
        #expect(!skipped.isEmpty)
        // Every input frame is accounted for: an access unit with statistics, or a skip with its reason.
        #expect(outputs.filter { $0.frame != nil && $0.result.statistics != nil }.count + skipped.count == 90)
        #expect(outputs[0].frame?.isKeyframe == true)
    }

    @Test func invalidRuntimeChangesLeaveTheEncoderUnchanged() throws {
        let encoder = try H264Encoder(configuration: EncoderConfiguration(width: 640, height: 360,
                                                                          targetBitrate: 800_000))
        let before = encoder.configuration
        let cases: [(Int, Int?, EncoderConfigurationError)] = [
            (0, nil, .bitrateNotPositive(0)),
            (-5, nil, .bitrateNotPositive(-5)),
            (15_000_000, nil, .bitrateExceedsLevel(bitrate: 15_000_000, maxBitrate: 14_000_000, level: .level3_1,
                                                   profile: .constrainedBaseline)),
            (1_000_000, 900_000, .maxBitrateBelowTarget(target: 1_000_000, maxBitrate: 900_000)),
            (1_000_000, 20_000_000, .bitrateExceedsLevel(bitrate: 20_000_000, maxBitrate: 14_000_000,
                                                         level: .level3_1, profile: .constrainedBaseline)),
        ]
        for (target, ceiling, expected) in cases {
            #expect(throws: expected) { try encoder.setBitrate(target: target, maxBitrate: ceiling) }
        }
        #expect(throws: EncoderConfigurationError.frameRateOutOfRange(0, supported: 1...60)) {
            try encoder.setFrameRate(0)
        }
        #expect(throws: EncoderConfigurationError.frameRateOutOfRange(-30, supported: 1...60)) {
            try encoder.setFrameRate(-30)
        }
        #expect(encoder.configuration == before)

        try encoder.setBitrate(target: 1_200_000)
        #expect(encoder.configuration.targetBitrate == 1_200_000)
        #expect(encoder.configuration.effectiveMaxBitrate == 1_800_000)
        try encoder.setFrameRate(15)
        #expect(encoder.configuration.frameRate == 15)
        // Still encodes after the changes.
        let pattern = try TestPattern(width: 640, height: 360)
        #expect(try encoder.encode(.i420(pattern.frame(0)), timestamp: 0).encodedFrame?.isKeyframe == true)
    }

    @Test func frameRateChangeIsCheckedAgainstTheLevel() throws {
        let encoder = try H264Encoder(configuration: EncoderConfiguration(width: 1280, height: 720))
        #expect(throws: EncoderConfigurationError.macroblockRateExceedsLevel(
            macroblocksPerSecond: 216_000, maxMacroblocksPerSecond: 108_000, level: .level3_1)) {
            try encoder.setFrameRate(60)
        }
        #expect(encoder.configuration.frameRate == 30)
    }
}
