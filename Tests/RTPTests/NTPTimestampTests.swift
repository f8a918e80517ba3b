import MediaTime
import Testing
@testable import RTP

@Suite struct NTPTimestampTests {
    @Test func middleBitsAndHalves() {
        let t = NTPTimestamp(seconds: 0xB705_2000, fraction: 0x8000_1234)
        #expect(t.rawValue == 0xB705_2000_8000_1234)
        #expect(t.middle32 == 0x2000_8000)
        #expect(t.seconds == 0xB705_2000 && t.fraction == 0x8000_1234)
    }

    @Test func convertsUnixTime() {
        let t = NTPTimestamp(unixSeconds: 0, nanoseconds: 500_000_000)
        #expect(t.seconds == 2_208_988_800)
        #expect(t.fraction == 0x8000_0000)
    }

    @Test func roundTripTimeFollowsTheRFC3550Example() throws {
        // RFC 3550 section 6.4.1, the example figure: A = 0xb710:8000 (46864.500 s), LSR = 0xb705:2000
        // (46853.125 s), DLSR = 0x0005:4000 (5.250 s) -> RTT = 0x0006:2000 (6.125 s).
        let block = ReportBlock(ssrc: SSRC(1), lastSenderReport: 0xB705_2000, delaySinceLastSenderReport: 0x0005_4000)
        let arrival = NTPTimestamp(rawValue: UInt64(0xB710_8000) << 16)
        #expect(block.roundTripTimeUnits(arrival: arrival) == 0x0006_2000)
        #expect(block.roundTripTime(arrival: arrival) == .milliseconds(6125))
    }

    @Test func roundTripTimeWithoutSenderReportIsNilAndNegativeIsZero() {
        let arrival = NTPTimestamp(rawValue: UInt64(0xB710_8000) << 16)
        #expect(ReportBlock(ssrc: SSRC(1)).roundTripTime(arrival: arrival) == nil)
        let bogus = ReportBlock(ssrc: SSRC(1), lastSenderReport: 0xB710_0000, delaySinceLastSenderReport: 0x0001_0000)
        #expect(bogus.roundTripTimeUnits(arrival: arrival) == 0)
    }
}
