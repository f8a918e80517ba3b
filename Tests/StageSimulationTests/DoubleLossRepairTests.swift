import H264
import MediaTime
import RTP
import Receiver
import Sender
import Testing

/// Issue 12's freeze target at the level of the pure stages: a packet whose retransmission is lost too. At 25 ms each
/// way the receiver's repeated NACK must leave one RTT (+ its margin) after the first, and the sender's repeat
/// suppression (`NACKResponder`, RTT + 5 ms) must let it through, so that the second retransmission arrives about
/// 2 RTT after the gap was seen, well inside a 200 ms freeze.
@Suite struct DoubleLossRepairTests {
    static let media = SSRC(0x1111_1111)

    static func time(_ milliseconds: Int64) -> MonotonicTime { MonotonicTime(nanoseconds: milliseconds * 1_000_000) }

    /// Walks one lost packet through NACK -> (lost) retransmission -> repeated NACK -> retransmission on a 1 ms fake
    /// clock. Returns when the packet arrived (ms after the gap was seen), the NACK times, and the responder's refusals.
    static func repair(
        oneWay: Int64, receiverRTT: Int64, senderRTT: Int64, jitter: Int64
    ) throws -> (arrival: Int64?, nacks: [Int64], refused: Int) {
        var history = try PacketHistory()
        // Packets 10...12, 1,012 bytes each: one NAL unit of 1,000 bytes apiece.
        var packetizer = try H264Packetizer(
            ssrc: media, payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(10),
            mtu: 1000 + 20 + 8 + RTPHeader.fixedSize, srtpTrailerSize: 0)
        let slice = [UInt8(0x41)] + [UInt8](repeating: 1, count: 999)
        let frame = EncodedFrame(annexB: AnnexB.serialize([slice, slice, slice]), timestamp: 0)
        try packetizer.plan(frame, timestamp: RTPTimestamp(0)) { history.store($0, of: frame, now: time(0)) }
        var responder = NACKResponder(mediaSSRC: media, targetBitrate: 1_500_000)
        responder.roundTripTime = .milliseconds(senderRTT)
        history.roundTripTime = .milliseconds(senderRTT)
        var generator = NACKGenerator()
        generator.roundTripTime = .milliseconds(receiverRTT)
        generator.jitter = .milliseconds(jitter)
        generator.received(SequenceNumber(10), now: time(0))
        generator.received(SequenceNumber(12), now: time(0))  // 11 lost: the gap is seen at 0
        var nackTimes: [Int64] = []
        var toSender: [Int64] = []
        var toReceiver: [Int64] = []
        var resendCount = 0
        var list: [SequenceNumber] = []
        var resend: [SequenceNumber] = []
        for t in Int64(0)...400 {
            if toReceiver.first == t {
                toReceiver.removeFirst()
                generator.received(SequenceNumber(11), now: time(t), isRetransmission: true)
                return (t, nackTimes, responder.statistics.ignoredTooSoon)
            }
            _ = generator.poll(now: time(t), into: &list)
            if !list.isEmpty {
                nackTimes.append(t)
                toSender.append(t + oneWay)
            }
            if toSender.first == t {
                toSender.removeFirst()
                resend.removeAll()
                responder.respond(
                    to: GenericNACK(senderSSRC: SSRC(3), mediaSSRC: media, lost: [SequenceNumber(11)]),
                    now: time(t), history: &history, retransmit: &resend)
                if !resend.isEmpty {
                    resendCount += 1
                    if resendCount > 1 { toReceiver.append(t + oneWay) }  // the first retransmission is lost
                }
            }
        }
        return (nil, nackTimes, responder.statistics.ignoredTooSoon)
    }

    /// Both ends agree on the RTT (50 ms): the repeat leaves at 55 ms, is answered, and the packet is back at 105 ms
    /// (it was 120 ms with a 20 ms margin). A 3 ms jitter adds 6 ms to the repeat.
    @Test(arguments: [(0, 55, 105), (3, 61, 111)] as [(Int64, Int64, Int64)])
    func secondRetransmissionArrivesAboutTwoRoundTripsAfterTheGap(jitter: Int64, repeatAt: Int64, arrival: Int64) throws {
        let result = try Self.repair(oneWay: 25, receiverRTT: 50, senderRTT: 50, jitter: jitter)
        #expect(result.nacks == [0, repeatAt])
        #expect(result.refused == 0)
        #expect(result.arrival == arrival)
    }

    /// The receiver's RTT holds the sender's pacing, so it is never shorter than the sender's; when it is equal the
    /// repeat still gets through (above). When the sender believes in a longer RTT than the repeat interval, the
    /// repeat is refused and repair takes one more round: the suppression is what bounds the repeat, not the
    /// receiver alone.
    @Test func aSenderWithALongerRoundTripRefusesTheEarlyRepeat() throws {
        let result = try Self.repair(oneWay: 25, receiverRTT: 50, senderRTT: 60, jitter: 0)
        #expect(result.refused == 1)
        #expect(result.nacks == [0, 55, 110])
        #expect(result.arrival == 160)
    }
}
