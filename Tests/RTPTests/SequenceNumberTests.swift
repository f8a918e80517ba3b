import MediaTime
import Testing
import TestSupport
@testable import RTP

@Suite struct SequenceNumberTests {
    @Test func wrappingAddition() {
        #expect((SequenceNumber(65535) + 1).rawValue == 0)
        #expect((SequenceNumber(65530) + 10).rawValue == 4)
        #expect((SequenceNumber(3) - 5).rawValue == 65534)
        var s = SequenceNumber(65535)
        s += 2
        #expect(s.rawValue == 1)
    }

    @Test func wrapAwareOrderingAndDistance() {
        #expect(SequenceNumber(2).isAfter(SequenceNumber(65534)))
        #expect(SequenceNumber(65534).isBefore(SequenceNumber(2)))
        #expect(!SequenceNumber(5).isAfter(SequenceNumber(5)))
        #expect(SequenceNumber(65534).distance(to: SequenceNumber(2)) == 4)
        #expect(SequenceNumber(2).distance(to: SequenceNumber(65534)) == -4)
        #expect(SequenceNumber(0).distance(to: SequenceNumber(32767)) == 32767)
        #expect(SequenceNumber(0).distance(to: SequenceNumber(32768)) == -32768)
    }

    @Test func extendedTrackerCountsRolloversAndToleratesReordering() {
        var tracker = ExtendedSequenceNumberTracker()
        #expect(tracker.extend(SequenceNumber(65533)) == 65533)
        #expect(tracker.extend(SequenceNumber(65535)) == 65535)
        #expect(tracker.extend(SequenceNumber(1)) == 65537)  // wrapped
        #expect(tracker.extend(SequenceNumber(65534)) == 65534)  // late packet from the previous cycle
        #expect(tracker.highest == 65537)
        #expect(tracker.cycles == 1)
        #expect(tracker.reportValue == 0x0001_0001)
        #expect(tracker.extend(SequenceNumber(2)) == 65538)
    }

    @Test func rtpTimestampWrapsAndMeasuresShortestDistance() {
        let t = RTPTimestamp(0xFFFF_FFF0)
        #expect(t.advanced(by: 0x20).rawValue == 0x10)
        #expect(t.distance(to: RTPTimestamp(0x10)) == 0x20)
        #expect(RTPTimestamp(0x10).distance(to: t) == -0x20)
    }

    @Test func mapperAddsOffsetAndWraps() {
        let mapper = RTPTimestampMapper(offset: 0xFFFF_FF00)
        #expect(mapper.timestamp(for: 0).rawValue == 0xFFFF_FF00)
        #expect(mapper.timestamp(for: 0x100).rawValue == 0)
        #expect(mapper.timestamp(for: 3000 + (1 << 32)).rawValue == 3000 - 0x100)
    }

    @Test func mapperAndSSRCUseTheInjectedRandomSource() {
        var a = SplitMix64(seed: 7)
        var b = SplitMix64(seed: 7)
        #expect(RTPTimestampMapper(using: &a).offset == RTPTimestampMapper(using: &b).offset)
        #expect(SSRC.random(using: &a) == SSRC.random(using: &b))
        #expect(SSRC(0xAB).description == "0x000000ab")
    }
}
