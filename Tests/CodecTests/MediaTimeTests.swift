import Testing
import H264
import Video
@testable import Codec

/// Issue 11 item 2 in Codec: the keyframe schedule and the encoder work at +30 days and +1 year of 90 kHz media time
/// and with hostile timestamps. On 9c36cd3 `KeyframeScheduler.ticks(.seconds(Int64.max))` and
/// `isKeyframeDue(timestamp: .min)` after an IDR at `.max` trapped on overflow.
@Suite struct MediaTimeTests {
    static let thirtyDays: Int64 = 30 * 86_400 * 90_000
    static let oneYear: Int64 = 365 * 86_400 * 90_000

    @Test(arguments: [(Duration.seconds(Int64.max), Int64.max), (.seconds(Int64.min), Int64.min),
                      (.seconds(2), 180_000), (.milliseconds(1), 90), (.nanoseconds(11_112), 1),
                      (.nanoseconds(-11_112), -1), (.seconds(102_481_911_520_609), Int64.max),
                      (.seconds(102_481_911_520_608), 9_223_372_036_854_720_000),
                      (.seconds(102_481_911_520_608) + .nanoseconds(999_999_999), Int64.max),
                      (.seconds(86_400 * 365), oneYear)])
    func ticksSaturate(duration: Duration, ticks: Int64) {
        #expect(KeyframeScheduler.ticks(duration) == ticks)
    }

    @Test func hostileTimestampPairsGiveAnAnswer() {
        var scheduler = KeyframeScheduler(interval: 100, duration: .seconds(2))
        scheduler.record(timestamp: .max, wasKeyframe: true)
        #expect(!scheduler.isKeyframeDue(timestamp: .min))      // a jump back by the whole range: no time elapsed
        #expect(!scheduler.isKeyframeDue(timestamp: .max))
        scheduler.record(timestamp: .min, wasKeyframe: true)
        #expect(scheduler.isKeyframeDue(timestamp: .max))       // forward by the whole range
        #expect(!scheduler.isKeyframeDue(timestamp: .min + 179_999))
        #expect(scheduler.isKeyframeDue(timestamp: .min + 180_000))
        // The frame rule still applies after time went backwards.
        var backwards = KeyframeScheduler(interval: 3, duration: .seconds(2))
        backwards.record(timestamp: 1_000_000, wasKeyframe: true)
        backwards.record(timestamp: 0, wasKeyframe: false)
        #expect(!backwards.isKeyframeDue(timestamp: 0))
        backwards.record(timestamp: 0, wasKeyframe: false)
        #expect(backwards.isKeyframeDue(timestamp: 0))
        // The interval counter saturates instead of overflowing.
        var counting = KeyframeScheduler(interval: .max, duration: .seconds(86_400))
        counting.record(timestamp: 0, wasKeyframe: true)
        for _ in 0..<3 { counting.record(timestamp: 0, wasKeyframe: false) }
        #expect(counting.framesSinceKeyframe == 4)
        #expect(!counting.isKeyframeDue(timestamp: 0))
    }

    /// The time rule and rate control at +30 days and +1 year: IDRs every 2 s exactly as from zero, and the bitrate on
    /// target (OpenH264 gets the timestamps in milliseconds and paces its rate control on them).
    @Test(arguments: [thirtyDays, oneYear, Int64.max / 2])
    func theScheduleAndTheRateHoldFarIntoMediaTime(start: Int64) throws {
        var c = EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 300_000)
        c.keyframeIntervalDuration = .seconds(2)
        let outputs = try EncoderTestSupport.run(c, frames: 210, timestamps: { start + Int64($0) * 3000 })
        let keyframes = outputs.filter { $0.frame?.isKeyframe == true }.map(\.index)
        #expect(keyframes == [0, 60, 120, 180], "from \(start)")
        let windows = EncoderTestSupport.windows(outputs, fps: 30, from: 30)
        for window in windows where !window.hasKeyframe {
            let ratio = Double(window.bits) / 300_000
            #expect(abs(ratio - 1) <= 0.10, "from \(start), window at \(window.firstFrame): \(ratio) x target")
        }
        #expect(outputs.allSatisfy { $0.frame?.timestamp == $0.timestamp || $0.frame == nil })
    }

    /// Hostile timestamps: the extremes, and jumps back and forth across the whole range. Nothing traps, OpenH264
    /// keeps encoding, and every frame is accounted for.
    @Test func hostileTimestampsNeverTrapTheEncoder() throws {
        let c = EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 300_000)
        let stamps: [Int64] = [.max, .min, 0, .max, .max, .min, -1, .max / 2, .min / 2, 1]
        let outputs = try EncoderTestSupport.run(c, frames: stamps.count, timestamps: { stamps[$0] })
        #expect(outputs.count == stamps.count)
        #expect(outputs[0].frame?.isKeyframe == true)
        #expect(outputs.filter { $0.frame != nil }.count >= stamps.count / 2)
    }
}
