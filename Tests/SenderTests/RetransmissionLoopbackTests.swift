import Codec
import RTP
import SRTP
import Testing
import Video
@testable import Sender

/// Issue 12: NACKs answered from the packet history, on the media SSRC or an RTX stream, at most once per RTT however
/// often asked.
@Suite(.serialized) struct RetransmissionLoopbackTests {
    /// Sends 30 frames as fast as the encoder takes them, then runs `body` while the sender is still up.
    func withSender(
        rtx: Bool, reportInterval: Duration? = nil,
        _ body: @escaping @Sendable (H264Sender, LoopbackPeer) async throws -> Void
    ) async throws -> SenderStats {
        var configuration = SenderLoopbackTests.configuration(peerPort: 0)
        if let reportInterval { configuration.reportInterval = reportInterval }
        let peer = try await LoopbackPeer(security: configuration.security)
        configuration.peerPort = peer.port
        configuration.rtx = rtx ? .init(payloadType: PayloadType(97), ssrc: SSRC(0xAB_CDEF)) : nil
        let sender = try await H264Sender(configuration: configuration)
        let start = ContinuousClock.now
        let pattern = try TestPattern(width: 320, height: 240)
        for index in 0..<30 {
            await sender.waitForEncoder()
            try sender.send(captureTime: start + .seconds(index) / 30) { pattern.render(frameIndex: index, into: &$0) }
        }
        try await peer.waitUntil { $0.frames.count >= 25 }
        try await body(sender, peer)
        let stats = try await sender.finish()
        await peer.close()
        return stats
    }

    @Test(arguments: [false, true])
    func aNACKedPacketIsResentOnceAndAgainOnlyAfterAnRTT(rtx: Bool) async throws {
        let stats = try await withSender(rtx: rtx) { sender, peer in
            let frames = try await peer.received().frames
            let wanted = SequenceNumber(UInt16(truncatingIfNeeded: frames[frames.count / 2].firstSequenceNumber))
            let nack = RTCPPacket.nack(GenericNACK(senderSSRC: peer.ssrc, mediaSSRC: sender.ssrc, lost: [wanted, wanted + 1]))
            // Ten NACKs for the same packets in one compound (one arrival time): each packet leaves once (no storm).
            try await peer.send(Array(repeating: nack, count: 10))
            try await waitUntil(sender) { $0.retransmittedPacketsSent >= 2 }
            try await Task.sleep(for: .milliseconds(50))
            #expect(await sender.statistics().retransmittedPacketsSent == 2)
            // After the RTT guard (no RTT known yet: 100 ms, no margin), a new NACK is answered again: the first
            // retransmissions were evidently lost, so each packet goes as two copies this time.
            try await Task.sleep(for: .milliseconds(150))
            try await peer.send([nack])
            try await waitUntil(sender) { $0.retransmittedPacketsSent >= 6 }
        }
        #expect(stats.nackCount == 11)  // NACK messages, ten in the first compound
        #expect(stats.retransmittedPacketsSent == 6)
        #expect(stats.retransmittedExtraCopies == 2)
        #expect(stats.nackIgnoredTooSoon == 18)
        #expect(stats.retransmittedBytesSent > 0)
    }

    /// Retransmissions come out of the target: after a burst of them the encoder is asked for the target less their
    /// share of the last second's bytes (at most half), and for the whole target again once a second has passed
    /// without any. Without congestion control the share reaches the encoder with each report (here every 200 ms).
    @Test func theEncoderGivesUpTheRetransmissionsShareOfTheTarget() async throws {
        _ = try await withSender(rtx: false, reportInterval: .milliseconds(200)) { sender, peer in
            let before = await sender.statistics()
            #expect(before.mediaTargetBitrate == before.targetBitrate, "nothing resent yet")
            let frames = try await peer.received().frames
            let first = SequenceNumber(UInt16(truncatingIfNeeded: frames[0].firstSequenceNumber))
            let last = SequenceNumber(UInt16(truncatingIfNeeded: frames[frames.count - 1].firstSequenceNumber))
            let lost = (0...first.distance(to: last)).map { first + $0 }
            try await peer.send([.nack(GenericNACK(senderSSRC: peer.ssrc, mediaSSRC: sender.ssrc, lost: lost))])
            try await waitUntil(sender) { $0.retransmittedPacketsSent > 0 }
            try await waitUntil(sender) { $0.mediaTargetBitrate < $0.targetBitrate }
            let during = await sender.statistics()
            #expect(during.mediaTargetBitrate >= during.targetBitrate / 2, "at most half goes to retransmissions")
            try await waitUntil(sender, seconds: 5) { $0.mediaTargetBitrate == $0.targetBitrate }
        }
    }

    @Test func packetsNoLongerInTheHistoryAreCountedNotSent() async throws {
        let stats = try await withSender(rtx: false) { sender, peer in
            let frames = try await peer.received().frames
            let gone = SequenceNumber(UInt16(truncatingIfNeeded: frames[0].firstSequenceNumber)) - 5_000
            try await peer.send([.nack(GenericNACK(senderSSRC: peer.ssrc, mediaSSRC: sender.ssrc, lost: [gone]))])
            try await waitUntil(sender) { $0.nackIgnoredNotInHistory == 1 }
        }
        #expect(stats.retransmittedPacketsSent == 0)
    }

    /// Regression (found by the network benchmark): with NACK off the pacer still finds its packets (they live in the
    /// history); every frame reaches the peer and NACKs are ignored, not answered.
    @Test func withoutNACKThePacedStreamFlowsAndNACKsGoUnanswered() async throws {
        var configuration = SenderLoopbackTests.configuration(peerPort: 0)
        let peer = try await LoopbackPeer(security: configuration.security)
        configuration.peerPort = peer.port
        configuration.nack = false
        let sender = try await H264Sender(configuration: configuration)
        let pump = FramePump(source: try PatternSource(width: 320, height: 240), sender: sender, pacing: .realTime, frameLimit: 20)
        _ = try await pump.run()
        try await peer.waitUntil { $0.frames.count >= 19 }
        let frames = try await peer.received().frames
        let wanted = SequenceNumber(UInt16(truncatingIfNeeded: frames[5].firstSequenceNumber))
        try await peer.send([.nack(GenericNACK(senderSSRC: peer.ssrc, mediaSSRC: sender.ssrc, lost: [wanted]))])
        try await waitUntil(sender) { $0.nackCount == 1 }
        let stats = try await sender.finish()
        await peer.close()
        #expect(stats.framesSent + stats.framesSkipped == 20)
        #expect(stats.pacerPacketsDropped == 0)
        #expect(stats.retransmittedPacketsSent == 0)
    }

    /// The first Sender Report leaves with the first frame, not one report interval (here 10 s) later: the receiver's
    /// reports, and the NACKs they ride with, carry LSR/DLSR from the start, so the RTT that guards resends is known
    /// within the first RTT.
    @Test func theFirstSenderReportGoesWithTheFirstFrame() async throws {
        var configuration = SenderLoopbackTests.configuration(peerPort: 0)
        configuration.reportInterval = .seconds(10)
        let peer = try await LoopbackPeer(security: configuration.security)
        configuration.peerPort = peer.port
        let sender = try await H264Sender(configuration: configuration)
        let pattern = try TestPattern(width: 320, height: 240)
        try sender.send(captureTime: .now) { pattern.render(frameIndex: 0, into: &$0) }
        try await peer.waitUntil(seconds: 3, "a Sender Report") { record in
            record.rtcp.contains { if case .senderReport = $0 { true } else { false } }
        }
        _ = try await sender.finish()
        await peer.close()
    }
}
