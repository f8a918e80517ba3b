import Testing
@testable import CongestionControl

/// `AIMDRateControl` on a fake clock (times in ms, rates in bit/s): additive growth near the link capacity
/// estimate, multiplicative without one, where a cut lands, and one cut per RTT.
@Suite struct AIMDRateControlTests {
    static func control(at bitrate: Double, roundTripTime: Double = 400) -> AIMDRateControl {
        var control = AIMDRateControl(initialBitrate: bitrate, minimumBitrate: 30_000, maximumBitrate: 20_000_000)
        control.roundTripTime = roundTripTime
        return control
    }

    /// Normal verdicts every 50 ms from `start` for one second at `throughput`; returns the growth.
    static func growForOneSecond(_ control: inout AIMDRateControl, from start: Double, throughput: Double) -> Double {
        let before = control.bitrate
        for step in 0...20 { control.update(usage: .normal, throughput: throughput, now: start + Double(step) * 50) }
        return control.bitrate - before
    }

    @Test func cutLandsAtBetaTimesAcknowledged() {
        var control = Self.control(at: 1_200_000)
        control.update(usage: .overusing, throughput: 1_000_000, now: 0)
        #expect(control.bitrate == 900_000)
        #expect(control.state == .hold)
        #expect(control.linkCapacity.estimate == 1000)
    }

    @Test func cutNeverRaisesTheTarget() {
        var control = Self.control(at: 500_000)
        control.update(usage: .overusing, throughput: 1_000_000, now: 0)
        #expect(control.bitrate == 500_000)
    }

    /// Without a capacity estimate the target grows 8 % a second.
    @Test func growsMultiplicativelyWithoutAnEstimate() {
        var control = Self.control(at: 850_000)
        let growth = Self.growForOneSecond(&control, from: 0, throughput: 850_000)
        #expect(growth > 0.075 * 850_000 && growth < 0.085 * 850_000, "grew \(growth)")
    }

    /// Near the capacity seen at the last overuse it grows by about one packet per response time (RTT + 100 ms):
    /// at 850 kbit/s, 3 packets of 1,180 bytes a frame, 9,444 bits / 0.5 s = ~19 kbit/s a second, not 8 %.
    @Test func growsAdditivelyNearTheEstimate() {
        var control = Self.control(at: 1_200_000)
        control.update(usage: .overusing, throughput: 1_000_000, now: 0)
        let growth = Self.growForOneSecond(&control, from: 500, throughput: 850_000)
        #expect(control.linkCapacity.estimate != nil)
        #expect(growth > 15_000 && growth < 25_000, "grew \(growth)")
    }

    /// Throughput above the estimate's upper bound resets it: back to 8 % a second.
    @Test func growsMultiplicativelyAgainFarAboveTheEstimate() {
        var control = Self.control(at: 1_200_000)
        control.update(usage: .overusing, throughput: 1_000_000, now: 0)
        #expect(control.capacityOutgrown == 0)
        let growth = Self.growForOneSecond(&control, from: 500, throughput: 1_250_000)
        #expect(control.linkCapacity.estimate == nil)
        #expect(control.capacityOutgrown == 1, "the path grew once (the probe controller probes then)")
        #expect(growth > 0.075 * 900_000 && growth < 0.085 * 900_000, "grew \(growth)")
    }

    /// An application-limited encoder under-reads the link: throughput within the estimate's bounds but below it is
    /// cut from the estimate (1,000 kbit/s, bounds +- 60 kbit/s), not from the throughput.
    @Test func cutWithinTheBoundsUsesTheEstimate() {
        var control = Self.control(at: 1_200_000)
        control.update(usage: .overusing, throughput: 1_000_000, now: 0)
        control.set(1_000_000, now: 1000)
        control.update(usage: .overusing, throughput: 960_000, now: 1000)
        #expect(control.bitrate == 900_000)
    }

    /// Throughput below the lower bound is a different path: the cut follows the throughput and the estimate restarts.
    @Test func cutBelowTheBoundsFollowsTheThroughput() {
        var control = Self.control(at: 1_200_000)
        control.update(usage: .overusing, throughput: 1_000_000, now: 0)
        control.set(1_000_000, now: 1000)
        control.update(usage: .overusing, throughput: 800_000, now: 1000)
        #expect(control.bitrate == 720_000)
        #expect(control.linkCapacity.estimate == 800)
    }

    @Test func oneCutPerRoundTrip() {
        var control = Self.control(at: 1_200_000, roundTripTime: 100)
        control.update(usage: .overusing, throughput: 1_000_000, now: 0)
        #expect(!control.timeToReduceFurther(now: 50, throughput: 900_000))
        #expect(control.timeToReduceFurther(now: 50, throughput: 400_000))  // below half the estimate: at once
        #expect(control.timeToReduceFurther(now: 100, throughput: 900_000))
    }

    /// Past the capacity estimate less one deviation (1,000 kbit/s: sqrt(0.4 x 1,000) = 20 kbit/s, so 980 kbit/s)
    /// growth goes on at a quarter of the additive step: a link that got better is still found.
    @Test func growthSlowsPastTheCapacity() {
        var control = Self.control(at: 1_200_000, roundTripTime: 50)
        control.update(usage: .overusing, throughput: 1_000_000, now: 0)
        #expect(control.bitrate == 900_000)
        let below = Self.growForOneSecond(&control, from: 50, throughput: 850_000)
        var now = 1_100.0
        while control.bitrate < 980_000 {
            control.update(usage: .normal, throughput: control.bitrate, now: now)
            now += 50
        }
        let past = Self.growForOneSecond(&control, from: now, throughput: control.bitrate)
        #expect(past > 0.2 * below && past < 0.3 * below, "below \(below), past \(past) bit/s a second")
        #expect(control.linkCapacity.estimate != nil)
    }

    /// An encoder lagging its target: the throughput (860 kbit/s) is below the estimate's lower bound (1,000 - 3 x 20
    /// = 940 kbit/s). Taken as a new path, the cut follows it (774 kbit/s) and the estimate restarts; known to be
    /// application-limited, the cut is from min(estimate, current rate) = 900 kbit/s (810 kbit/s) and the estimate
    /// stays.
    @Test(arguments: [false, true])
    func applicationLimitedCutKeepsTheCapacity(limited: Bool) {
        var control = Self.control(at: 1_200_000)
        control.update(usage: .overusing, throughput: 1_000_000, now: 0)
        control.set(900_000, now: 1000)
        control.update(usage: .overusing, throughput: 860_000, now: 1000, applicationLimited: limited)
        #expect(abs(control.bitrate - (limited ? 810_000 : 774_000)) < 1, "\(control.bitrate)")
        #expect(control.linkCapacity.estimate == (limited ? 1000 : 860))
    }

    /// Application-limited: the sender offered under 95 % of the estimate and the path delivered at least 90 % of it.
    @Test func applicationLimitedNeedsBothConditions() {
        #expect(DelayBasedBandwidthEstimator.isApplicationLimited(sentRate: 850_000, throughput: 840_000, estimate: 950_000))
        #expect(!DelayBasedBandwidthEstimator.isApplicationLimited(sentRate: 930_000, throughput: 920_000, estimate: 950_000))
        // Offered 1.5 M, the path took 1.0 M: the throughput is the link (cross traffic, a new path).
        #expect(!DelayBasedBandwidthEstimator.isApplicationLimited(sentRate: 1_500_000, throughput: 1_000_000, estimate: 1_900_000))
        #expect(!DelayBasedBandwidthEstimator.isApplicationLimited(sentRate: nil, throughput: 800_000, estimate: 950_000))
    }

    /// Or the offer was under the link capacity estimate's lower bound: 900 kbit/s offered under a 931 kbit/s lower
    /// bound, all of it delivered, reads the encoder; 950 kbit/s offered (over the bound) with 900 delivered is the link.
    @Test func anOfferUnderTheCapacityLowerBoundIsApplicationLimited() {
        #expect(DelayBasedBandwidthEstimator.isApplicationLimited(
            sentRate: 905_000, throughput: 901_000, estimate: 934_000, capacityLowerBound: 931_000))
        #expect(!DelayBasedBandwidthEstimator.isApplicationLimited(
            sentRate: 905_000, throughput: 901_000, estimate: 934_000))
        #expect(!DelayBasedBandwidthEstimator.isApplicationLimited(
            sentRate: 950_000, throughput: 900_000, estimate: 934_000, capacityLowerBound: 931_000))
        // Offered under the bound, but the path took much less: a worse link.
        #expect(!DelayBasedBandwidthEstimator.isApplicationLimited(
            sentRate: 905_000, throughput: 700_000, estimate: 934_000, capacityLowerBound: 931_000))
    }
}
