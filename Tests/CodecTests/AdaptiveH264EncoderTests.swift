import MediaTime
import Testing
import H264
import RTP
import Video
@testable import Codec

/// The adaptive encoder end to end with OpenH264's decoder: a bitrate step 2.5M -> 300k -> 2.5M at 720p switches
/// down at once and back up after the hold, each switch starts with an IDR carrying SPS/PPS of the new size, every
/// frame decodes at the size announced, and every frame is accounted for (encoded, or skipped with a reason).
@Suite(.serialized) struct AdaptiveH264EncoderTests {
    static let fps = 30.0

    struct Run {
        var sizes: [String] = []          // decoded size per delivered frame
        var changes: [(Int, ResolutionChange)] = []
        var bitsPerSecond: [Int: Int] = [:]
        var skipped = 0
        var delivered = 0
    }

    /// - Parameter pictureDelay: frames OpenH264's decoder holds back (1 for High, whose first picture waits for its
    ///   display order).
    static func run(_ encoder: AdaptiveH264Encoder, frames: Int, targets: [Int: Int], pictureDelay: Int = 0) throws
        -> Run {
        let pattern = try TestPattern(width: 1280, height: 720)
        var picture = I420Frame(width: 1280, height: 720)
        let decoder = try H264Decoder()
        var decoded = I420Frame(width: 16, height: 16)
        var run = Run()
        for index in 0..<frames {
            if let target = targets[index] { try encoder.setBitrate(target: target) }
            pattern.render(frameIndex: index, into: &picture)
            let now = MonotonicTime(nanoseconds: Int64(index) * 1_000_000_000 / 30)
            let result = try picture.withView {
                try encoder.encode($0, timestamp: EncoderTestSupport.ticks(frame: index, fps: fps), now: now)
            }
            if let change = result.resolutionChange { run.changes.append((index, change)) }
            switch result.output {
            case .frame(let frame, _):
                if result.resolutionChange != nil {
                    #expect(frame.isKeyframe, "frame \(index) starts a new size with an IDR")
                    #expect(frame.nalUnits.first?.type == .sps, "frame \(index) carries the new SPS first")
                }
                let produced = try decoder.decode(frame.bytes, into: &decoded)
                guard run.delivered >= pictureDelay else {
                    run.delivered += 1
                    continue
                }
                #expect(produced, "frame \(index) decodes")
                #expect(decoded.width == encoder.currentSize.width && decoded.height == encoder.currentSize.height,
                        "frame \(index): decoded \(decoded.width)x\(decoded.height), announced \(encoder.currentSize)")
                run.sizes.append("\(decoded.width)x\(decoded.height)")
                run.bitsPerSecond[index / 30, default: 0] += frame.bytes.count * 8
                run.delivered += 1
            case .skipped(let reason):
                #expect(reason == .rateControl)
                run.skipped += 1
            }
        }
        return run
    }

    @Test func aBitrateStepDownAndBackUpSwitchesTheResolution() throws {
        var configuration = EncoderConfiguration(width: 1280, height: 720, frameRate: Self.fps, targetBitrate: 2_500_000)
        configuration.keyframeInterval = 100_000
        let encoder = try AdaptiveH264Encoder(configuration: configuration)
        #expect(encoder.currentSize == ResolutionRung(width: 1280, height: 720))
        let run = try Self.run(encoder, frames: 600, targets: [150: 300_000, 300: 2_500_000])
        let changes = run.changes.map { ($0.0, $0.1.to.description, $0.1.reason) }
        #expect(changes.count == 3, "\(changes)")
        if changes.count == 3 {
            #expect(changes[0] == (0, "1280x720", .initial))
            #expect(changes[1] == (150, "640x360", .bitrateBelowFloor))      // at once
            #expect(changes[2].1 == "1280x720" && changes[2].2 == .bitrateAllowsLarger)
            // Back up after the 4 s hold (and the 3 s minimum interval), well within 15 s.
            #expect(changes[2].0 >= 300 + 120 && changes[2].0 <= 300 + 125, "up at frame \(changes[2].0)")
        }
        #expect(run.delivered + run.skipped == 600)
        #expect(run.skipped <= 6, "skipped \(run.skipped)")
        let stats = encoder.statistics
        #expect(stats.framesEncoded == run.delivered)
        #expect(stats.totalFramesSkipped == run.skipped)
        #expect(stats.resolutionSwitches == [.bitrateBelowFloor: 1, .bitrateAllowsLarger: 1])
        #expect(stats.lastResolutionChange?.to == ResolutionRung(width: 1280, height: 720))
        // The rate follows the target at each size (whole seconds away from the switches).
        for second in [2, 3, 7, 8, 16, 18] {
            let target = second >= 5 && second < 14 ? 300_000.0 : 2_500_000.0
            let ratio = Double(run.bitsPerSecond[second, default: 0]) / target
            #expect(ratio > 0.8 && ratio < 1.2, "second \(second): \(ratio) x target")
        }
    }

    /// A preference change with no size change adds no IDR; one that changes the size starts it with an IDR and
    /// its SPS, counted and reported as `preferenceChanged`.
    @Test func aPreferenceChangeSwitchesOnlyWhenTheSizeMustChange() throws {
        var configuration = EncoderConfiguration(width: 1280, height: 720, frameRate: Self.fps, targetBitrate: 300_000)
        configuration.keyframeInterval = 100_000
        let encoder = try AdaptiveH264Encoder(configuration: configuration)
        #expect(encoder.currentSize == ResolutionRung(width: 640, height: 360))
        let pattern = try TestPattern(width: 1280, height: 720)
        var picture = I420Frame(width: 1280, height: 720)
        let decoder = try H264Decoder()
        var decoded = I420Frame(width: 16, height: 16)
        var keyframes: [Int] = []
        var changes: [(Int, ResolutionChange)] = []
        let changeAt: [Int: DegradationPreference] = [30: .balanced, 60: .maintainResolution, 90: .maintainFramerate]
        for index in 0..<120 {
            if let preference = changeAt[index] {
                encoder.setDegradationPreference(preference)
                #expect(encoder.preference == preference)
            }
            pattern.render(frameIndex: index, into: &picture)
            let now = MonotonicTime(nanoseconds: Int64(index) * 1_000_000_000 / 30)
            let result = try picture.withView {
                try encoder.encode($0, timestamp: EncoderTestSupport.ticks(frame: index, fps: Self.fps), now: now)
            }
            if let change = result.resolutionChange { changes.append((index, change)) }
            guard case .frame(let frame, _) = result.output else { continue }
            if frame.isKeyframe { keyframes.append(index) }
            if try decoder.decode(frame.bytes, into: &decoded) {
                #expect(decoded.width == encoder.currentSize.width, "frame \(index)")
            }
        }
        let summary = changes.map { "\($0.0) \($0.1.to) \($0.1.reason)" }
        #expect(summary == ["0 640x360 initial", "60 1280x720 preference-changed", "90 640x360 preference-changed"])
        #expect(keyframes == [0, 60, 90], "IDRs at \(keyframes): balanced at frame 30 kept the size and added none")
        #expect(encoder.statistics.resolutionSwitches == [.preferenceChanged: 2])
    }

    @Test func maintainResolutionKeepsTheSizeAndReportsEverySkip() throws {
        let configuration = EncoderConfiguration(width: 1280, height: 720, frameRate: Self.fps, targetBitrate: 100_000)
        let encoder = try AdaptiveH264Encoder(configuration: configuration, preference: .maintainResolution)
        let run = try Self.run(encoder, frames: 90, targets: [:])
        #expect(run.changes.count == 1 && run.changes.first?.1.reason == .initial)
        #expect(Set(run.sizes) == ["1280x720"])
        #expect(run.skipped > 20, "skipped \(run.skipped)")
        #expect(encoder.statistics.framesSkipped == [.rateControl: run.skipped])
    }

    @Test func aLowStartBitrateStartsSmallAndHighProfileWorks() throws {
        var configuration = EncoderConfiguration(width: 1280, height: 720, frameRate: Self.fps, targetBitrate: 250_000)
        configuration.profile = .high
        let encoder = try AdaptiveH264Encoder(configuration: configuration)
        #expect(encoder.currentSize == ResolutionRung(width: 640, height: 360))
        let run = try Self.run(encoder, frames: 60, targets: [:], pictureDelay: 1)
        #expect(Set(run.sizes) == ["640x360"])
        #expect(run.delivered >= 57)
        #expect(encoder.configuration.width == 1280, "the stream's configuration keeps the input size")
    }

    @Test func theHighQPThresholdFollowsALowerCeiling() throws {
        var configuration = EncoderConfiguration(width: 1280, height: 720)
        configuration.qpRange = 12...30
        #expect(try AdaptiveH264Encoder(configuration: configuration).scaler.settings.highQP == 30)
        #expect(try AdaptiveH264Encoder(configuration: EncoderConfiguration(width: 1280, height: 720))
                    .scaler.settings.highQP == 45)
    }

    /// `startingSize` is the rung a new encoder starts at before its first frame (the size an SDP written before the
    /// first frame names), for every preference and start bitrate; a configuration `init` refuses, it refuses too.
    @Test(arguments: [DegradationPreference.maintainFramerate, .maintainResolution, .balanced])
    func theStartingSizeIsTheRungANewEncoderStartsAt(preference: DegradationPreference) throws {
        for bitrate in [100_000, 300_000, 600_000, 1_500_000, 4_000_000] {
            let configuration = EncoderConfiguration(width: 1280, height: 720, frameRate: Self.fps,
                                                     targetBitrate: bitrate)
            let encoder = try AdaptiveH264Encoder(configuration: configuration, preference: preference)
            #expect(try AdaptiveH264Encoder.startingSize(configuration: configuration, preference: preference)
                        == encoder.currentSize, "\(bitrate) bit/s")
        }
        #expect(throws: EncoderConfigurationError.self) {
            _ = try AdaptiveH264Encoder.startingSize(configuration: EncoderConfiguration(width: 1920, height: 1080))
        }
    }

    @Test func refusedChangesChangeNothing() throws {
        let encoder = try AdaptiveH264Encoder(configuration: EncoderConfiguration(width: 1280, height: 720))
        let before = encoder.configuration
        #expect(throws: EncoderConfigurationError.self) { try encoder.setBitrate(target: 9_999) }
        #expect(throws: EncoderConfigurationError.self) { try encoder.setBitrate(target: .max) }
        #expect(throws: EncoderConfigurationError.self) { try encoder.setFrameRate(.nan) }
        #expect(throws: EncoderConfigurationError.self) { try encoder.setFrameRate(60) }  // 720p60 > level 3.1
        #expect(encoder.configuration == before)
        #expect(throws: EncoderConfigurationError.self) {
            _ = try AdaptiveH264Encoder(configuration: EncoderConfiguration(width: 1920, height: 1080))
        }
    }
    /// A soft source (a smooth ramp: every smaller rung keeps its detail, measured on the first frame) starts at the
    /// rung its raised floors allow, reported as the initial size with no switch; the test pattern (sharp text) keeps
    /// the usual floors.
    @Test func aSoftSourceStartsAtASmallerRung() throws {
        var configuration = EncoderConfiguration(width: 1280, height: 720, frameRate: Self.fps, targetBitrate: 900_000)
        configuration.keyframeInterval = 100_000
        var ramp = I420Frame(width: 1280, height: 720)
        let stride = ramp.strideY
        ramp.withUnsafeMutablePlanes { y, _, _ in
            for row in 0..<720 {
                for column in 0..<1280 { y[row * stride + column] = UInt8(16 + (column + row) * 200 / 2000) }
            }
        }
        let soft = try AdaptiveH264Encoder(configuration: configuration)
        #expect(soft.currentSize == ResolutionRung(width: 1280, height: 720), "before any frame: the usual floors")
        var changes: [ResolutionChange] = []
        for index in 0..<45 {
            let now = MonotonicTime(nanoseconds: Int64(index) * 1_000_000_000 / 30)
            let result = try ramp.withView {
                try soft.encode($0, timestamp: EncoderTestSupport.ticks(frame: index, fps: Self.fps), now: now)
            }
            if let change = result.resolutionChange { changes.append(change) }
        }
        #expect(changes.map(\.description) == ["640x360 -> 640x360 (initial)"])
        #expect(soft.statistics.totalResolutionSwitches == 0)
        #expect(soft.scaler.resamplingPSNR.dropFirst().allSatisfy { ($0 ?? 0) >= 46 }, "\(soft.scaler.resamplingPSNR)")

        let sharp = try AdaptiveH264Encoder(configuration: configuration)
        let run = try Self.run(sharp, frames: 45, targets: [:])
        #expect(run.changes.map(\.1.description) == ["1280x720 -> 1280x720 (initial)"])
        #expect(sharp.scaler.resamplingPSNR.dropFirst().allSatisfy { ($0 ?? 99) < 45 }, "\(sharp.scaler.resamplingPSNR)")
    }
}
