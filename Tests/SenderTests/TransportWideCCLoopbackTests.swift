import Codec
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RTP
import Receiver
import SRTP
import Testing
import TestSupport
import Transport
import Video
@testable import Sender

/// Issue 12, item 6: the transport-wide sequence number on every packet as it goes on the wire, our receiver's
/// transport-wide feedback, and the delay-based estimate it feeds, over real loopback UDP sockets.
@Suite(.serialized) struct TransportWideCCLoopbackTests {
    static let extensionID: UInt8 = 5

    /// Every packet (media, then an RTX retransmission) carries the number; the numbers follow the wire order with
    /// no gap and no repeat, starting at 1.
    @Test func everyPacketCarriesTheNextTransportWideNumberInWireOrder() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let datagrams = NIOLockedValueBox<[[UInt8]]>([])
        let endpoint = try await DatagramEndpoint(
            host: "127.0.0.1", port: 0, eventLoop: loop,
            onDatagram: { _, buffer in datagrams.withLockedValue { $0.append([UInt8](buffer.readableBytesView)) } },
            onError: { _ in })
        var configuration = SenderLoopbackTests.configuration(peerPort: endpoint.localAddress?.port ?? 0, srtp: false)
        configuration.transportWideCCExtensionID = Self.extensionID
        configuration.rtx = .init(payloadType: PayloadType(97), ssrc: SSRC(0xAB_CDEF))
        let sender = try await H264Sender(configuration: configuration)
        let pump = FramePump(source: try PatternSource(width: 320, height: 240), sender: sender, pacing: .realTime, frameLimit: 15)
        _ = try await pump.run()
        try await waitUntil(sender) { $0.packetsSent > 0 && $0.pacerQueueDelay == 0 }
        try await Task.sleep(for: .milliseconds(100))
        // NACK the newest media packet: the answer goes out on the RTX stream with the next number. (The newest, so
        // that it is still in the history, 3 s at most, however long a loaded machine took to pump the frames.)
        let media = datagrams.withLockedValue { $0 }.filter { !RTCPPacket.isMultiplexedRTCP($0[...]) }
        #expect(media.count > 15)
        let newest = try RTPPacketView(parsing: try #require(media.last)).header.sequenceNumber
        let nack = try RTCPPacket.serialized([
            .receiverReport(ReceiverReport(ssrc: SSRC(42))),
            .nack(GenericNACK(senderSSRC: SSRC(42), mediaSSRC: sender.ssrc, lost: [newest])),
        ])
        let senderAddress = try SocketAddress(ipAddress: "127.0.0.1", port: sender.localPort)
        try await loop.submit {  // the endpoint's socket is confined to its loop
            endpoint.write(ByteBuffer(bytes: nack), to: senderAddress)
            endpoint.flush()
        }.get()
        try await waitUntil(sender) { $0.retransmittedPacketsSent == 1 }
        try await Task.sleep(for: .milliseconds(50))
        _ = try await sender.finish()
        await endpoint.close()

        let rtp = datagrams.withLockedValue { $0 }.filter { !RTCPPacket.isMultiplexedRTCP($0[...]) }
        var numbers: [UInt16] = []
        for packet in rtp {
            let number = try packet.withUnsafeBytes { try TransportSequenceNumber.read(from: $0, id: Self.extensionID) }
            #expect(number != nil, "a packet without the transport-wide sequence number")
            numbers.append(number?.rawValue ?? 0)
        }
        #expect(numbers == Array(1...UInt16(rtp.count)))
        let last = try RTPPacketView(parsing: rtp[rtp.count - 1])
        #expect(last.header.ssrc == SSRC(0xAB_CDEF), "the retransmission is the last packet, on the RTX SSRC")
        #expect(last.header.payloadType == PayloadType(97))
    }

    /// Our receiver reports arrivals in transport-wide feedback; the sender reads it and keeps a delay-based estimate
    /// next to the loss-based one. On a clean loopback every frame is decoded and the detector finds no overuse.
    @Test func theReceiversFeedbackDrivesTheDelayBasedEstimate() async throws {
        let key = SRTPMasterKey.random(for: .default)
        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiverConfiguration.security = .init(remoteKey: key)
        receiverConfiguration.reportInterval = .milliseconds(250)
        receiverConfiguration.transportWideCCExtensionID = Self.extensionID
        let receiver = try await H264Receiver(configuration: receiverConfiguration)
        var configuration = SenderLoopbackTests.configuration(peerPort: receiver.localPort)
        configuration.security = .init(key: key)
        configuration.reportInterval = .milliseconds(250)
        configuration.transportWideCCExtensionID = Self.extensionID
        let sender = try await H264Sender(configuration: configuration)
        async let received = receiver.run()
        let pump = FramePump(source: try PatternSource(width: 320, height: 240), sender: sender, pacing: .realTime, frameLimit: 45)
        _ = try await pump.run()
        try await waitUntil(sender) { $0.transportFeedbackReceived >= 10 }
        let sent = try await sender.finish()
        let stats = try await received
        #expect(stats.framesDecoded == sent.framesSent, "\(stats)")
        #expect(stats.transportFeedbackSent >= 10)
        #expect(sent.transportFeedbackReceived >= 10)
        #expect(sent.rtcpMalformed == 0)
        let delay = try #require(sent.delayBasedEstimate)
        #expect(delay >= configuration.minimumBitrate)
        #expect(sent.overuseEvents == 0)
        #expect(sent.congestionEstimate == min(delay, sent.lossBasedEstimate ?? .max, 600_000))
    }

    /// Without the extension nothing changes on the wire: no header extension, no feedback.
    @Test func withoutTheExtensionPacketsHaveNoHeaderExtension() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let datagrams = NIOLockedValueBox<[[UInt8]]>([])
        let endpoint = try await DatagramEndpoint(
            host: "127.0.0.1", port: 0, eventLoop: loop,
            onDatagram: { _, buffer in datagrams.withLockedValue { $0.append([UInt8](buffer.readableBytesView)) } },
            onError: { _ in })
        let configuration = SenderLoopbackTests.configuration(peerPort: endpoint.localAddress?.port ?? 0, srtp: false)
        let sender = try await H264Sender(configuration: configuration)
        let pump = FramePump(source: try PatternSource(width: 320, height: 240), sender: sender, pacing: .realTime, frameLimit: 5)
        _ = try await pump.run()
        let sent = try await sender.finish()
        // Every packet sent reaches the endpoint's loop before it closes (on a loaded machine it may lag behind).
        let rtpReceived: @Sendable () -> [[UInt8]] = {
            datagrams.withLockedValue { $0 }.filter { !RTCPPacket.isMultiplexedRTCP($0[...]) }
        }
        #expect(await Poll.until(seconds: 5) { rtpReceived().count >= sent.packetsSent }, "\(sent.packetsSent) sent")
        await endpoint.close()
        let rtp = rtpReceived()
        #expect(!rtp.isEmpty)
        for packet in rtp { #expect(try RTPPacketView(parsing: packet).header.headerExtension == nil) }
    }
}
