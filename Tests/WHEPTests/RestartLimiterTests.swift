import MediaTime
import Testing
@testable import WHEP

/// The bound on one viewer's ICE restarts, on a virtual clock: one a second, ten a minute, Retry-After to match.
@Suite struct RestartLimiterTests {
    static let t0 = MonotonicTime(nanoseconds: 1_000_000_000)

    @Test func oneASecondAndTenAMinute() {
        var limiter = RestartLimiter()
        var now = Self.t0
        #expect(limiter.refusal(now: now) == nil)
        limiter.record(now: now)
        #expect(limiter.refusal(now: now + .milliseconds(999)) == 1)  // sooner than a second: retry in one
        // Nine more, a second apart: ten within the minute.
        for _ in 0..<9 {
            now = now + .seconds(1)
            #expect(limiter.refusal(now: now) == nil)
            limiter.record(now: now)
        }
        // The eleventh within the minute waits until the first is a minute old: 60 - 10 = 50 s.
        #expect(limiter.refusal(now: now + .seconds(1)) == 50)
        #expect(limiter.refusal(now: Self.t0 + .seconds(60)) == nil)
    }

    @Test func aRefusedRestartIsNotCounted() {
        var limiter = RestartLimiter()
        limiter.record(now: Self.t0)
        #expect(limiter.refusal(now: Self.t0 + .milliseconds(10)) == 1)
        #expect(limiter.refusal(now: Self.t0 + .milliseconds(20)) == 1)
        #expect(limiter.refusal(now: Self.t0 + .seconds(1)) == nil)  // refusals did not push the second back
    }
}
