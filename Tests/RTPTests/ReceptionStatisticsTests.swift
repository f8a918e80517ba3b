import MediaTime
import Testing
@testable import RTP

@Suite struct ReceptionStatisticsTests {
    @Test func lossFractionAndCumulativeLossFollowAppendixA3() {
        var s = ReceptionStatistics(ssrc: SSRC(9))
        for seq in [65530, 65531, 65533, 65534, 0, 1, 3, 4, 5, 6] as [UInt16] {  // 65532 and 2 lost, across the wrap
            s.record(sequenceNumber: SequenceNumber(seq), timestamp: RTPTimestamp(0), arrival: 0)
        }
        #expect(s.expected == 13)
        #expect(s.received == 10)
        let first = s.makeReportBlock(lastSenderReport: 0x1234_5678, delaySinceLastSenderReport: 0x10000)
        #expect(first == ReportBlock(
            ssrc: SSRC(9), fractionLost: 59,  // 3 * 256 / 13
            cumulativeLost: 3, extendedHighestSequenceNumber: 0x0001_0006,
            jitter: 0, lastSenderReport: 0x1234_5678, delaySinceLastSenderReport: 0x10000))
        // Next interval: 7...10 is 4 expected and 4 received (9 lost, 8 twice), so the fraction is 0.
        for seq in [7, 8, 8, 10] as [UInt16] {
            s.record(sequenceNumber: SequenceNumber(seq), timestamp: RTPTimestamp(0), arrival: 0)
        }
        let second = s.makeReportBlock()
        #expect(second.fractionLost == 0)
        #expect(second.cumulativeLost == 3)  // 17 expected, 14 received: 9 lost, 8 counted twice (RFC 3550 6.4.1)
        #expect(second.extendedHighestSequenceNumber == 0x0001_000A)
    }

    @Test func jitterFollowsAppendixA8() {
        var s = ReceptionStatistics(ssrc: SSRC(1))
        // Packets 3000 ticks apart in RTP time; the second arrives 160 ticks late, the third on time again.
        s.record(sequenceNumber: SequenceNumber(1), timestamp: RTPTimestamp(0), arrival: 1000)
        s.record(sequenceNumber: SequenceNumber(2), timestamp: RTPTimestamp(3000), arrival: 4160)
        #expect(s.jitter == 10)  // J = 0 + (160 - 0) / 16
        s.record(sequenceNumber: SequenceNumber(3), timestamp: RTPTimestamp(6000), arrival: 7000)
        // Scaled: 160 + 160 - ((160 + 8) >> 4) = 310 -> 310 >> 4 = 19.
        #expect(s.jitter == 19)
        // A timestamp wrap between packets is not a huge transit jump.
        var w = ReceptionStatistics(ssrc: SSRC(1))
        w.record(sequenceNumber: SequenceNumber(1), timestamp: RTPTimestamp(0xFFFF_FF00), arrival: 0)
        w.record(sequenceNumber: SequenceNumber(2), timestamp: RTPTimestamp(0x0000_0100), arrival: 0x200)
        #expect(w.jitter == 0)
    }

    @Test func delaySinceLastSenderReportUsesTheMiddleBits() {
        let arrival = NTPTimestamp(seconds: 100, fraction: 0x8000_0000)
        let now = NTPTimestamp(seconds: 102, fraction: 0xC000_0000)
        #expect(now.delay(since: arrival) == 0x0002_4000)  // 2.25 s
    }
}
