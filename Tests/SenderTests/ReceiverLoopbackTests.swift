import Codec
import H264
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RTP
import SRTP
import Testing
import Video
@testable import Sender

/// End-to-end tests of the receiver over real loopback UDP sockets.
@Suite(.serialized) struct ReceiverLoopbackTests {
    @Test(arguments: [(EncoderProfile.constrainedBaseline, SRTPSuite.aeadAES128GCM), (.high, .aesCM128HMACSHA1_80)])
    func senderToReceiverDecodesEveryFrameOverSRTP(profile: EncoderProfile, suite: SRTPSuite) async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let key = SRTPMasterKey.random(for: suite)
        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiverConfiguration.security = .init(suite: suite, key: key)
        receiverConfiguration.reportInterval = 250_000_000
        let receiver = try await H264Receiver(configuration: receiverConfiguration, eventLoop: loop)
        var encoder = EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 500_000)
        encoder.profile = profile
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: receiver.localAddress!.port!, encoder: encoder)
        configuration.localHost = "127.0.0.1"
        configuration.security = .init(suite: suite, key: key)
        configuration.frameLimit = 45
        configuration.reportInterval = 250_000_000
        let pattern = try TestPattern(width: 320, height: 240)
        let sender = try await H264Sender(configuration: configuration, source: try PatternSource(width: 320, height: 240), eventLoop: loop)
        let psnr = NIOLockedValueBox<[Double]>([])
        let indexByTimestamp = NIOLockedValueBox<[UInt32: Int]>([:])
        sender.onFrameSent = { frame, index in indexByTimestamp.withLockedValue { $0[sender.rtpTimestamp(of: frame)] = index } }
        receiver.onFrameDecoded = { picture, received in
            guard let index = indexByTimestamp.withLockedValue({ $0[received.rtpTimestamp.rawValue] }),
                  let value = try? PSNR(reference: pattern.frame(index), distorted: picture) else { return }
            psnr.withLockedValue { $0.append(value.y) }
        }
        async let received = receiver.run()
        let sent = try await sender.run()
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

    @Test func lossMakesTheReceiverSendPLIsUntilAKeyframeArrives() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiverConfiguration.reorderWindow = 4
        receiverConfiguration.reportInterval = 200_000_000
        let receiver = try await H264Receiver(configuration: receiverConfiguration, eventLoop: loop)
        let plis = NIOLockedValueBox(0)
        let endpoint = try await DatagramEndpoint(
            host: "127.0.0.1", port: 0, eventLoop: loop,
            onDatagram: { _, buffer in
                let packets = (try? RTCPPacket.parseCompound([UInt8](buffer.readableBytesView))) ?? []
                plis.withLockedValue { $0 += packets.filter { if case .pli = $0 { return true } else { return false } }.count }
            }, onError: { _ in })
        async let stats = receiver.run()

        let encoder = try H264Encoder(configuration: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 500_000))
        var packetizer = try H264Packetizer(ssrc: SSRC(77), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(100), srtpTrailerSize: 0)
        let pattern = try TestPattern(width: 320, height: 240)
        let target = receiver.localAddress!
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
        for i in 0..<5 { try await loop.submit { try send(frame: i) }.get() }
        try await loop.submit { try send(frame: 5, dropFirstPacket: true) }.get()
        for i in 6..<12 { try await loop.submit { try send(frame: i) }.get() }
        // No keyframe follows: the PLI must be repeated (report interval 200 ms here).
        try await Task.sleep(for: .milliseconds(700))
        let repeated = plis.withLockedValue { $0 }
        #expect(repeated >= 2, "PLIs sent while waiting for a keyframe: \(repeated)")
        try await loop.submit { try send(frame: 12, force: true) }.get()
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
