import MediaTime
import RTP
import TestSupport
import Testing
@testable import CongestionControl

@Suite struct RetransmissionShareTests {
    func at(_ milliseconds: Int64) -> MonotonicTime { ms(milliseconds) }

    @Test func nothingResentLeavesTheTargetWhole() {
        var share = RetransmissionShare()
        #expect(share.mediaBitrate(of: 1_000_000) == 1_000_000, "no sample yet")
        for i in 0...20 { share.record(media: i * 10_000, retransmitted: 0, now: at(Int64(i) * 100)) }
        #expect(share.share == 0)
        #expect(share.mediaBitrate(of: 1_000_000) == 1_000_000)
    }

    @Test func theShareIsMeasuredOverTheLastSecond() {
        var share = RetransmissionShare()
        // 2 s of 100 kB/s media; 10 kB/s resent in the first second, 30 kB/s in the second.
        var media = 0
        var resent = 0
        for i in 1...20 {
            media += 10_000
            resent += i <= 10 ? 1_000 : 3_000
            share.record(media: media, retransmitted: resent, now: at(Int64(i) * 100))
        }
        // The last second alone: 30,000 of 130,000 bytes (the first second's 10 % is gone).
        #expect(abs(share.share - 30_000.0 / 130_000) < 1e-9)
        #expect(share.mediaBitrate(of: 1_300_000) == 1_000_000)
    }

    @Test func samplesCloserThanTheIntervalAreNotKept() {
        var share = RetransmissionShare()
        share.record(media: 0, retransmitted: 0, now: at(0))
        share.record(media: 1_000, retransmitted: 1_000, now: at(50))  // too soon: not kept
        #expect(share.share == 0, "one sample: nothing to measure")
        share.record(media: 3_000, retransmitted: 1_000, now: at(100))
        #expect(abs(share.share - 0.25) < 1e-9)
    }

    @Test func atMostHalfTheTargetGoesToRetransmissions() {
        var share = RetransmissionShare()
        share.record(media: 0, retransmitted: 0, now: at(0))
        share.record(media: 10_000, retransmitted: 90_000, now: at(1_000))
        #expect(share.share == RetransmissionShare.maximumShare)
        #expect(share.mediaBitrate(of: 900_000) == 450_000)
    }

    @Test func aStormOfRetransmissionsPassesAfterASecond() {
        var share = RetransmissionShare()
        var media = 0
        var resent = 0
        for i in 1...30 {
            media += 10_000
            if i <= 10 { resent += 10_000 }  // a storm in the first second only
            share.record(media: media, retransmitted: resent, now: at(Int64(i) * 100))
        }
        #expect(share.share == 0, "the last second resent nothing")
    }
}
