import Codec
import H264
import MediaTime
import RTP
import Testing
@testable import Sender

/// A session with two outgoing streams (what simulcast will add, issue 23): each stream's packets carry its own SSRC
/// and sequence numbers, feedback goes to the stream whose SSRC it names, and a NACK is answered from that stream's
/// history only, on that stream's RTX stream.
@Suite struct OutgoingStreamsSessionTests {
    static let first = StreamIdentity(
        ssrc: SSRC(0x1111_0001), rtxSSRC: SSRC(0x2222_0001), firstSequenceNumber: SequenceNumber(1_000),
        timestampOffset: 0x0100_0000, rtxFirstSequenceNumber: SequenceNumber(5_000))
    static let second = StreamIdentity(
        ssrc: SSRC(0x1111_0002), rtxSSRC: SSRC(0x2222_0002), firstSequenceNumber: SequenceNumber(20_000),
        timestampOffset: 0x0200_0000, rtxFirstSequenceNumber: SequenceNumber(9_000))
    static let rtxPayloadType = PayloadType(97)
    static let start = MonotonicTime(nanoseconds: 1_000_000_000)

    /// One RTP packet as it left: its header and, for RTX, the original sequence number.
    struct Sent: Equatable {
        var ssrc: SSRC
        var sequenceNumber: SequenceNumber
        var payloadType: PayloadType
        var original: SequenceNumber?
    }

    /// A session of two streams, NACK and RTX on, unpaced, without congestion control.
    static func makeSession() throws -> SenderSession {
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: 5004,
            encoder: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 1_000_000))
        configuration.rtx = SenderConfiguration.RTX(payloadType: rtxPayloadType, ssrc: first.rtxSSRC)
        configuration.pacingFactor = nil
        configuration.congestionControl = false
        return try SenderSession(
            configuration: configuration, identity: first, additionalStreams: [second],
            payloadLimit: configuration.payloadLimit, now: start,
            wallClock: NTPTimestamp(seconds: 3_900_000_000, fraction: 0))
    }

    /// An access unit of one NAL unit of `size` bytes (several FU-A packets at the default MTU).
    static func frame(keyframe: Bool, size: Int, index: Int) -> EncodedFrame {
        var bytes: [UInt8] = [0, 0, 0, 1, keyframe ? 0x65 : 0x41]
        bytes += (0..<(size - 1)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
        return EncodedFrame(annexB: bytes, timestamp: Int64(index * 3000))
    }

    /// Takes every output; returns the RTP packets and RTCP compounds that left.
    static func drain(_ session: SenderSession) throws -> (rtp: [Sent], rtcp: [[RTCPPacket]]) {
        var wire = [UInt8](repeating: 0, count: 2048)
        var rtp: [Sent] = []
        var rtcp: [[RTCPPacket]] = []
        var parseError: (any Error)?
        while session.pollTransmit(rtp: { size, write in
            let length = try wire.withUnsafeMutableBytes { try write(UnsafeMutableRawBufferPointer(rebasing: $0[0..<size])) }
            do {
                let view = try RTPPacketView(parsing: Array(wire[0..<length]))
                let payload = Array(wire[view.payloadRange])
                let original = view.header.payloadType == rtxPayloadType && payload.count >= 2
                    ? SequenceNumber(UInt16(payload[0]) << 8 | UInt16(payload[1])) : nil
                rtp.append(Sent(
                    ssrc: view.header.ssrc, sequenceNumber: view.header.sequenceNumber,
                    payloadType: view.header.payloadType, original: original))
            } catch {
                parseError = error
            }
        }, rtcp: { rtcp.append($0) }) {}
        while session.pollEncoderCommand() != nil {}
        while session.pollEvent() != nil {}
        if let parseError { throw parseError }
        return (rtp, rtcp)
    }

    @Test func eachStreamSendsOnItsOwnSSRCAndSequenceNumbersAndAnswersItsOwnNACKs() throws {
        let session = try Self.makeSession()
        #expect(session.streams.map(\.ssrc) == [Self.first.ssrc, Self.second.ssrc])
        let statistics = EncodeStatistics(size: 0, averageQP: nil, encodeDuration: .zero, keyframeRequested: false)
        var media: [Sent] = []
        var compounds: [[RTCPPacket]] = []
        for index in 0..<3 {
            let now = Self.start + .milliseconds(33 * index)
            session.handle(
                encoded: .frame(Self.frame(keyframe: index == 0, size: 3_000, index: index), statistics,
                                captureTime: now, keyframeRequestedAt: nil),
                now: now)
            session.handle(
                encoded: .frame(Self.frame(keyframe: index == 0, size: 1_500, index: index), statistics,
                                captureTime: now, keyframeRequestedAt: nil),
                stream: 1, now: now)
            let out = try Self.drain(session)
            media += out.rtp
            compounds += out.rtcp
        }
        // Each stream's packets carry its SSRC and its own run of sequence numbers from its first one.
        let firstPackets = media.filter { $0.ssrc == Self.first.ssrc }
        let secondPackets = media.filter { $0.ssrc == Self.second.ssrc }
        #expect(firstPackets.count + secondPackets.count == media.count)
        #expect(firstPackets.count >= 6 && secondPackets.count >= 5)  // FU-A: at least 2 and 1 per frame
        #expect(firstPackets.map(\.sequenceNumber) == (0..<firstPackets.count).map { Self.first.firstSequenceNumber + $0 })
        #expect(secondPackets.map(\.sequenceNumber) == (0..<secondPackets.count).map { Self.second.firstSequenceNumber + $0 })
        // The first Sender Report names each stream that has sent, and SDES each stream.
        let reports = compounds.flatMap { $0 }.compactMap { packet -> SSRC? in
            if case .senderReport(let report) = packet { return report.ssrc }
            return nil
        }
        #expect(reports.contains(Self.first.ssrc) && reports.contains(Self.second.ssrc))

        // A NACK for the second stream's SSRC naming sequence numbers both streams could hold: answered from the
        // second stream's history only, on its RTX stream.
        let lost = [Self.second.firstSequenceNumber + 1, Self.second.firstSequenceNumber + 4, Self.first.firstSequenceNumber + 2]
        let nackTime = Self.start + .milliseconds(120)
        session.handle(
            rtcp: [.nack(GenericNACK(senderSSRC: SSRC(9), mediaSSRC: Self.second.ssrc, lost: lost))], now: nackTime)
        let answer = try Self.drain(session).rtp
        #expect(answer == [
            Sent(ssrc: Self.second.rtxSSRC ?? SSRC(0), sequenceNumber: Self.second.rtxFirstSequenceNumber,
                 payloadType: Self.rtxPayloadType, original: Self.second.firstSequenceNumber + 1),
            Sent(ssrc: Self.second.rtxSSRC ?? SSRC(0), sequenceNumber: Self.second.rtxFirstSequenceNumber + 1,
                 payloadType: Self.rtxPayloadType, original: Self.second.firstSequenceNumber + 4),
        ])
        #expect(session.streams[0].responder.statistics.nacksReceived == 0)
        #expect(session.streams[1].responder.statistics.nacksReceived == 1)
        #expect(session.streams[1].responder.statistics.ignoredNotInHistory == 1)  // the first stream's number

        // The same for the first stream: its own history and RTX stream.
        session.handle(
            rtcp: [.nack(GenericNACK(senderSSRC: SSRC(9), mediaSSRC: Self.first.ssrc, lost: [Self.first.firstSequenceNumber + 2]))],
            now: nackTime + .milliseconds(1))
        #expect(try Self.drain(session).rtp == [
            Sent(ssrc: Self.first.rtxSSRC ?? SSRC(0), sequenceNumber: Self.first.rtxFirstSequenceNumber,
                 payloadType: Self.rtxPayloadType, original: Self.first.firstSequenceNumber + 2),
        ])
        // A NACK for an SSRC of neither stream is dropped by the router.
        session.handle(
            rtcp: [.nack(GenericNACK(senderSSRC: SSRC(9), mediaSSRC: SSRC(77), lost: [Self.first.firstSequenceNumber]))],
            now: nackTime + .milliseconds(2))
        #expect(try Self.drain(session).rtp.isEmpty)
        let snapshot = session.snapshot(now: nackTime + .milliseconds(3))
        #expect(snapshot.nackCount == 2)
        #expect(snapshot.packetsSent == media.count && snapshot.retransmittedPacketsSent == 3)
    }

    @Test func feedbackIsRoutedToTheStreamItNames() throws {
        let session = try Self.makeSession()
        var router = FeedbackRouter(ssrc: Self.first.ssrc, additional: [Self.second.ssrc])
        let block = ReportBlock(
            ssrc: Self.second.ssrc, fractionLost: 64, cumulativeLost: 3, extendedHighestSequenceNumber: 100, jitter: 0,
            lastSenderReport: 0, delaySinceLastSenderReport: 0)
        let routed = router.routeToStreams([
            .receiverReport(ReceiverReport(ssrc: SSRC(9), reportBlocks: [block])),
            .pli(PictureLossIndication(senderSSRC: SSRC(9), mediaSSRC: Self.second.ssrc)),
            .fir(FullIntraRequest(senderSSRC: SSRC(9), entries: [
                FullIntraRequestEntry(ssrc: Self.first.ssrc, sequenceNumber: 1),
                FullIntraRequestEntry(ssrc: Self.second.ssrc, sequenceNumber: 1),
            ])),
            .pli(PictureLossIndication(senderSSRC: SSRC(9), mediaSSRC: SSRC(77))),
        ])
        #expect(routed.map(\.stream) == [1, 1, 0, 1])
        #expect(routed.map(\.feedback) == [.receptionReport(block), .pictureLoss, .fullIntraRequest, .fullIntraRequest])
        // In the session, the report block reaches the second stream's link only.
        session.handle(rtcp: [.receiverReport(ReceiverReport(ssrc: SSRC(9), reportBlocks: [block]))], now: Self.start)
        #expect(session.streams[0].link.reportsReceived == 0)
        #expect(session.streams[1].link.reportsReceived == 1)
    }

    @Test func twoStreamsMayNotShareAnSSRC() {
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: 5004,
            encoder: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 1_000_000))
        configuration.rtx = SenderConfiguration.RTX(payloadType: Self.rtxPayloadType, ssrc: Self.first.rtxSSRC)
        var clash = Self.second
        clash.rtxSSRC = Self.first.ssrc
        #expect(throws: SenderError.self) {
            try SenderSession(
                configuration: configuration, identity: Self.first, additionalStreams: [clash],
                payloadLimit: configuration.payloadLimit, now: Self.start,
                wallClock: NTPTimestamp(seconds: 3_900_000_000, fraction: 0))
        }
    }

    @Test func anOutputForAStreamTheSessionLacksIsAFailureNotATrap() throws {
        let session = try Self.makeSession()
        let statistics = EncodeStatistics(size: 0, averageQP: nil, encodeDuration: .zero, keyframeRequested: false)
        session.handle(
            encoded: .frame(Self.frame(keyframe: true, size: 500, index: 0), statistics, captureTime: Self.start,
                            keyframeRequestedAt: nil),
            stream: 2, now: Self.start)
        #expect(try Self.drain(session).rtp.isEmpty)
        #expect(session.snapshot(now: Self.start).frameFailures == 1)
    }
}
