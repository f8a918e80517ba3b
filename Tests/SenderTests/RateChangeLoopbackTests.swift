import Codec
import Control
import RTP
import Testing
import Video
@testable import Sender

/// Issue 11 item 3: the target moves 3x up and 10x down through the control endpoint, REMB and TMMBR, every change is
/// applied, and the produced bitrate follows. On 9c36cd3 raising above 1.5x the starting rate failed with
/// cmInitParaError and left the encoder half changed; REMB/TMMBR failures were swallowed.
@Suite(.serialized) struct RateChangeLoopbackTests {
    @Test func theTargetFollowsTheControlEndpointREMBAndTMMBRAndTheStreamMeetsIt() async throws {
        let peer = try await LoopbackPeer()
        var configuration = SenderLoopbackTests.configuration(peerPort: peer.port, srtp: false)
        configuration.encoder = EncoderConfiguration(width: 1280, height: 720, frameRate: 30, targetBitrate: 1_500_000)
        let log = SentLog()
        configuration.frameObserver = log.observer
        // Rate control alone: the resolution stays (adaptation is ResolutionAdaptationTests' subject).
        configuration.degradationPreference = .maintainResolution
        let sender = try await H264Sender(configuration: configuration)
        let control = try await ControlServer(host: "127.0.0.1", port: 0, token: nil, sender: sender)
        let pattern = try TestPattern(width: 1280, height: 720)
        let origin = ContinuousClock.now
        var next = 0

        /// Sends 90 frames (3 s of media at 30 fps) and returns the bitrate of the last 60.
        func sendThreeSeconds() async throws -> Double {
            let before = log.all.count
            for _ in 0..<90 {
                await sender.waitForEncoder()
                let index = next
                try sender.send(captureTime: origin + .seconds(index) / 30) { pattern.render(frameIndex: index, into: &$0) }
                next += 1
            }
            await sender.waitForEncoder()
            let expected = next
            try await waitUntil(sender) { $0.framesEncoded + $0.framesSkipped >= expected }
            let sent = log.all.dropFirst(before)
            let bits = sent.suffix(60).reduce(0) { $0 + 8 * $1.size }
            return Double(bits) / 2
        }

        var results: [(String, Int, Double)] = []
        results.append(("start", 1_500_000, try await sendThreeSeconds()))

        let raised = try await ControlClient.send(.setBitrate(4_500_000), host: "127.0.0.1", port: control.localPort)
        #expect(raised.status == 200, "\(raised.body)")
        #expect(await sender.statistics().targetBitrate == 4_500_000)
        results.append(("control 3x up", 4_500_000, try await sendThreeSeconds()))

        try await peer.send([.remb(ReceiverEstimatedMaximumBitrate(senderSSRC: peer.ssrc, bitrate: 450_000, ssrcs: [sender.ssrc]))])
        try await waitUntil(sender) { $0.targetBitrate == 450_000 }
        results.append(("REMB 10x down", 450_000, try await sendThreeSeconds()))

        try await peer.send([.remb(ReceiverEstimatedMaximumBitrate(senderSSRC: peer.ssrc, bitrate: 100_000_000, ssrcs: [sender.ssrc]))])
        try await waitUntil(sender) { $0.targetBitrate == 4_500_000 }
        results.append(("REMB lifted, 10x up", 4_500_000, try await sendThreeSeconds()))

        try await peer.send([.tmmbr(TemporaryMaximumBitrateMessage(
            senderSSRC: peer.ssrc, entries: [TemporaryMaximumBitrateEntry(ssrc: sender.ssrc, bitrate: 450_000, overhead: 40)]))])
        try await waitUntil(sender) { $0.targetBitrate == 450_000 }
        results.append(("TMMBR 10x down", 450_000, try await sendThreeSeconds()))
        try await peer.waitUntil { $0.rtcp.contains { if case .tmmbn = $0 { true } else { false } } }

        let stats = try await sender.finish()
        await control.close()
        await peer.close()
        #expect(stats.bitrateChangeFailures == 0)
        for (name, target, achieved) in results {
            let ratio = achieved / Double(target)
            #expect(ratio > 0.8 && ratio < 1.2, "\(name): \(Int(achieved)) bit/s for a target of \(target) (\(ratio)x)")
        }
    }

    /// A frame rate outside OpenH264's range is refused with the codec's own message, and nothing changes.
    @Test(arguments: [Double.nan, .infinity, 0, 61])
    func anUnsupportedFrameRateIsRefused(rate: Double) async throws {
        let peer = try await LoopbackPeer()
        let sender = try await H264Sender(configuration: SenderLoopbackTests.configuration(peerPort: peer.port, srtp: false))
        let message = "frame rate \(rate) is outside the supported range 1.0...60.0"
        await #expect(throws: SenderError.invalidRate(message)) { try await sender.setFrameRate(rate) }
        _ = try await sender.finish()
        await peer.close()
    }
}
