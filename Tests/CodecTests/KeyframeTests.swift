import Testing
import TestSupport
import H264
import Video
@testable import Codec

/// IDR placement: frame 0, every forced frame, the frame interval, the time interval on the frames' own timestamps.
@Suite struct KeyframeTests {
    static func keyframeIndices(_ outputs: [EncoderTestSupport.Output]) -> [Int] {
        outputs.filter { $0.frame?.isKeyframe == true }.map(\.index)
    }

    static var config: EncoderConfiguration {
        // Generous bitrate so that rate control never skips a frame in these tests.
        var c = EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 2_000_000)
        c.frameSkipping = true
        return c
    }

    @Test func forcedFramesAreIDRsEveryTime() throws {
        // 20 distinct pseudo-random frames of 120 (fixed seed: the test is reproducible).
        var generator = SplitMix64(seed: 0x5EED)
        var forced = Set<Int>()
        while forced.count < 20 { forced.insert(Int(generator.next() % 119) + 1) }
        let outputs = try EncoderTestSupport.run(KeyframeTests.config, frames: 120, forceAt: forced)
        #expect(outputs.allSatisfy { $0.frame != nil }, "no frame may be skipped here")
        #expect(KeyframeTests.keyframeIndices(outputs) == ([0] + forced.sorted()))
    }

    @Test func requestKeyframeSurvivesUntilAnIDRIsProduced() throws {
        let encoder = try H264Encoder(configuration: KeyframeTests.config)
        let pattern = try TestPattern(width: 320, height: 240)
        #expect(encoder.parameterSets.isEmpty)
        var keyframes: [Int] = []
        for index in 0..<12 {
            if index == 5 {
                encoder.requestKeyframe()
                #expect(encoder.keyframePending)
            }
            let result = try encoder.encode(.i420(pattern.frame(index)), timestamp: Int64(index) * 3000)
            if result.encodedFrame?.isKeyframe == true { keyframes.append(index) }
            if index == 5 { #expect(result.statistics?.keyframeRequested == true) }
        }
        #expect(keyframes == [0, 5])
        #expect(!encoder.keyframePending)
        // The cached parameter sets are the SPS and PPS in Annex-B form.
        #expect(AnnexB.nalUnitLocations(in: encoder.parameterSets).map(\.type) == [.sps, .pps])
    }

    @Test func frameIntervalIsExact() throws {
        var c = KeyframeTests.config
        c.keyframeInterval = 30
        let outputs = try EncoderTestSupport.run(c, frames: 100)
        #expect(KeyframeTests.keyframeIndices(outputs) == [0, 30, 60, 90])
    }

    /// The defaults themselves: 7200 frames or 240 s. At 60 fps the frame rule comes first (7200 frames = 120 s); at
    /// 15 fps the time rule does (240 s = 3600 frames). A tiny picture keeps 7200+ frames fast.
    @Test(arguments: [(60.0, [0, 7200]), (15.0, [0, 3600, 7200])])
    func defaultIntervals(fps: Double, expected: [Int]) throws {
        let c = EncoderConfiguration(width: 64, height: 64, frameRate: fps, targetBitrate: 200_000)
        #expect(c.keyframeInterval == 7200 && c.keyframeIntervalDuration == .seconds(240))
        let outputs = try EncoderTestSupport.run(c, frames: 7250)
        #expect(KeyframeTests.keyframeIndices(outputs) == expected)
    }

    @Test func forcedKeyframeRestartsTheInterval() throws {
        var c = KeyframeTests.config
        c.keyframeInterval = 30
        let outputs = try EncoderTestSupport.run(c, frames: 80, forceAt: [10])
        #expect(KeyframeTests.keyframeIndices(outputs) == [0, 10, 40, 70])
    }

    @Test func timeIntervalFollowsFrameTimestamps() throws {
        // 2 s at 30 fps: an IDR every 60 frames (the 240 s rule, scaled down).
        var c = KeyframeTests.config
        c.keyframeIntervalDuration = .seconds(2)
        let outputs = try EncoderTestSupport.run(c, frames: 150)
        #expect(KeyframeTests.keyframeIndices(outputs) == [0, 60, 120])
    }

    @Test func timestampJumpTriggersAnIDR() throws {
        // Frames at 30 fps; at frame 40 the clock jumps 3 s ahead (a capture pause): that frame is past the 2 s rule.
        var c = KeyframeTests.config
        c.keyframeIntervalDuration = .seconds(2)
        let jump: Int64 = 3 * 90_000
        let outputs = try EncoderTestSupport.run(c, frames: 110, timestamps: { index in
            EncoderTestSupport.ticks(frame: index, fps: 30) + (index >= 40 ? jump : 0)
        })
        #expect(KeyframeTests.keyframeIndices(outputs) == [0, 40, 100])
    }

    @Test func fractionalDurationsConvertToTicks() {
        #expect(KeyframeScheduler.ticks(.seconds(240)) == 21_600_000)
        #expect(KeyframeScheduler.ticks(.milliseconds(1500)) == 135_000)
        #expect(KeyframeScheduler.ticks(.microseconds(100)) == 9)
    }

    @Test func schedulerRules() {
        var s = KeyframeScheduler(interval: 3, duration: .seconds(10))
        #expect(s.isKeyframeDue(timestamp: 0))
        s.record(timestamp: 0, wasKeyframe: true)
        #expect(!s.isKeyframeDue(timestamp: 3000))
        s.record(timestamp: 3000, wasKeyframe: false)
        s.record(timestamp: 6000, wasKeyframe: false)
        #expect(s.isKeyframeDue(timestamp: 9000))  // 3 frames since the IDR
        s.record(timestamp: 9000, wasKeyframe: false)  // e.g. skipped: still due
        #expect(s.isKeyframeDue(timestamp: 12000))
        s.record(timestamp: 12000, wasKeyframe: true)
        #expect(!s.isKeyframeDue(timestamp: 15000))
        #expect(s.isKeyframeDue(timestamp: 12000 + 900_000))  // 10 s later
    }
}
