import MediaTime
import RTP
import TestSupport
import Testing
@testable import Receiver

@Suite struct NACKGeneratorTests {
    @Test func gapIsNACKedAtOnceThenOncePerRTT() {
        var generator = NACKGenerator()
        generator.roundTripTime = .milliseconds(50)
        var nack: [SequenceNumber] = []
        generator.received(SequenceNumber(100), now: ms(0))
        generator.received(SequenceNumber(104), now: ms(10))  // 101...103 missing
        #expect(generator.missingCount == 3)
        #expect(generator.poll(now: ms(10), into: &nack) == false)
        #expect(nack == seqs([101, 102, 103]))
        #expect(generator.nextDeadline == ms(65))  // RTT 50 + margin 5 after the first NACK (no jitter yet)
        _ = generator.poll(now: ms(64), into: &nack)
        #expect(nack.isEmpty)
        generator.received(SequenceNumber(102), now: ms(40), isRetransmission: true)
        _ = generator.poll(now: ms(65), into: &nack)
        #expect(nack == seqs([101, 103]))
        #expect(generator.statistics.recoveredByRetransmission == 1)
        #expect(generator.statistics.sequenceNumbersNACKed == 5)
    }

    /// The repeat interval is RTT + 5 ms + 2 x jitter: a packet whose retransmission was lost too is asked for again
    /// as soon as the answer is overdue. Table: (RTT ms, jitter ms, interval ms).
    @Test(arguments: [(50, 0, 55), (50, 3, 61), (50, 10, 75), (200, 4, 213), (50, 100, 255), (50, 5_000, 255)])
    func repeatFollowsRoundTripAndJitter(rtt: Int64, jitter: Int64, interval: Int64) {
        var generator = NACKGenerator()
        generator.roundTripTime = .milliseconds(rtt)
        generator.jitter = .milliseconds(jitter)  // 5 s: bounded to 100 ms, 200 ms of margin
        #expect(generator.resendInterval == .milliseconds(interval))
        var nack: [SequenceNumber] = []
        generator.received(SequenceNumber(7), now: ms(0))
        generator.received(SequenceNumber(9), now: ms(1))
        _ = generator.poll(now: ms(1), into: &nack)
        #expect(nack == seqs([8]))
        #expect(generator.nextDeadline == ms(1 + interval))
        _ = generator.poll(now: ms(interval), into: &nack)
        #expect(nack.isEmpty)
        _ = generator.poll(now: ms(1 + interval), into: &nack)
        #expect(nack == seqs([8]))
    }

    /// No value traps: a negative jitter counts as none, a huge RTT is bounded.
    @Test func extremeRoundTripAndJitterDoNotTrap() {
        var generator = NACKGenerator()
        generator.jitter = .milliseconds(-40)
        generator.roundTripTime = .seconds(Int64.max)
        #expect(generator.repeatMargin == NACKGenerator.defaultResendMargin)
        #expect(generator.resendInterval == .seconds(60) + NACKGenerator.defaultResendMargin)
        generator.roundTripTime = .nanoseconds(-5)
        #expect(generator.resendInterval == .milliseconds(1) + NACKGenerator.defaultResendMargin)
    }

    @Test func reorderingDelayAndLateArrivals() {
        var generator = NACKGenerator(reorderingDelay: .milliseconds(10))
        var nack: [SequenceNumber] = []
        generator.received(SequenceNumber(65534), now: ms(0))
        generator.received(SequenceNumber(1), now: ms(1))  // 65535 and 0 missing, across the wrap
        _ = generator.poll(now: ms(5), into: &nack)
        #expect(nack.isEmpty)
        generator.received(SequenceNumber(65535), now: ms(6))  // reordered, not lost
        _ = generator.poll(now: ms(11), into: &nack)
        #expect(nack == seqs([0]))
        #expect(generator.statistics.recoveredByReordering == 1)
        #expect(generator.statistics.packetsMissing == 2)
    }

    /// Ten NACKs, one RTT apart, then one more RTT to let the last retransmission arrive; then a keyframe request.
    @Test func givesUpAfterMaxRetriesAndAsksForKeyframe() {
        var generator = NACKGenerator(maxRetries: 3, maxAge: .seconds(10))
        generator.roundTripTime = .milliseconds(100)
        var nack: [SequenceNumber] = []
        generator.received(SequenceNumber(1), now: ms(0))
        generator.received(SequenceNumber(3), now: ms(0))
        var sent = 0
        var keyframe = false
        for t in stride(from: Int64(0), through: 400, by: 10) {
            keyframe = keyframe || generator.poll(now: ms(t), into: &nack)
            sent += nack.count
        }
        #expect(sent == 3)
        #expect(keyframe)
        #expect(generator.missingCount == 0)
        #expect(generator.statistics.givenUp == 1)
        #expect(generator.statistics.keyframeRequests == 1)
    }

    @Test func givesUpWhenTooOld() {
        var generator = NACKGenerator(maxAge: .milliseconds(300))
        generator.roundTripTime = .milliseconds(1000)
        var nack: [SequenceNumber] = []
        generator.received(SequenceNumber(1), now: ms(0))
        generator.received(SequenceNumber(3), now: ms(0))
        #expect(generator.poll(now: ms(0), into: &nack) == false)
        #expect(generator.nextDeadline == ms(300) + .nanoseconds(1))
        #expect(generator.poll(now: ms(301), into: &nack) == true)
        #expect(nack.isEmpty)
    }

    @Test func hugeGapClearsAndAsksForKeyframe() {
        var generator = NACKGenerator(maxMissing: 100)
        var nack: [SequenceNumber] = []
        generator.received(SequenceNumber(0), now: ms(0))
        generator.received(SequenceNumber(500), now: ms(1))
        #expect(generator.missingCount == 0)
        #expect(generator.nextDeadline != nil)
        #expect(generator.poll(now: ms(1), into: &nack) == true)
        #expect(nack.isEmpty)
        #expect(generator.nextDeadline == nil)
    }

    @Test func removeMissingBeforeAKeyframe() {
        var generator = NACKGenerator()
        generator.received(SequenceNumber(10), now: ms(0))
        generator.received(SequenceNumber(20), now: ms(0))
        generator.removeMissing(before: SequenceNumber(15))
        #expect(generator.missingCount == 5)  // 15...19
        #expect(!generator.isMissing(SequenceNumber(14)))
        #expect(generator.isMissing(SequenceNumber(15)))
    }
}
