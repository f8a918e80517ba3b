import Codec
import NIOCore
import NIOPosix
import RTP
import SRTP
import Testing
import Video
@testable import Sender

/// End-to-end tests of the sender over real loopback UDP sockets, with real OpenH264 and libsrtp.
@Suite(.serialized) struct SenderLoopbackTests {
    static let key = try! SRTPMasterKey(keyAndSalt: (0..<30).map { UInt8($0) }, for: .default)

    /// Runs `body` against a live sender streaming 320x240 pattern frames in real time to a `LoopbackPeer`.
    func withSender(
        srtp: Bool = true, throttleMs: Int64 = 300, frames: Int = 60,
        _ body: @escaping @Sendable (H264Sender, LoopbackPeer, EventLoop) async throws -> Void
    ) async throws -> SenderStats {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let security = srtp ? SenderConfiguration.Security(key: Self.key) : nil
        let peer = try await LoopbackPeer(eventLoop: loop, security: security)
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: peer.port,
            encoder: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 600_000))
        configuration.localHost = "127.0.0.1"
        configuration.security = security
        configuration.keyframeThrottle = throttleMs * 1_000_000
        configuration.frameLimit = frames
        let sender = try await H264Sender(
            configuration: configuration, source: try PatternSource(width: 320, height: 240), eventLoop: loop)
        async let stats = sender.run()
        try await body(sender, peer, loop)
        let result = try await stats
        await peer.close()
        return result
    }

    /// Waits (polling the loop) until `condition` holds, or fails after `seconds`.
    func waitUntil(_ loop: EventLoop, seconds: Double = 5, _ condition: @escaping @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if try await loop.submit(condition).get() { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("condition not met within \(seconds) s")
    }

    @Test func pliMakesTheNextEncodedFrameAnIDR() async throws {
        let log = FrameLog()
        let stats = try await withSender(frames: 45) { sender, peer, loop in
            try await loop.submit { log.attach(to: sender) }.get()
            try await waitUntil(loop) { peer.frames.count >= 10 }
            try await loop.submit {
                try peer.send([.pli(PictureLossIndication(senderSSRC: SSRC(peer.ssrc), mediaSSRC: SSRC(sender.ssrc)))])
            }.get()
            try await waitUntil(loop) { sender.state.stats.pliCount == 1 }
        }
        #expect(stats.pliCount == 1)
        // The first frame encoded after the PLI was counted must be an IDR; only frame 0 and that one are keyframes.
        let afterPLI = try #require(log.entries.first { $0.pliCount == 1 })
        #expect(afterPLI.isKeyframe)
        #expect(log.entries.filter(\.isKeyframe).count == 2)
        #expect(stats.keyFramesEncoded == 2)
    }

    @Test func firWithARepeatedSequenceNumberIsIgnored() async throws {
        let stats = try await withSender(throttleMs: 0, frames: 40) { sender, peer, loop in
            try await waitUntil(loop) { peer.frames.count >= 5 }
            let fir = { (seq: UInt8) in
                RTCPPacket.fir(FullIntraRequest(senderSSRC: SSRC(peer.ssrc), entries: [FullIntraRequestEntry(ssrc: SSRC(sender.ssrc), sequenceNumber: seq)]))
            }
            for seq: UInt8 in [7, 7, 7, 8] {
                try await loop.submit { try peer.send([fir(seq)]) }.get()
                try await Task.sleep(for: .milliseconds(120))
            }
            try await waitUntil(loop) { sender.state.stats.firCount == 2 }
        }
        #expect(stats.firCount == 2)
        #expect(stats.keyFramesEncoded == 3)  // frame 0, FIR 7, FIR 8
    }

    @Test func pliFloodGivesKeyframesNoCloserThanTheThrottle() async throws {
        let log = FrameLog()
        let stats = try await withSender(throttleMs: 300, frames: 60) { sender, peer, loop in
            try await loop.submit { log.attach(to: sender) }.get()
            try await waitUntil(loop) { peer.frames.count >= 2 }
            for _ in 0..<80 {
                try await loop.submit {
                    try peer.send([.pli(PictureLossIndication(senderSSRC: SSRC(peer.ssrc), mediaSSRC: SSRC(sender.ssrc)))])
                }.get()
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let keyTimes = log.entries.filter(\.isKeyframe).map(\.uptime)
        #expect(stats.pliCount >= 40)
        #expect(keyTimes.count >= 4)
        for (a, b) in zip(keyTimes, keyTimes.dropFirst()) {
            #expect(b - a >= 300_000_000 - 1_000_000, "keyframes \((b - a) / 1_000_000) ms apart")
        }
    }

    @Test func rembAndTMMBRCapTheBitrateAndTMMBRIsAnswered() async throws {
        let stats = try await withSender(frames: 40) { sender, peer, loop in
            try await waitUntil(loop) { peer.frames.count >= 3 }
            try await loop.submit {
                try peer.send([.remb(ReceiverEstimatedMaximumBitrate(senderSSRC: SSRC(peer.ssrc), bitrate: 400_000, ssrcs: [SSRC(sender.ssrc)]))])
            }.get()
            try await waitUntil(loop) { sender.state.stats.targetBitrate == 400_000 }
            #expect(try await loop.submit { sender.state.encoder.configuration.targetBitrate }.get() == 400_000)
            #expect(try await loop.submit { sender.state.encoder.configuration.effectiveMaxBitrate }.get() == 600_000)
            try await loop.submit {
                try peer.send([.tmmbr(TemporaryMaximumBitrateMessage(
                    senderSSRC: SSRC(peer.ssrc),
                    entries: [TemporaryMaximumBitrateEntry(ssrc: SSRC(sender.ssrc), bitrate: 300_000, overhead: 40)]))])
            }.get()
            try await waitUntil(loop) { sender.state.stats.targetBitrate == 300_000 }
            try await waitUntil(loop) { peer.rtcp.contains { if case .tmmbn = $0 { return true } else { return false } } }
        }
        #expect(stats.tmmbrBitrate == 300_000)
        #expect(stats.rembBitrate == 400_000)
    }

    @Test func controlEndpointChangesTheBitrateAndRejectsBadValues() async throws {
        _ = try await withSender(frames: 30) { sender, peer, loop in
            let server = try await ControlServer(host: "127.0.0.1", port: 0, group: MultiThreadedEventLoopGroup.singleton) {
                sender.handle($0)
            }
            let port = server.localAddress!.port!
            let ok = try await ControlClient.send(.setBitrate(800_000), host: "127.0.0.1", port: port, group: MultiThreadedEventLoopGroup.singleton)
            #expect(ok.status == 200)
            #expect(try await loop.submit { sender.state.encoder.configuration.targetBitrate }.get() == 800_000)
            let bad = try await ControlClient.send(.setBitrate(50_000_000), host: "127.0.0.1", port: port, group: MultiThreadedEventLoopGroup.singleton)
            #expect(bad.status == 400)
            #expect(try await loop.submit { sender.state.encoder.configuration.targetBitrate }.get() == 800_000)
            let stats = try await ControlClient.send(.stats, host: "127.0.0.1", port: port, group: MultiThreadedEventLoopGroup.singleton)
            #expect(stats.body.contains("\"targetBitrate\":800000"))
            #expect(stats.body.contains("\"encoderImplementation\":\"OpenH264\""))
            await server.close()
        }
    }

    @Test func malformedRTCPAndStrangersAreCountedAndTheStreamGoesOn() async throws {
        let stats = try await withSender(frames: 45) { sender, peer, loop in
            try await waitUntil(loop) { peer.frames.count >= 3 }
            let stranger = try await LoopbackPeer(eventLoop: loop, host: "127.0.0.2")
            try await loop.submit {
                peer.sendRaw([0x80, 0xC9, 0x00, 0x10, 1, 2, 3])  // RR claiming 68 bytes, 7 sent (SRTCP fails first)
                peer.sendRaw([0xFF])
                // A stranger's datagram: sent to the sender's address from another IP.
                stranger.endpoint.write(ByteBuffer(bytes: [0x80, 0xC9, 0, 1, 0, 0, 0, 1]), to: sender.localAddress!)
                stranger.endpoint.flush()
            }.get()
            try await waitUntil(loop) { sender.state.stats.packetsFromStrangers == 1 }
            await stranger.close()
        }
        #expect(stats.srtcpUnprotectFailures + stats.rtcpMalformed == 2)
        #expect(stats.packetsFromStrangers == 1)
        #expect(stats.framesSent == 45)
    }

    @Test func plainRTPMalformedRTCPIsCounted() async throws {
        let stats = try await withSender(srtp: false, frames: 20) { sender, peer, loop in
            try await waitUntil(loop) { peer.frames.count >= 2 }
            try await loop.submit { peer.sendRaw([0x80, 0xC9, 0x00, 0x10, 1, 2, 3]) }.get()
            try await waitUntil(loop) { sender.state.stats.rtcpMalformed == 1 }
        }
        #expect(stats.rtcpMalformed == 1)
        #expect(stats.framesSent == 20)
    }
}

/// Records what the sender encoded, on its event loop.
final class FrameLog: @unchecked Sendable {
    struct Entry {
        var isKeyframe: Bool
        var pliCount: Int
        var uptime: Int64
    }
    private(set) var entries: [Entry] = []

    func attach(to sender: H264Sender) {
        sender.onFrameSent = { [unowned sender] frame, _ in
            self.entries.append(Entry(isKeyframe: frame.isKeyframe, pliCount: sender.state.stats.pliCount, uptime: H264Sender.uptime()))
        }
    }
}
