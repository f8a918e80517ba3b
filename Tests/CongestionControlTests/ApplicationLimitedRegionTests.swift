import MediaTime
import Testing
@testable import CongestionControl

/// ALR (libwebrtc `AlrDetector`): an encoder at half the estimate is application-limited, one at the estimate is not.
@Suite struct ApplicationLimitedRegionTests {
    static func send(_ detector: inout ApplicationLimitedRegionDetector, rate: Double, seconds: Double, from: Int64) {
        // 1,200-byte packets at `rate` bit/s.
        let interval = 1200 * 8 / rate
        var t = 0.0
        while t < seconds {
            detector.packetSent(size: 1200, now: MonotonicTime(nanoseconds: from + Int64(t * 1e9)))
            t += interval
        }
    }

    @Test func halfTheEstimateIsApplicationLimitedAndTheEstimateIsNot() {
        var detector = ApplicationLimitedRegionDetector()
        detector.setEstimate(2_000_000)
        Self.send(&detector, rate: 2_000_000, seconds: 3, from: 0)
        #expect(!detector.isApplicationLimited)
        Self.send(&detector, rate: 600_000, seconds: 2, from: 3_000_000_000)
        #expect(detector.isApplicationLimited)
        #expect(detector.regionsEntered == 1)
        Self.send(&detector, rate: 2_000_000, seconds: 2, from: 5_000_000_000)
        #expect(!detector.isApplicationLimited, "back at the estimate")
        #expect((-1...1).contains(detector.budgetLevel))
    }

    @Test func noEstimateNoVerdict() {
        var detector = ApplicationLimitedRegionDetector()
        Self.send(&detector, rate: 100_000, seconds: 1, from: 0)
        #expect(!detector.isApplicationLimited)
        detector.setEstimate(-5)
        detector.packetSent(size: -1, now: MonotonicTime(nanoseconds: 0))
        #expect(!detector.isApplicationLimited)
    }
}
