import RTP
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
        #expect(generator.nextDeadline == ms(80))  // RTT 50 + margin 20 after the first NACK
        _ = generator.poll(now: ms(79), into: &nack)
        #expect(nack.isEmpty)
        generator.received(SequenceNumber(102), now: ms(40), isRetransmission: true)
        _ = generator.poll(now: ms(80), into: &nack)
        #expect(nack == seqs([101, 103]))
        #expect(generator.statistics.recoveredByRetransmission == 1)
        #expect(generator.statistics.sequenceNumbersNACKed == 5)
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
