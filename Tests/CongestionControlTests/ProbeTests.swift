import MediaTime
import RTP
import Testing
@testable import CongestionControl

/// Issue 12, item 6: cautious probing upward, on a fake clock.
@Suite struct ProbeTests {
    static func at(_ ms: Int64) -> MonotonicTime { MonotonicTime(nanoseconds: ms * 1_000_000) }

    @Test func aProbeWaitsForAStableEstimateAndKeepsItsInterval() {
        var controller = ProbeController()
        #expect(controller.probe(now: Self.at(0), estimate: 500_000, ceiling: 2_000_000) == nil)  // not stable yet
        #expect(controller.probe(now: Self.at(2_999), estimate: 500_000, ceiling: 2_000_000) == nil)
        let first = controller.probe(now: Self.at(3_000), estimate: 500_000, ceiling: 2_000_000)
        #expect(first?.cluster == 1)
        #expect(first?.bitrate == 1_000_000)  // 2 x the estimate
        #expect(controller.probe(now: Self.at(7_999), estimate: 600_000, ceiling: 2_000_000) == nil)  // 5 s apart
        let second = controller.probe(now: Self.at(8_000), estimate: 1_200_000, ceiling: 2_000_000)
        #expect(second?.cluster == 2)
        #expect(second?.bitrate == 2_000_000)  // never above the ceiling
    }

    @Test func aDecreaseRestartsTheStableTime() {
        var controller = ProbeController()
        controller.update(estimate: 800_000, now: Self.at(0))
        controller.update(estimate: 700_000, now: Self.at(5_000))  // a cut
        #expect(controller.probe(now: Self.at(7_999), estimate: 700_000, ceiling: 2_000_000) == nil)
        #expect(controller.probe(now: Self.at(8_000), estimate: 700_000, ceiling: 2_000_000)?.bitrate == 1_400_000)
    }

    @Test func noProbeNearTheCeiling() {
        var controller = ProbeController()
        controller.update(estimate: 1_950_000, now: Self.at(0))
        #expect(controller.probe(now: Self.at(10_000), estimate: 1_950_000, ceiling: 2_000_000) == nil)
        #expect(controller.probe(now: Self.at(10_000), estimate: 1_850_000, ceiling: 2_000_000) == nil)  // a cut
        #expect(controller.probe(now: Self.at(13_000), estimate: 1_850_000, ceiling: 2_000_000)?.bitrate == 2_000_000)
    }

    /// Overuse right after a probe doubles the interval (5, 10, 20 ... 60 s); a large drop starts it again at 5 s.
    @Test func aProbeThatCausesOveruseBacksOffUntilTheEstimateDropsALot() {
        var controller = ProbeController()
        controller.update(estimate: 800_000, now: Self.at(0))
        #expect(controller.probe(now: Self.at(3_000), estimate: 800_000, ceiling: 2_000_000) != nil)
        controller.overuseDetected(now: Self.at(3_500))
        #expect(controller.currentInterval == .seconds(10))
        #expect(controller.probe(now: Self.at(12_999), estimate: 800_000, ceiling: 2_000_000) == nil)
        #expect(controller.probe(now: Self.at(13_000), estimate: 800_000, ceiling: 2_000_000) != nil)
        controller.overuseDetected(now: Self.at(16_000))  // not the probe's doing: 3 s later
        #expect(controller.currentInterval == .seconds(10))
        for step in 0..<6 {
            let at = Int64(100_000 * (step + 1))
            #expect(controller.probe(now: Self.at(at), estimate: 800_000, ceiling: 2_000_000) != nil)
            controller.overuseDetected(now: Self.at(at + 100))
        }
        #expect(controller.currentInterval == .seconds(60))
        // 800k -> 600k -> 500k: below 66 % of the 800k before the decline.
        controller.update(estimate: 600_000, now: Self.at(700_000))
        #expect(controller.currentInterval == .seconds(60))
        controller.update(estimate: 500_000, now: Self.at(700_500))
        #expect(controller.currentInterval == .seconds(5))
    }

    /// Eight 1,200-byte probe packets leave 1 ms apart (9.6 Mbit/s) and arrive 6 ms apart (a 1.6 Mbit/s link): the
    /// estimate jumps from 500 kbit/s to what got through, never above the probe's own rate. Received well under the
    /// send rate, the probe saturated the link: 95 % of the receive rate (libwebrtc `kTargetUtilizationFraction`).
    /// Probes that failed at the old capacity hold the next one up to 60 s away; a path that grew (the acknowledged
    /// rate above the link capacity estimate) makes one due at once, and the interval starts again at 5 s.
    @Test func aPathThatGrewIsProbedAtOnce() {
        var controller = ProbeController()
        controller.update(estimate: 500_000, now: Self.at(0))
        for step in 0..<4 {
            let at = Int64(10_000 + 70_000 * step)
            #expect(controller.probe(now: Self.at(at), estimate: 500_000, ceiling: 1_500_000) != nil)
            controller.overuseDetected(now: Self.at(at + 200))
        }
        #expect(controller.currentInterval == .seconds(60))
        #expect(controller.probe(now: Self.at(260_000), estimate: 520_000, ceiling: 1_500_000) == nil)
        controller.pathGrew(now: Self.at(261_000))
        #expect(controller.currentInterval == .seconds(5))
        let probe = controller.probe(now: Self.at(261_000), estimate: 540_000, ceiling: 1_500_000)
        #expect(probe?.bitrate == 1_080_000)
        // The stable time still applies: no probe right after a decrease, even once the path grew.
        controller.update(estimate: 450_000, now: Self.at(262_000))
        controller.pathGrew(now: Self.at(262_500))
        #expect(controller.probe(now: Self.at(263_000), estimate: 450_000, ceiling: 1_500_000) == nil)
        #expect(controller.probe(now: Self.at(265_000), estimate: 450_000, ceiling: 1_500_000) != nil)
    }

    /// The probe of a path that grew, when it got through (at least 70 % of its rate), is followed at once by a
    /// further one at twice its result, capped at the ceiling, and that one by no other once the ceiling is reached;
    /// one that fell short is not followed; nor is a result for another cluster, nor a periodic probe without growth
    /// (behind a policer it fits in the bucket).
    @Test func theProbeOfAPathThatGrewIsFollowedAtOnceWhenItGotThrough() throws {
        var controller = ProbeController()
        controller.update(estimate: 500_000, now: Self.at(0))
        controller.pathGrew(now: Self.at(3_500))
        let firstProbe = controller.probe(now: Self.at(4_000), estimate: 500_000, ceiling: 1_500_000)
        let first = try #require(firstProbe)
        #expect(first.bitrate == 1_000_000)
        controller.probeResult(cluster: first.cluster + 7, bitrate: 990_000)  // another cluster's result: ignored
        #expect(controller.probe(now: Self.at(4_100), estimate: 500_000, ceiling: 1_500_000) == nil)
        controller.probeResult(cluster: first.cluster, bitrate: 960_000)
        #expect(controller.isProbingExponentially)
        let furtherProbe = controller.probe(now: Self.at(4_200), estimate: 960_000, ceiling: 1_500_000)
        let further = try #require(furtherProbe)
        #expect(further.bitrate == 1_500_000)  // 2 x 960k, at most the ceiling: the last of the round
        #expect(!controller.isProbingExponentially)
        controller.probeResult(cluster: further.cluster, bitrate: 1_480_000)
        #expect(controller.probe(now: Self.at(4_300), estimate: 1_480_000, ceiling: 1_500_000) == nil)

        // On a path that did not grow the result falls short: no further probe, the interval holds.
        var short = ProbeController()
        short.update(estimate: 500_000, now: Self.at(0))
        short.pathGrew(now: Self.at(3_500))
        let shortProbe = short.probe(now: Self.at(4_000), estimate: 500_000, ceiling: 1_500_000)
        let probe = try #require(shortProbe)
        short.probeResult(cluster: probe.cluster, bitrate: 520_000)
        #expect(!short.isProbingExponentially)
        #expect(short.probe(now: Self.at(4_200), estimate: 500_000, ceiling: 1_500_000) == nil)
        #expect(short.probe(now: Self.at(9_000), estimate: 500_000, ceiling: 1_500_000) != nil)

        // A periodic probe with no growth seen: its result, however good, starts nothing.
        var plain = ProbeController()
        plain.update(estimate: 500_000, now: Self.at(0))
        let plainProbe = plain.probe(now: Self.at(4_000), estimate: 500_000, ceiling: 1_500_000)
        let periodic = try #require(plainProbe)
        plain.probeResult(cluster: periodic.cluster, bitrate: 1_000_000)
        #expect(!plain.isProbingExponentially)
        #expect(plain.probe(now: Self.at(4_200), estimate: 1_000_000, ceiling: 1_500_000) == nil)
    }

    @Test(arguments: [(2_000_000, 1_520_000), (1_000_000, 1_000_000)])
    func aProbeLiftsTheEstimateToWhatGotThrough(probeRate: Int, expected: Int) throws {
        var estimator = try SendSideBandwidthEstimator(
            initialBitrate: 500_000, maximumBitrate: 5_000_000, usesTransportFeedback: true)
        estimator.setConfiguredBitrate(3_000_000)
        estimator.startProbe(cluster: 1, bitrate: probeRate)
        var arrivals: [MonotonicTime?] = []
        for i in 0..<8 {
            estimator.packetSent(
                transportSequenceNumber: SequenceNumber(UInt16(100 + i)), size: 1200, now: Self.at(1_000 + Int64(i)),
                probeCluster: 1)
            arrivals.append(Self.at(1_025 + Int64(i) * 6))
        }
        let feedback = try TransportFeedback(
            senderSSRC: SSRC(2), mediaSSRC: SSRC(1), baseSequenceNumber: SequenceNumber(100), feedbackPacketCount: 0,
            arrivals: arrivals)
        estimator.update(with: feedback, now: Self.at(1_100))
        let delay = try #require(estimator.delayBased)
        #expect(abs(delay.targetBitrate - expected) <= expected / 100, "\(delay.targetBitrate)")
        #expect(abs(estimator.targetBitrate - expected) <= expected / 100, "the loss-based estimate followed")
        #expect(delay.statistics.probesSent == 1)
        #expect(delay.statistics.probesRaisedEstimate == 1)
    }

    /// The same packets without a cluster (or of another cluster) change nothing at once.
    @Test func packetsOutsideTheClusterAreNoProbe() throws {
        var estimator = try SendSideBandwidthEstimator(
            initialBitrate: 500_000, maximumBitrate: 5_000_000, usesTransportFeedback: true)
        estimator.setConfiguredBitrate(3_000_000)
        estimator.startProbe(cluster: 2, bitrate: 2_000_000)
        var arrivals: [MonotonicTime?] = []
        for i in 0..<8 {
            estimator.packetSent(
                transportSequenceNumber: SequenceNumber(UInt16(i)), size: 1200, now: Self.at(Int64(i)),
                probeCluster: i % 2 == 0 ? 0 : 1)
            arrivals.append(Self.at(25 + Int64(i) * 6))
        }
        estimator.update(with: try TransportFeedback(
            senderSSRC: SSRC(2), mediaSSRC: SSRC(1), baseSequenceNumber: SequenceNumber(0), feedbackPacketCount: 0,
            arrivals: arrivals), now: Self.at(100))
        #expect(estimator.targetBitrate <= 520_000)
        #expect(estimator.delayBased?.statistics.probesRaisedEstimate == 0)
    }
}

/// Start-up probing (libwebrtc: 3x the start rate, then 2x each result while it reaches 70 % of its probe).
@Suite struct ExponentialProbeTests {
    static func at(_ ms: Int64) -> MonotonicTime { MonotonicTime(nanoseconds: ms * 1_000_000) }

    @Test func probesUpWhileResultsGetThroughAndStopsAtTheCeiling() throws {
        var controller = ProbeController()
        controller.startExponentialProbing(startBitrate: 300_000)
        let firstProbe = controller.probe(now: Self.at(0), estimate: 300_000, ceiling: 4_000_000)
        let first = try #require(firstProbe)
        #expect(first.bitrate == 900_000)
        let none = controller.probe(now: Self.at(100), estimate: 300_000, ceiling: 4_000_000)
        #expect(none == nil, "awaiting")
        controller.probeResult(cluster: first.cluster, bitrate: 880_000)
        let secondProbe = controller.probe(now: Self.at(150), estimate: 880_000, ceiling: 4_000_000)
        let second = try #require(secondProbe)
        #expect(second.bitrate == 1_760_000)
        controller.probeResult(cluster: second.cluster, bitrate: 1_700_000)
        let thirdProbe = controller.probe(now: Self.at(300), estimate: 1_700_000, ceiling: 4_000_000)
        let third = try #require(thirdProbe)
        #expect(third.bitrate == 3_400_000)
        controller.probeResult(cluster: third.cluster, bitrate: 3_300_000)
        let fourthProbe = controller.probe(now: Self.at(450), estimate: 3_300_000, ceiling: 4_000_000)
        let fourth = try #require(fourthProbe)
        #expect(fourth.bitrate == 4_000_000, "capped at the ceiling, the last one")
        #expect(!controller.isProbingExponentially)
    }

    @Test func aResultUnderSeventyPercentOrTwoSilencesEndIt() throws {
        var controller = ProbeController()
        controller.startExponentialProbing(startBitrate: 300_000)
        let probe = controller.probe(now: Self.at(0), estimate: 300_000, ceiling: 4_000_000)
        let first = try #require(probe)
        controller.probeResult(cluster: first.cluster + 7, bitrate: 900_000)  // another cluster: ignored
        #expect(controller.isProbingExponentially)
        controller.probeResult(cluster: first.cluster, bitrate: 600_000)  // 67 % of 900k
        #expect(!controller.isProbingExponentially)

        var silent = ProbeController()
        silent.startExponentialProbing(startBitrate: 300_000)
        let sent = silent.probe(now: Self.at(0), estimate: 300_000, ceiling: 4_000_000)
        #expect(sent != nil)
        let waiting = silent.probe(now: Self.at(1_000), estimate: 300_000, ceiling: 4_000_000)
        #expect(waiting == nil)
        // No result within 1 s: the same probe once more, as a new cluster.
        let retried = silent.probe(now: Self.at(1_001), estimate: 300_000, ceiling: 4_000_000)
        let again = try #require(retried)
        #expect(again.bitrate == 900_000)
        #expect(again.cluster != sent?.cluster)
        #expect(silent.isProbingExponentially)
        #expect(silent.probe(now: Self.at(2_001), estimate: 300_000, ceiling: 4_000_000) == nil)
        _ = silent.probe(now: Self.at(2_002), estimate: 300_000, ceiling: 4_000_000)
        #expect(!silent.isProbingExponentially, "twice no result within 1 s")

        // A retry's result goes on as a first try's would.
        var late = ProbeController()
        late.startExponentialProbing(startBitrate: 300_000)
        _ = late.probe(now: Self.at(0), estimate: 300_000, ceiling: 4_000_000)
        let second = late.probe(now: Self.at(1_001), estimate: 300_000, ceiling: 4_000_000)
        let retry = try #require(second)
        late.probeResult(cluster: retry.cluster, bitrate: 850_000)
        let third = late.probe(now: Self.at(1_400), estimate: 850_000, ceiling: 4_000_000)
        let next = try #require(third)
        #expect(next.bitrate == 1_700_000)
    }

    /// In ALR a probe is due every interval without a stable estimate.
    @Test func applicationLimitedProbesWithoutAStableEstimate() {
        var controller = ProbeController()
        let first = controller.probe(now: Self.at(0), estimate: 500_000, ceiling: 2_000_000, applicationLimited: true)
        #expect(first?.bitrate == 1_000_000)
        let early = controller.probe(now: Self.at(4_999), estimate: 500_000, ceiling: 2_000_000, applicationLimited: true)
        #expect(early == nil)
        let next = controller.probe(now: Self.at(5_000), estimate: 500_000, ceiling: 2_000_000, applicationLimited: true)
        #expect(next != nil)
    }
}
