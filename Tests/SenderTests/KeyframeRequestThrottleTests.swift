import Testing
@testable import Sender

@Suite struct KeyframeRequestThrottleTests {
    let ms: Int64 = 1_000_000

    @Test func firstRequestIsServedByTheNextFrame() {
        var throttle = KeyframeRequestThrottle()
        do { let forced = throttle.shouldForceKeyframe(at: 0); #expect(!forced) }
        throttle.request()
        do { let forced = throttle.shouldForceKeyframe(at: 10 * ms); #expect(forced) }
        do { let forced = throttle.shouldForceKeyframe(at: 11 * ms); #expect(!forced) }
    }

    @Test func requestInsideTheWindowIsKeptAndServedWhenItEnds() {
        var throttle = KeyframeRequestThrottle(minimumInterval: 300 * ms)
        throttle.keyframeEncoded(at: 0)
        throttle.request()
        // Frames at 30 fps inside the window: not forced, but the request stays pending.
        for t in stride(from: 33 * ms, to: 300 * ms, by: Int64.Stride(33 * ms)) {
            do { let forced = throttle.shouldForceKeyframe(at: t); #expect(!forced, "forced inside the window at \(t / ms) ms") }
            #expect(throttle.isPending)
        }
        do { let forced = throttle.shouldForceKeyframe(at: 300 * ms); #expect(forced) }
        #expect(!throttle.isPending)
    }

    @Test func floodOfRequestsGivesKeyframesNoCloserThanTheWindow() {
        var throttle = KeyframeRequestThrottle(minimumInterval: 300 * ms)
        var keyframeTimes: [Int64] = []
        var t: Int64 = 0
        while t < 2_000 * ms {
            throttle.request()  // a PLI before every frame
            if throttle.shouldForceKeyframe(at: t) {
                keyframeTimes.append(t)
                throttle.keyframeEncoded(at: t)
            }
            t += 33 * ms
        }
        #expect(keyframeTimes.count == 7)
        for (a, b) in zip(keyframeTimes, keyframeTimes.dropFirst()) {
            #expect(b - a >= 300 * ms)
            #expect(b - a < 333 * ms)
        }
    }

    @Test func periodicKeyframeSatisfiesEarlierRequest() {
        var throttle = KeyframeRequestThrottle()
        throttle.request()
        throttle.keyframeEncoded(at: 5 * ms)
        #expect(!throttle.isPending)
        do { let forced = throttle.shouldForceKeyframe(at: 1_000 * ms); #expect(!forced) }
    }

    @Test func zeroIntervalDisablesThrottling() {
        var throttle = KeyframeRequestThrottle(minimumInterval: 0)
        throttle.keyframeEncoded(at: 0)
        throttle.request()
        do { let forced = throttle.shouldForceKeyframe(at: 0); #expect(forced) }
    }
}
