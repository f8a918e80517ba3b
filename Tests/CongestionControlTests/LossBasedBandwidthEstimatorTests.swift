import RTP
import TestSupport
import Testing
@testable import CongestionControl

@Suite struct LossBasedBandwidthEstimatorTests {
    /// Table: loss -> target one second after a 1 Mbit/s start (one report of 100 packets).
    @Test(arguments: [
        (0, 1_081_000),  // < 2 %: x1.08 + 1 kbit/s over one second
        (1, 1_081_000),
        (5, 1_000_000),  // 2...10 %: hold
        (10, 1_000_000),
        (20, 900_000),  // > 10 %: x(1 - 0.2 / 2)
        (50, 750_000),
        (100, 500_000),
    ])
    func oneReport(lostPercent: Int, expected: Int) throws {
        var estimator = try LossBasedBandwidthEstimator(initialBitrate: 1_000_000)
        let target = estimator.update(packetsExpected: 100, packetsLost: lostPercent, now: ms(1000), roundTripTime: nil)
        #expect(target == expected)
    }

    @Test func increaseIsPerSecondOfElapsedTime() throws {
        var estimator = try LossBasedBandwidthEstimator(initialBitrate: 1_000_000)
        estimator.update(packetsExpected: 50, packetsLost: 0, now: ms(0), roundTripTime: nil)
        let first = estimator.targetBitrate
        // Ten reports 100 ms apart: about 8 % in total, not 8 % each.
        for i in 1...10 { estimator.update(packetsExpected: 50, packetsLost: 0, now: ms(Int64(i) * 100), roundTripTime: nil) }
        let ratio = Double(estimator.targetBitrate) / Double(first)
        #expect(ratio > 1.079 && ratio < 1.082)
    }

    /// After a low-loss report the target keeps growing between reports (called on each transport-wide feedback),
    /// 8 % a second in all; not after a report in the hold band, nor once the last report is over 6 s old.
    @Test func growsBetweenReportsOnlyAfterRecentLowLoss() throws {
        var estimator = try LossBasedBandwidthEstimator(initialBitrate: 1_000_000)
        estimator.increaseBetweenReports(now: ms(0))
        #expect(estimator.targetBitrate == 1_000_000)  // no report yet
        estimator.update(packetsExpected: 100, packetsLost: 0, now: ms(0), roundTripTime: nil)
        let first = estimator.targetBitrate
        for i in 1...20 { estimator.increaseBetweenReports(now: ms(Int64(i) * 50)) }
        let ratio = Double(estimator.targetBitrate) / Double(first)
        #expect(ratio > 1.079 && ratio < 1.082, "ratio \(ratio)")
        let grown = estimator.targetBitrate
        estimator.increaseBetweenReports(now: ms(7_500))  // the report is 7.5 s old
        #expect(estimator.targetBitrate == grown)
        estimator.update(packetsExpected: 100, packetsLost: 5, now: ms(8_000), roundTripTime: nil)
        let held = estimator.targetBitrate
        estimator.increaseBetweenReports(now: ms(8_500))
        #expect(estimator.targetBitrate == held)
    }

    @Test func smallReportsAccumulateUntilTwentyPackets() throws {
        var estimator = try LossBasedBandwidthEstimator(initialBitrate: 1_000_000)
        // 3 packets, 2 lost: alone it would be 67 % loss; it is held until 20 packets are covered.
        #expect(estimator.update(packetsExpected: 3, packetsLost: 2, now: ms(0), roundTripTime: nil) == 1_000_000)
        #expect(estimator.lastLoss == nil)
        estimator.update(packetsExpected: 17, packetsLost: 0, now: ms(100), roundTripTime: nil)
        #expect(estimator.lastLoss == 0.1)
        #expect(estimator.targetBitrate == 1_000_000)
    }

    @Test func decreasesAtMostOncePerIntervalPlusRTT() throws {
        var estimator = try LossBasedBandwidthEstimator(initialBitrate: 1_000_000)
        estimator.update(packetsExpected: 100, packetsLost: 20, now: ms(0), roundTripTime: .milliseconds(100))
        #expect(estimator.targetBitrate == 900_000)
        estimator.update(packetsExpected: 100, packetsLost: 20, now: ms(399), roundTripTime: .milliseconds(100))
        #expect(estimator.targetBitrate == 900_000)
        estimator.update(packetsExpected: 100, packetsLost: 20, now: ms(400), roundTripTime: .milliseconds(100))
        #expect(estimator.targetBitrate == 810_000)
    }

    @Test func boundedByMinimumAndMaximum() throws {
        var estimator = try LossBasedBandwidthEstimator(initialBitrate: 5_000_000, minimumBitrate: 100_000, maximumBitrate: 2_000_000)
        #expect(estimator.targetBitrate == 2_000_000)
        estimator.update(packetsExpected: 100, packetsLost: 0, now: ms(1000), roundTripTime: nil)
        #expect(estimator.targetBitrate == 2_000_000)
        for i in 0..<40 { estimator.update(packetsExpected: 100, packetsLost: 100, now: ms(Int64(i) * 1000), roundTripTime: nil) }
        #expect(estimator.targetBitrate == 100_000)
        #expect(throws: BandwidthEstimatorError.invalidBounds(minimum: 10, maximum: 5)) {
            try LossBasedBandwidthEstimator(initialBitrate: 1, minimumBitrate: 10, maximumBitrate: 5)
        }
    }

    /// From report blocks: packets covered = growth of the extended highest sequence number, lost = growth of the
    /// cumulative loss; the first block is the baseline; the 32-bit counter may wrap.
    @Test func fromReportBlocks() throws {
        var estimator = try LossBasedBandwidthEstimator(initialBitrate: 1_000_000)
        func block(_ highest: UInt32, _ lost: Int32) -> ReportBlock {
            ReportBlock(ssrc: SSRC(1), cumulativeLost: lost, extendedHighestSequenceNumber: highest)
        }
        #expect(estimator.update(with: block(0xFFFF_FFF0, 5), now: ms(0), roundTripTime: nil) == 1_000_000)
        #expect(estimator.lastLoss == nil)
        estimator.update(with: block(0x0000_0054, 25), now: ms(1000), roundTripTime: nil)  // 100 packets, 20 lost
        #expect(estimator.lastLoss == 0.2)
        #expect(estimator.targetBitrate == 900_000)
        // A block that moves backwards (receiver restart) is ignored.
        estimator.update(with: block(0x10, 25), now: ms(2000), roundTripTime: nil)
        #expect(estimator.targetBitrate == 900_000)
    }
}
