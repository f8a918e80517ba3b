import RTP
import TestSupport
import Testing
@testable import Sender

@Suite struct NACKResponderTests {
    static let media = SSRC(0x1122_3344)

    func nack(_ lost: [UInt16], ssrc: SSRC = media) -> GenericNACK {
        GenericNACK(senderSSRC: SSRC(9), mediaSSRC: ssrc, lost: lost.map { SequenceNumber($0) })
    }

    func history(_ sequenceNumbers: ClosedRange<UInt16>, size: Int = 1200) throws -> PacketHistory {
        var history = try PacketHistory(capacity: 2048)
        for seq in sequenceNumbers { history.store(seq, size: size, now: ms(0)) }
        return history
    }

    @Test func resendsWhatIsHeldAndCountsTheRest() throws {
        var history = try history(100...120)
        var responder = NACKResponder(mediaSSRC: Self.media, targetBitrate: 1_000_000)
        var out: [SequenceNumber] = []
        responder.respond(to: nack([101, 105, 117, 500]), now: ms(10), history: &history, retransmit: &out)
        #expect(out == [101, 105, 117].map { SequenceNumber($0) })
        #expect(responder.statistics.nacksReceived == 1)
        #expect(responder.statistics.packetsRequested == 4)
        #expect(responder.statistics.packetsRetransmitted == 3)
        #expect(responder.statistics.bytesRetransmitted == 3600)
        #expect(responder.statistics.ignoredNotInHistory == 1)
        #expect(history.retransmissions(of: SequenceNumber(105), now: ms(10))!.count == 1)
    }

    /// The storm case: a receiver NACKs every packet ten times in quick succession; each is resent once per
    /// RTT at most.
    @Test func atMostOncePerRoundTripHoweverOftenAsked() throws {
        var history = try history(0...9, size: 100)
        var responder = NACKResponder(mediaSSRC: Self.media, targetBitrate: 1_000_000)
        responder.roundTripTime = .milliseconds(50)
        var out: [SequenceNumber] = []
        for i in 0..<10 {
            responder.respond(to: nack(Array(0...9)), now: ms(Int64(i) * 5), history: &history, retransmit: &out)
        }
        #expect(out.count == 10)  // each once, in the first NACK
        #expect(responder.statistics.ignoredTooSoon == 90)
        // One RTT (50 ms, no margin by default) after the first resend: due again.
        responder.respond(to: nack([3]), now: ms(49), history: &history, retransmit: &out)
        #expect(out.count == 10)
        // Asked again after its retransmission had time to arrive: it was lost, so this resend goes as two copies,
        // once; later repeats are single again, at most once per RTT.
        responder.respond(to: nack([3]), now: ms(50), history: &history, retransmit: &out)
        #expect(out.count == 12)
        #expect(out.suffix(2) == [SequenceNumber(3), SequenceNumber(3)])
        #expect(responder.statistics.extraCopies == 1)
        for i in 0..<10 {
            responder.respond(to: nack([3]), now: ms(51 + Int64(i) * 5), history: &history, retransmit: &out)
        }
        #expect(out.count == 12)
        responder.respond(to: nack([3]), now: ms(100), history: &history, retransmit: &out)
        #expect(out.count == 13)
        responder.respond(to: nack([3]), now: ms(150), history: &history, retransmit: &out)
        #expect(out.count == 14)
        #expect(responder.statistics.extraCopies == 1)
        #expect(history.retransmissions(of: SequenceNumber(3), now: ms(150))!.count == 4)
    }

    /// `repeatCopies: 1` resends a repeat once, like libwebrtc; and the copies never overdraw the budget.
    @Test func repeatCopiesAreConfigurableAndBudgeted() throws {
        var history = try history(0...9)
        var single = NACKResponder(mediaSSRC: Self.media, targetBitrate: 1_000_000, repeatCopies: 1)
        single.roundTripTime = .milliseconds(50)
        var out: [SequenceNumber] = []
        single.respond(to: nack([1]), now: ms(0), history: &history, retransmit: &out)
        single.respond(to: nack([1]), now: ms(50), history: &history, retransmit: &out)
        #expect(out == [SequenceNumber(1), SequenceNumber(1)])
        #expect(single.statistics.extraCopies == 0)
        // 19.2 kbit/s x 500 ms = 1,200 bytes: room for one 1,200-byte packet at a time.
        var history2 = try self.history(0...9)
        var tight = NACKResponder(mediaSSRC: Self.media, targetBitrate: 19_200)
        tight.roundTripTime = .milliseconds(50)
        out.removeAll()
        tight.respond(to: nack([2]), now: ms(0), history: &history2, retransmit: &out)
        tight.respond(to: nack([2]), now: ms(500), history: &history2, retransmit: &out)
        #expect(out == [SequenceNumber(2), SequenceNumber(2)])  // one copy: the budget held one packet
        #expect(tight.availableBudget(now: ms(500)) == 0)
    }

    /// Budget: target 192 kbit/s x 500 ms = 12,000 bytes = ten 1,200-byte packets; then 1,200 bytes per 50 ms.
    @Test func retransmissionBudgetCapsTheRate() throws {
        var history = try history(0...99)
        var responder = NACKResponder(mediaSSRC: Self.media, targetBitrate: 192_000)
        var out: [SequenceNumber] = []
        responder.respond(to: nack(Array(0...29)), now: ms(0), history: &history, retransmit: &out)
        #expect(out.count == 10)
        #expect(responder.statistics.ignoredOverBudget == 20)
        responder.respond(to: nack(Array(30...39)), now: ms(49), history: &history, retransmit: &out)
        #expect(out.count == 10)
        responder.respond(to: nack(Array(30...39)), now: ms(100), history: &history, retransmit: &out)
        #expect(out.count == 12)
        // The budget never holds more than 500 ms of the target, however long the pause.
        for seq in UInt16(40)...99 { history.store(seq, now: ms(59_990)) }
        responder.respond(to: nack(Array(40...99)), now: ms(60_000), history: &history, retransmit: &out)
        #expect(out.count == 22)
        #expect(responder.availableBudget(now: ms(60_000)) == 0)
    }

    @Test func otherSSRCIsIgnored() throws {
        var history = try history(0...3)
        var responder = NACKResponder(mediaSSRC: Self.media, targetBitrate: 1_000_000)
        var out: [SequenceNumber] = []
        responder.respond(to: nack([1], ssrc: SSRC(77)), now: ms(0), history: &history, retransmit: &out)
        #expect(out.isEmpty)
        #expect(responder.statistics.nacksForOtherSSRC == 1)
        #expect(responder.statistics.nacksReceived == 0)
    }

    @Test func lowerTargetShrinksTheBudget() throws {
        var responder = NACKResponder(mediaSSRC: Self.media, targetBitrate: 1_000_000)
        #expect(responder.availableBudget(now: ms(0)) == 62_500)
        responder.setTargetBitrate(80_000)
        #expect(responder.availableBudget(now: ms(0)) == 5_000)
        responder.setTargetBitrate(-5)
        #expect(responder.availableBudget(now: ms(1000)) == 0)
    }

    /// The resend guard is the lowest of the latest five RTT samples: one report's higher RTT (60 ms against 52)
    /// does not refuse a repeat that comes one receiver RTT (+ its margin) after the first NACK.
    @Test func theGuardIsTheLowestRecentRoundTrip() throws {
        var history = try history(0...9)
        var responder = NACKResponder(mediaSSRC: Self.media, targetBitrate: 1_000_000)
        for sample in [52, 53, 60, 58] { responder.updateRoundTripTime(.milliseconds(sample)) }
        #expect(responder.roundTripTime == .milliseconds(52))
        var out: [SequenceNumber] = []
        responder.respond(to: nack([4]), now: ms(0), history: &history, retransmit: &out)
        responder.respond(to: nack([4]), now: ms(57), history: &history, retransmit: &out)
        #expect(out.count == 3)  // the repeat 57 ms later is answered (two copies); 60 ms would have refused it
        // Five newer samples push the 52 ms one out.
        for sample in [70, 71, 72, 73, 74] { responder.updateRoundTripTime(.milliseconds(sample)) }
        #expect(responder.roundTripTime == .milliseconds(70))
        responder.updateRoundTripTime(.milliseconds(-5))
        #expect(responder.roundTripTime == .zero)
    }
}
