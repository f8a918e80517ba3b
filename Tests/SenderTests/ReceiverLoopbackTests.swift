import Codec
import H264
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RTP
import SRTP
import Testing
import Video
import Receiver
import TestSupport
import Transport
@testable import Sender

/// End-to-end tests of the receiver over real loopback UDP sockets.
@Suite(.serialized) struct ReceiverLoopbackTests {
    @Test(arguments: [(EncoderProfile.constrainedBaseline, SRTPSuite.aeadAES128GCM), (.high, .aesCM128HMACSHA1_80)])
    func senderToReceiverDecodesEveryFrameOverSRTP(profile: EncoderProfile, suite: SRTPSuite) async throws {
        let key = SRTPMasterKey.random(for: suite)
        let pattern = try TestPattern(width: 320, height: 240)
        let psnr = NIOLockedValueBox<[Double]>([])
        let first = NIOLockedValueBox<UInt32?>(nil)
        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiverConfiguration.security = .init(suite: suite, remoteKey: key)
        receiverConfiguration.reportInterval = .milliseconds(250)
        receiverConfiguration.onFrameDecoded = { picture, received in
            // Frame n carries exactly first + n x 3000 (30 fps).
            guard let base = first.withLockedValue({ $0 }) else { return }
            let index = Int((received.rtpTimestamp.rawValue &- base) / 3_000)
            guard let value = try? PSNR(reference: pattern.frame(index), distorted: picture) else { return }
            psnr.withLockedValue { $0.append(value.y) }
        }
        let receiver = try await H264Receiver(configuration: receiverConfiguration)
        var encoder = EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 500_000)
        encoder.profile = profile
        var configuration = SenderConfiguration(peerHost: "127.0.0.1", peerPort: receiver.localPort, encoder: encoder)
        configuration.localHost = "127.0.0.1"
        configuration.security = .init(suite: suite, key: key)
        configuration.reportInterval = .milliseconds(250)
        configuration.frameObserver = { _, timestamp in first.withLockedValue { $0 = $0 ?? timestamp.rawValue } }
        let sender = try await H264Sender(configuration: configuration)
        async let received = receiver.run()
        let pump = FramePump(source: try PatternSource(width: 320, height: 240), sender: sender, pacing: .realTime, frameLimit: 45)
        _ = try await pump.run()
        let sent = try await sender.finish()
        let stats = try await received  // ends on the sender's BYE
        #expect(sent.framesEncoded + sent.framesSkipped == 45)
        #expect(stats.framesDecoded == sent.framesSent, "\(stats)")
        #expect(stats.keyFramesDecoded == 1)
        #expect(stats.byeReceived)
        #expect(stats.packetsLost == 0)
        #expect(stats.srtpUnprotectFailures == 0)
        #expect(stats.senderReportsReceived >= 1)
        let values = psnr.withLockedValue { $0 }
        #expect(values.count == sent.framesSent)
        #expect((values.min() ?? 0) > 30)
        // The sender saw the receiver's reports: an RTT and a zero loss fraction.
        #expect(sent.fractionLost == 0)
        #expect(sent.roundTripTime != nil)
    }

    /// Issue 11: each side protects its RTCP with its own key; the sender hears the receiver's PLI.
    @Test func theReceiverProtectsItsRTCPWithItsOwnKeyAndThePLIIsAnswered() async throws {
        let senderKey = SRTPMasterKey.random(for: .default)
        let receiverKey = SRTPMasterKey.random(for: .default)
        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiverConfiguration.security = .init(remoteKey: senderKey, key: receiverKey)
        receiverConfiguration.reportInterval = .milliseconds(200)
        let receiver = try await H264Receiver(configuration: receiverConfiguration)
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: receiver.localPort,
            encoder: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 500_000))
        configuration.localHost = "127.0.0.1"
        configuration.security = .init(key: senderKey, remoteKey: receiverKey)
        let sender = try await H264Sender(configuration: configuration)
        async let received = receiver.run()
        // The pump runs until the keyframe was answered: on a loaded machine a fixed frame count could end first.
        let pump = FramePump(source: try PatternSource(width: 320, height: 240), sender: sender, pacing: .realTime, frameLimit: 900)
        async let pumped = pump.run()
        // The request goes out once the receiver knows its peer, that is once the first frame arrived.
        if await !Poll.until(seconds: 10, every: .milliseconds(5), { await receiver.statistics().framesDecoded >= 1 }) {
            Issue.record("no frame decoded within 10 s")
        }
        receiver.requestKeyframe()
        try await waitUntil(sender) { $0.pliCount >= 1 && $0.keyFramesEncoded >= 2 }
        pump.stop()
        _ = try await pumped
        let sent = try await sender.finish()
        let stats = try await received
        #expect(sent.pliCount >= 1)
        #expect(sent.srtcpUnprotectFailures == 0)
        #expect(sent.roundTripTime != nil)
        #expect(stats.srtpUnprotectFailures == 0)
        #expect(stats.framesDecoded == sent.framesSent)
    }

    @Test func lossMakesTheReceiverSendPLIsUntilAKeyframeArrives() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiverConfiguration.reorderWindow = 4
        receiverConfiguration.reportInterval = .milliseconds(200)
        // This sender never retransmits: a 300 ms budget (the wait before a round trip is known is 1 s by default).
        receiverConfiguration.jitterBufferMaximumWait = .milliseconds(300)
        let receiver = try await H264Receiver(configuration: receiverConfiguration)
        let plis = NIOLockedValueBox(0)
        let endpoint = try await DatagramEndpoint(
            host: "127.0.0.1", port: 0, eventLoop: loop,
            onDatagram: { _, buffer in
                let packets = (try? RTCPPacket.parseCompound([UInt8](buffer.readableBytesView))) ?? []
                plis.withLockedValue { $0 += packets.filter { if case .pli = $0 { return true } else { return false } }.count }
            }, onError: { _ in })
        async let stats = receiver.run()

        let sender = try LoopbackFrameSender(
            endpoint: endpoint, target: try SocketAddress(ipAddress: "127.0.0.1", port: receiver.localPort))
        for i in 0..<5 { try await loop.submit { try sender.send(frame: i) }.get() }
        try await loop.submit { try sender.send(frame: 5, dropFirstPacket: true) }.get()
        for i in 6..<12 { try await loop.submit { try sender.send(frame: i) }.get() }
        // No keyframe follows: the PLI must be repeated (report interval 200 ms here).
        try await Task.sleep(for: .milliseconds(700))
        let repeated = plis.withLockedValue { $0 }
        #expect(repeated >= 2, "PLIs sent while waiting for a keyframe: \(repeated)")
        try await loop.submit { try sender.send(frame: 12, force: true) }.get()
        try await Task.sleep(for: .milliseconds(500))
        let afterKeyframe = plis.withLockedValue { $0 }
        #expect(afterKeyframe <= repeated + 1, "PLIs continued after the keyframe: \(afterKeyframe)")
        receiver.stop()
        let final = try await stats
        #expect(final.packetsLost >= 1)
        #expect(final.keyFramesDecoded == 2)
        #expect(final.pliCount >= 2)
        await endpoint.close()
    }
}

/// Encodes the test pattern and sends it as plain RTP from a `DatagramEndpoint`, with the first packet of a frame
/// left out on request. @unchecked Sendable: used only on the endpoint's event loop (each call is a `loop.submit`,
/// one after the other), which serializes every access to the encoder and the packetizer.
private final class LoopbackFrameSender: @unchecked Sendable {
    private let encoder: H264Encoder
    private var packetizer: H264Packetizer
    private let pattern: TestPattern
    private let endpoint: DatagramEndpoint
    private let target: SocketAddress

    init(endpoint: DatagramEndpoint, target: SocketAddress) throws {
        encoder = try H264Encoder(configuration: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 500_000))
        packetizer = try H264Packetizer(
            ssrc: SSRC(77), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(100), srtpTrailerSize: 0)
        pattern = try TestPattern(width: 320, height: 240)
        self.endpoint = endpoint
        self.target = target
    }

    func send(frame index: Int, force: Bool = false, dropFirstPacket: Bool = false) throws {
        guard case .frame(let encoded, _) = try encoder.encode(.i420(pattern.frame(index)), timestamp: Int64(index * 3000), forceKeyframe: force)
        else { return }
        var first = true
        for packet in try packetizer.packetize(encoded, timestamp: RTPTimestamp(UInt32(index * 3000))) {
            defer { first = false }
            if first && dropFirstPacket { continue }
            endpoint.write(ByteBuffer(bytes: packet), to: target)
        }
        endpoint.flush()
    }
}
