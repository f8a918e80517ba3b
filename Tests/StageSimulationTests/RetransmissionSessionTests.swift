import MediaTime
import RTP
import Testing
@testable import Sender

/// Issue 12 on the real `SenderSession`, on a virtual clock: NACKs answered from the packet history, on the media
/// SSRC or the RTX stream, at most once per RTT however often asked; the retransmissions' share taken out of the
/// encoder's target; the first Sender Report with the first frame, so that the RTT guarding resends is known at once.
/// Each test drives the session by hand and reads exactly what it sent and asked (formerly timed over loopback
/// sockets, issue 21).
@Suite struct RetransmissionSessionTests {
    typealias Sent = (at: MonotonicTime, header: RTPHeader, bytes: [UInt8])

    static let start = SessionSimulation.start
    static let media = SessionSimulation.mediaSSRC
    static let peer = SessionSimulation.receiverSSRC
    static let frameInterval = Duration.seconds(1) / 30
    /// A P frame's payload: three packets at the 1,200-byte MTU.
    static let frameSize = 3_000

    static func at(_ milliseconds: Int) -> MonotonicTime { start + .milliseconds(milliseconds) }

    /// A sender of the default scenario (720p at 1.5 Mbit/s, NACK, RTX, pacing, congestion control), changed by
    /// `configure`.
    static func sender(_ configure: (inout SessionSimulation.Scenario) -> Void = { _ in }) throws -> SenderSessionHarness {
        var scenario = SessionSimulation.Scenario()
        configure(&scenario)
        return try SenderSessionHarness(scenario)
    }

    /// Sends frames `indices` at 30 fps from the start (frame 0 an IDR of four times `frameSize`, the others P frames
    /// of `frameSize`), every deadline handled on the way.
    static func send(frames indices: Range<Int>, to sender: SenderSessionHarness) {
        for index in indices {
            let time = start + frameInterval * index
            sender.advance(to: time)
            sender.send(payloadSize: index == 0 ? 4 * frameSize : frameSize, keyframe: index == 0, now: time)
        }
    }

    /// A sender that sent `frames` frames, every deadline handled up to `end`.
    static func streaming(
        _ configure: (inout SessionSimulation.Scenario) -> Void = { _ in }, frames: Int, until end: MonotonicTime
    ) throws -> SenderSessionHarness {
        let sender = try sender(configure)
        send(frames: 0..<frames, to: sender)
        sender.advance(to: end)
        return sender
    }

    /// The peer's compound: an RR, then `copies` NACKs for `lost` (RFC 4585 section 6.2.1).
    static func nack(_ lost: [SequenceNumber], copies: Int = 1) -> [RTCPPacket] {
        [.receiverReport(ReceiverReport(ssrc: peer))]
            + Array(repeating: .nack(GenericNACK(senderSSRC: peer, mediaSSRC: media, lost: lost)), count: copies)
    }

    /// The payload of an RTP packet (after its header and extension).
    static func payload(_ bytes: [UInt8]) throws -> ArraySlice<UInt8> {
        bytes[try RTPPacketView(parsing: bytes).payloadRange]
    }

    /// Checks that `resent` carries the media packets `originals` again, in order: the same packets on the media
    /// SSRC, or RTX packets (RFC 4588: the RTX SSRC and payload type, the RTX stream's own sequence numbers from
    /// `rtxSequenceNumber`, the original sequence number first in the payload).
    static func expectResent(_ resent: [Sent], originals: [Sent], rtx: Bool, rtxSequenceNumber: Int = 0) throws {
        #expect(resent.count == originals.count)
        for (index, (copy, original)) in zip(resent, originals).enumerated() {
            #expect(copy.header.timestamp == original.header.timestamp)
            #expect(copy.header.marker == original.header.marker)
            if rtx {
                #expect(copy.header.ssrc == SessionSimulation.rtxSSRC)
                #expect(copy.header.payloadType == SessionSimulation.rtxPayloadType)
                #expect(copy.header.sequenceNumber == SessionSimulation.rtxFirstSequenceNumber + (rtxSequenceNumber + index))
                let number = original.header.sequenceNumber.rawValue
                #expect(Array(try payload(copy.bytes)) == [UInt8(number >> 8), UInt8(number & 0xFF)] + (try payload(original.bytes)))
            } else {
                #expect(copy.header.ssrc == media)
                #expect(copy.header.payloadType == original.header.payloadType)
                #expect(copy.header.sequenceNumber == original.header.sequenceNumber)
                #expect(try payload(copy.bytes) == (try payload(original.bytes)))
            }
        }
    }

    /// Ten NACKs for two packets in one compound (one arrival): each packet leaves once, at once. A NACK 1 ns short
    /// of the RTT guard (no RTT measured: 100 ms, no margin) is refused; one at the guard is answered with two copies
    /// of each (the first retransmissions were evidently lost); one more RTT on, one copy each again.
    @Test(arguments: [false, true])
    func aNACKedPacketIsResentOnceAndAgainOnlyAfterAnRTT(rtx: Bool) throws {
        let sender = try Self.streaming({ $0.rtx = rtx }, frames: 10, until: Self.at(500))
        let frame = sender.rtpSent().filter { $0.header.timestamp == RTPTimestamp(3000 * 5) }
        try #require(frame.count == 3)
        let originals = Array(frame.prefix(2))
        let lost = originals.map(\.header.sequenceNumber)

        let first = Self.at(500)
        sender.receive(Self.nack(lost, copies: 10), now: first)
        try Self.expectResent(sender.rtpSent(from: first), originals: originals, rtx: rtx)
        #expect(sender.rtpSent(from: first).allSatisfy { $0.at == first })
        var statistics = sender.statistics
        #expect(statistics.nackCount == 10)
        #expect(statistics.retransmittedPacketsSent == 2)
        #expect(statistics.nackIgnoredTooSoon == 18)

        let early = first + NACKResponder.defaultRoundTripTime - .nanoseconds(1)
        sender.advance(to: early)
        sender.receive(Self.nack(lost), now: early)
        #expect(sender.rtpSent(from: early).isEmpty)
        #expect(sender.statistics.nackIgnoredTooSoon == 20)

        // Four packets are more than the pacer lets go back to back: the last leaves within its burst interval.
        let due = first + NACKResponder.defaultRoundTripTime
        sender.advance(to: due)
        sender.receive(Self.nack(lost), now: due)
        sender.advance(to: due + Pacer.defaultBurstInterval)
        let repeated = sender.rtpSent(from: due)
        try Self.expectResent(
            repeated, originals: [originals[0], originals[0], originals[1], originals[1]], rtx: rtx, rtxSequenceNumber: 2)
        #expect(repeated.first?.at == due)
        #expect(repeated.allSatisfy { $0.at < due + Pacer.defaultBurstInterval })
        statistics = sender.statistics
        #expect(statistics.retransmittedPacketsSent == 6)
        #expect(statistics.retransmittedExtraCopies == 2)

        let again = due + NACKResponder.defaultRoundTripTime
        sender.advance(to: again)
        sender.receive(Self.nack(lost), now: again)
        sender.advance(to: again + Pacer.defaultBurstInterval)
        try Self.expectResent(sender.rtpSent(from: again), originals: originals, rtx: rtx, rtxSequenceNumber: 6)
        statistics = sender.statistics
        #expect(statistics.nackCount == 13)
        #expect(statistics.retransmittedPacketsSent == 8)
        #expect(statistics.retransmittedExtraCopies == 2)
        #expect(statistics.nackIgnoredTooSoon == 20)
        #expect(statistics.retransmittedBytesSent == 4 * (originals[0].bytes.count + originals[1].bytes.count))
    }

    /// Retransmissions come out of the target: at the first report after a burst of them (here every 200 ms, which
    /// is also when the share reaches the encoder without congestion feedback) the encoder is asked for the target
    /// less their share of the last second's bytes, and for the whole target again at the first report a second
    /// later, when they have left the window. Here the second before the 1.2 s report held 30 equal frames and 15 of
    /// them were resent: a third of the bytes, so the encoder gets two thirds of 1.5 Mbit/s.
    @Test func theEncoderGivesUpTheRetransmissionsShareOfTheTarget() throws {
        let target = SessionSimulation.Scenario().bitrate
        let sender = try Self.sender { $0.senderReportInterval = .milliseconds(200) }
        Self.send(frames: 0..<32, to: sender)
        let nackTime = Self.at(1050)
        sender.advance(to: nackTime)
        #expect(sender.rateRequests.isEmpty, "nothing resent yet")
        #expect(sender.statistics.mediaTargetBitrate == target)

        // Every packet of the last half second's frames: 15 frames, within the responder's budget (500 ms of target).
        let lost = sender.rtpSent(from: Self.at(550)).map(\.header.sequenceNumber)
        sender.receive(Self.nack(lost), now: nackTime)
        Self.send(frames: 32..<90, to: sender)
        sender.advance(to: Self.at(3000))
        let resent = sender.rtpSent(from: nackTime).filter { $0.header.ssrc == SessionSimulation.rtxSSRC }
        #expect(resent.count == lost.count)

        #expect(sender.rateRequests.map(\.at) == [Self.at(1200), Self.at(2200)])
        #expect(sender.rateRequests.map(\.request.target) == [1_000_000, target])
        #expect(sender.reports.last?.retransmittedBytesSent == resent.reduce(0) { $0 + $1.bytes.count - 2 })  // less the RTX payload header
    }

    /// At most half of the target goes to retransmissions: a burst resent while the encoder sends nothing (the
    /// whole last second's bytes are retransmissions) halves the encoder's target, no more; a second later it is
    /// whole again.
    @Test func atMostHalfOfTheTargetGoesToRetransmissions() throws {
        let target = SessionSimulation.Scenario().bitrate
        let sender = try Self.sender { $0.senderReportInterval = .milliseconds(200) }
        Self.send(frames: 0..<30, to: sender)
        let nackTime = Self.at(2050)
        sender.advance(to: nackTime)
        #expect(sender.rateRequests.isEmpty)
        sender.receive(Self.nack(sender.rtpSent(from: Self.at(500)).map(\.header.sequenceNumber)), now: nackTime)
        #expect(!sender.rtpSent(from: nackTime).isEmpty)
        sender.advance(to: Self.at(3400))
        #expect(sender.rateRequests.map(\.at) == [Self.at(2200), Self.at(3200)])
        #expect(sender.rateRequests.map(\.request.target) == [target / 2, target])
    }

    /// A keyframe ends no repairs: a receiver that releases packets in order (ours, GStreamer's) waits for the
    /// packets before it, and refusing their repairs held its keyframe until the wait ended (at 150 ms and 5 % loss,
    /// 94.2 % decoded and 12 PLIs instead of 100 % and none; Tests/Benchmarks/results/mixed-audience.md). 24 packets
    /// NACKed, a keyframe sent at the same instant: all 24 are resent, and one NACKed again after the keyframe is
    /// resent too (as two copies: its first retransmission counts as lost).
    @Test func aKeyframeEndsNoRepairs() throws {
        let sender = try Self.streaming(frames: 10, until: Self.at(400))
        let lost = sender.rtpSent().filter { $0.header.ssrc == Self.media }.suffix(24).map(\.header.sequenceNumber)
        let nackTime = Self.at(400)
        sender.receive(Self.nack(lost), now: nackTime)
        sender.send(payloadSize: 4 * Self.frameSize, keyframe: true, now: nackTime)
        sender.advance(to: Self.at(700))
        let resent = sender.rtpSent(from: nackTime).filter { $0.header.ssrc == SessionSimulation.rtxSSRC }
        #expect(resent.count == 24)
        sender.receive(Self.nack([lost[0]]), now: Self.at(700))
        sender.advance(to: Self.at(750))
        #expect(sender.rtpSent(from: Self.at(700)).filter { $0.header.ssrc == SessionSimulation.rtxSSRC }.count == 2)
    }

    /// A NACK for a packet never sent (5,000 before the first) and for one sent more than 3 s ago (the history's
    /// retention, 1 s without an RTT, times its culling factor 3), beside one still held: only the held one leaves,
    /// the other two are counted.
    @Test func packetsNoLongerInTheHistoryAreCountedNotSent() throws {
        let sender = try Self.streaming(frames: 2, until: Self.at(3000) + .nanoseconds(1))
        let sent = sender.rtpSent()
        let oldest = sent[0]
        let held = try #require(sent.first { $0.header.timestamp == RTPTimestamp(3000) })
        let never = SessionSimulation.firstSequenceNumber - 5_000
        #expect(oldest.at == Self.start)
        #expect(held.at > Self.start)

        let now = Self.at(3000) + .nanoseconds(1)
        sender.receive(Self.nack([never, oldest.header.sequenceNumber, held.header.sequenceNumber]), now: now)
        try Self.expectResent(sender.rtpSent(from: now), originals: [held], rtx: true)  // the scenario's RTX
        let statistics = sender.statistics
        #expect(statistics.nackIgnoredNotInHistory == 2)
        #expect(statistics.retransmittedPacketsSent == 1)
    }

    /// Regression (found by the network benchmark): with NACK off the pacer still finds its packets (they live in the
    /// history): every packet of every frame leaves, in order, none dropped; a NACK is counted and not answered.
    @Test func withoutNACKThePacedStreamFlowsAndNACKsGoUnanswered() throws {
        let sender = try Self.streaming({ $0.nack = false; $0.rtx = false }, frames: 20, until: Self.at(1000))
        let statistics = sender.statistics
        let sent = sender.rtpSent()
        #expect(statistics.framesSent == 20)
        #expect(statistics.pacerPacketsDropped == 0)
        #expect(sent.count == statistics.packetsSent)
        #expect(sent.map(\.header.sequenceNumber) == (0..<sent.count).map { SessionSimulation.firstSequenceNumber + $0 })
        #expect(Set(sent.map(\.header.timestamp)).count == 20)

        let now = Self.at(1000)
        let fifth = try #require(sent.first { $0.header.timestamp == RTPTimestamp(3000 * 5) })
        sender.receive(Self.nack([fifth.header.sequenceNumber]), now: now)
        sender.advance(to: now + .milliseconds(100))
        #expect(sender.rtpSent(from: now).isEmpty)
        #expect(sender.statistics.nackCount == 1)
        #expect(sender.statistics.retransmittedPacketsSent == 0)
    }

    /// The first Sender Report leaves with the first frame, not one report interval (here 10 s) later, so the
    /// receiver's reports (and the NACKs they ride with) carry LSR/DLSR from the start: the first report about it
    /// gives the RTT (here 50 ms), and the resend guard is that RTT, not the 100 ms assumed before.
    @Test func theFirstSenderReportGoesWithTheFirstFrame() throws {
        let sender = try Self.sender { $0.senderReportInterval = .seconds(10) }
        sender.advance(to: Self.at(100))
        #expect(sender.transmitted.isEmpty)
        let first = Self.at(100)
        sender.send(payloadSize: 4 * Self.frameSize, keyframe: true, now: first)
        sender.advance(to: Self.at(150))

        let packets = sender.rtpSent()
        let reports = sender.rtcpSent()
        try #require(reports.count == 1)
        #expect(reports[0].at == first)
        guard case .senderReport(let report) = reports[0].compound.first else {
            Issue.record("no Sender Report first: \(reports[0].compound)")
            return
        }
        #expect(report.ssrc == Self.media)
        #expect(report.ntpTimestamp == SessionSimulation.wallClockAtStart.advanced(by: .milliseconds(100)))
        #expect(report.rtpTimestamp == RTPTimestamp(0))  // the first frame's own timestamp
        #expect(Int(report.packetCount) == packets.count)
        #expect(reports[0].compound.count == 2)
        if reports[0].compound.count == 2, case .sourceDescription = reports[0].compound[1] {} else {
            Issue.record("no SDES after the Sender Report: \(reports[0].compound)")
        }

        // The peer's report 60 ms later, 10 ms after the SR reached it: RTT 50 ms.
        let dlsr = UInt32(65_536 / 100)
        let arrival = Self.at(160)
        sender.advance(to: arrival)
        sender.receive([.receiverReport(ReceiverReport(ssrc: Self.peer, reportBlocks: [
            ReportBlock(ssrc: Self.media, lastSenderReport: report.ntpTimestamp.middle32, delaySinceLastSenderReport: dlsr),
        ]))], now: arrival)
        let rtt = try #require(sender.statistics.roundTripTime)
        #expect(abs(rtt - 0.05) < 2.0 / 65_536, "RTT \(rtt)")

        // The guard is that RTT: a NACK 49 ms after a resend is refused, one 51 ms after is answered (with two
        // copies: the first retransmission was evidently lost).
        let lost = [packets[1].header.sequenceNumber]
        sender.receive(Self.nack(lost), now: arrival)
        for (delay, resent) in [(49, 1), (51, 3)] {
            let time = arrival + .milliseconds(delay)
            sender.advance(to: time)
            sender.receive(Self.nack(lost), now: time)
            #expect(sender.statistics.retransmittedPacketsSent == resent, "at \(delay) ms")
        }
        // The next Sender Report one report interval after the start.
        sender.advance(to: Self.at(10_000))
        #expect(sender.rtcpSent(from: Self.at(101)).map(\.at) == [Self.at(10_000)])
    }
}
