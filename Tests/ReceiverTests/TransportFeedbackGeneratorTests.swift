import RTP
import TestSupport
import Testing
@testable import Receiver

@Suite struct TransportFeedbackGeneratorTests {
    static let us = SSRC(0xAAAA_0001)
    static let media = SSRC(0xBBBB_0002)

    @Test func reportsArrivalsAndLossAcrossTheWrap() throws {
        var generator = TransportFeedbackGenerator(senderSSRC: Self.us, mediaSSRC: Self.media)
        var out: [TransportFeedback] = []
        generator.received(SequenceNumber(65534), now: ms(1000))
        generator.received(SequenceNumber(65535), now: ms(1002))
        generator.received(SequenceNumber(1), now: ms(1003))  // 0 missing
        generator.received(SequenceNumber(2), now: ms(1010))
        #expect(generator.nextDeadline == .zero)  // the first report is due at once
        generator.poll(now: ms(1010), into: &out)
        #expect(out.count == 1)
        let feedback = try #require(out.first)
        #expect(feedback.baseSequenceNumber == SequenceNumber(65534))
        #expect(feedback.senderSSRC == Self.us && feedback.mediaSSRC == Self.media)
        #expect(feedback.feedbackPacketCount == 0)
        let times = feedback.arrivalTimes
        #expect(times.count == 5)
        #expect(times[2] == nil)
        #expect(times[1]! - times[0]! == .milliseconds(2))
        #expect(times[4]! - times[0]! == .milliseconds(10))
        // Bytes round-trip through the RTCP parser.
        #expect(try RTCPPacket.parseCompound(RTCPPacket.transportFeedback(feedback).serialized()) == [.transportFeedback(feedback)])
    }

    @Test func reportsOncePerIntervalAndIgnoresLateArrivals() {
        var generator = TransportFeedbackGenerator(senderSSRC: Self.us, mediaSSRC: Self.media, interval: .milliseconds(100))
        var out: [TransportFeedback] = []
        generator.received(SequenceNumber(10), now: ms(0))
        generator.received(SequenceNumber(12), now: ms(1))
        generator.poll(now: ms(5), into: &out)
        #expect(out.count == 1)
        #expect(generator.nextDeadline == nil)  // nothing new
        generator.received(SequenceNumber(11), now: ms(6))  // already reported as lost
        #expect(generator.lateArrivals == 1)
        #expect(generator.nextDeadline == nil)
        generator.received(SequenceNumber(13), now: ms(20))
        #expect(generator.nextDeadline == ms(105))
        generator.poll(now: ms(104), into: &out)
        #expect(out.isEmpty)
        generator.poll(now: ms(105), into: &out)
        #expect(out.count == 1)
        #expect(out[0].baseSequenceNumber == SequenceNumber(13))
        #expect(out[0].feedbackPacketCount == 1)
        #expect(generator.messagesProduced == 2)
    }

    @Test func splitsLongRunsAndLongGaps() throws {
        var generator = TransportFeedbackGenerator(senderSSRC: Self.us, mediaSSRC: Self.media)
        var out: [TransportFeedback] = []
        for i in 0..<1000 { generator.received(SequenceNumber(UInt16(i)), now: ms(Int64(i) * 70)) }  // 70 ms apart: large deltas
        generator.received(SequenceNumber(1000), now: ms(999 * 70 + 9000))  // 9 s later: no 2-byte delta holds it
        generator.poll(now: ms(200_000), into: &out)
        #expect(out.map(\.statuses.count) == [430, 430, 140, 1])
        #expect(out.map(\.baseSequenceNumber.rawValue) == [0, 430, 860, 1000])
        for message in out {
            let bytes = try RTCPPacket.transportFeedback(message).serialized()
            #expect(bytes.count <= 1000)
        }
    }

    @Test func aJumpRestartsTheReports() {
        var generator = TransportFeedbackGenerator(senderSSRC: Self.us, mediaSSRC: Self.media)
        var out: [TransportFeedback] = []
        generator.received(SequenceNumber(100), now: ms(0))
        generator.received(SequenceNumber(20_000), now: ms(10))  // sender restarted with a new random start
        generator.received(SequenceNumber(20_001), now: ms(11))
        generator.poll(now: ms(20), into: &out)
        #expect(out.count == 1)
        #expect(out[0].baseSequenceNumber == SequenceNumber(20_000))
        #expect(out[0].statuses.count == 2)
    }
}
