import MediaTime
import RTP
import Testing
@testable import Sender

@Suite struct KeyframeRequestThrottleTests {
    /// A time in milliseconds.
    func t(_ milliseconds: Int64) -> MonotonicTime { MonotonicTime(nanoseconds: milliseconds * 1_000_000) }

    @Test func firstRequestIsServedByTheNextFrame() {
        var throttle = KeyframeRequestThrottle()
        do { let forced = throttle.shouldForceKeyframe(at: t(0)); #expect(!forced) }
        throttle.request(at: t(0))
        do { let forced = throttle.shouldForceKeyframe(at: t(10)); #expect(forced) }
        // It stays forced until a keyframe is actually encoded (a skipped frame does not lose it).
        throttle.keyframeEncoded(at: t(10))
        do { let forced = throttle.shouldForceKeyframe(at: t(11)); #expect(!forced) }
    }

    @Test func requestInsideTheWindowIsKeptAndServedWhenItEnds() {
        var throttle = KeyframeRequestThrottle(minimumInterval: .milliseconds(300))
        throttle.keyframeEncoded(at: t(0))
        throttle.request(at: t(0))
        // Frames at 30 fps inside the window: not forced, but the request stays pending.
        for ms in stride(from: Int64(33), to: 300, by: 33) {
            do { let forced = throttle.shouldForceKeyframe(at: t(ms)); #expect(!forced, "forced inside the window at \(ms) ms") }
            #expect(throttle.isPending)
        }
        do { let forced = throttle.shouldForceKeyframe(at: t(300)); #expect(forced) }
        #expect(throttle.keyframeEncoded(at: t(300)) == .milliseconds(300))
        #expect(!throttle.isPending)
    }

    @Test func floodOfRequestsGivesKeyframesNoCloserThanTheWindow() {
        var throttle = KeyframeRequestThrottle(minimumInterval: .milliseconds(300))
        var keyframeTimes: [Int64] = []
        var now: Int64 = 0
        while now < 2_000 {
            throttle.request(at: t(now))  // a PLI before every frame
            if throttle.shouldForceKeyframe(at: t(now)) {
                keyframeTimes.append(now)
                throttle.keyframeEncoded(at: t(now))
            }
            now += 33
        }
        #expect(keyframeTimes.count == 7)
        for (a, b) in zip(keyframeTimes, keyframeTimes.dropFirst()) {
            #expect(b - a >= 300)
            #expect(b - a < 333)
        }
    }

    @Test func periodicKeyframeSatisfiesEarlierRequest() {
        var throttle = KeyframeRequestThrottle()
        throttle.request(at: t(0))
        throttle.keyframeEncoded(at: t(5))
        #expect(!throttle.isPending)
        do { let forced = throttle.shouldForceKeyframe(at: t(1_000)); #expect(!forced) }
    }

    @Test func zeroIntervalDisablesThrottling() {
        var throttle = KeyframeRequestThrottle(minimumInterval: .zero)
        throttle.keyframeEncoded(at: t(0))
        throttle.request(at: t(0))
        do { let forced = throttle.shouldForceKeyframe(at: t(0)); #expect(forced) }
    }

    /// Issue 11: a year of uptime, and times at the ends of the range, do not overflow.
    @Test func worksAfterAYearAndAtTheEndsOfTheClock() {
        var throttle = KeyframeRequestThrottle(minimumInterval: .milliseconds(300))
        let year = Int64(365 * 24 * 3600) * 1_000
        throttle.keyframeEncoded(at: t(year))
        throttle.request(at: t(year + 100))
        #expect(!throttle.shouldForceKeyframe(at: t(year + 200)))
        #expect(throttle.shouldForceKeyframe(at: t(year + 300)))
        #expect(throttle.keyframeEncoded(at: t(year + 300)) == .milliseconds(200))
        throttle.keyframeEncoded(at: MonotonicTime(nanoseconds: .min))
        throttle.request(at: MonotonicTime(nanoseconds: .max))
        #expect(throttle.shouldForceKeyframe(at: MonotonicTime(nanoseconds: .max)))
    }
}
