import CongestionControl
import TestSupport
import Testing

/// The loss model alone (`LossBasedBandwidthEstimatorV2`) under random loss drawn packet by packet from this target's
/// seeded `SplitMix64` (`LossBasedBandwidthEstimatorV2Tests` feeds it fixed fractions).
@Suite struct LossModelRandomLossTests {
    /// Feeds the 50 ms feedback message of `step`: the 1,200-byte packets the estimate sends in it (the fraction left
    /// over carried in `carry`), each lost with probability `loss`, and the delay-based estimate far above.
    /// - Returns: false when the estimate sent no whole packet in this step (nothing was fed).
    static func feed(
        _ estimator: inout LossBasedBandwidthEstimatorV2, step: Int, loss: Double, random: inout SplitMix64,
        carry: inout Double
    ) -> Bool {
        let t = Double(step) * 50
        carry += estimator.estimate / 8 * 0.05 / 1200
        let packets = Int(carry)
        carry -= Double(packets)
        guard packets > 0 else { return false }
        var lost = 0
        for _ in 0..<packets where Double.random(in: 0..<1, using: &random) < loss { lost += 1 }
        estimator.update(
            bytes: packets * 1200, lostBytes: lost * 1200, firstSend: t, lastSend: t + 49,
            delayBasedEstimate: 10_000_000, acknowledgedBitrate: Int(Double((packets - lost) * 1200 * 8) / 0.05))
        return true
    }

    /// 10 % random loss, packet by packet, from a 300 kbit/s start lifted to 1.5 Mbit/s as start-up probes would (five
    /// seeds): the estimate keeps at least 0.9 Mbit/s (issue 24). The network benchmark's 10 %-at-100-ms case, where
    /// the policer's measure first took random loss for a capacity (0.36 Mbit/s after 60 s in two runs; an
    /// observation at 300 kbit/s holds about 8 packets and loses 2 of them one time in five), needed the real session
    /// to show it; this model alone holds either way.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func randomLossIsNoCapacity(seed: UInt64) {
        var estimator = LossBasedBandwidthEstimatorV2(
            initialBitrate: 300_000, minimumBitrate: 50_000, maximumBitrate: 1_500_000)
        var random = SplitMix64(seed: seed)
        var carry = 0.0
        for step in 0..<1200 {
            guard Self.feed(&estimator, step: step, loss: 0.10, random: &random, carry: &carry) else { continue }
            if step == 20 { estimator.setEstimate(1_500_000) }
        }
        #expect(estimator.estimate >= 900_000, "\(estimator.estimate) with seed \(seed)")
    }

    /// Random loss is hardly ever a fast cut: 5 % and 10 % drawn packet by packet at 1.5 Mbit/s, one feedback message
    /// every 50 ms for ten minutes, ten seeds each (100 minutes per rate): at most one observation cuts (an early
    /// observation is tested at every message, and random loss of a few packets reaches 30 % often). Seen: one at 5 %
    /// (seed 10, 7 of 23 packets lost: a chance of 9.4e-5), none at 10 %.
    @Test(arguments: [0.05, 0.10])
    func randomLossIsNoFastCut(loss: Double) {
        var cuts: [UInt64: Int] = [:]
        var lowest = Double.infinity
        for seed in UInt64(1)...10 {
            var estimator = LossBasedBandwidthEstimatorV2(
                initialBitrate: 1_500_000, minimumBitrate: 50_000, maximumBitrate: 1_500_000)
            var random = SplitMix64(seed: seed)
            var carry = 0.0
            for step in 0..<12_000 {
                guard Self.feed(&estimator, step: step, loss: loss, random: &random, carry: &carry) else { continue }
                if step >= 200 { lowest = min(lowest, estimator.estimate) }
            }
            if estimator.fastCuts > 0 { cuts[seed] = estimator.fastCuts }
        }
        #expect(cuts.values.reduce(0, +) <= 1, "fast cuts by seed: \(cuts)")
        print("random loss \(loss): fast cuts by seed \(cuts) in 100 minutes; lowest estimate after 10 s \(Int(lowest))")
    }
}
