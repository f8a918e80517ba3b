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

/// Issue 12, item 6: our receiver's transport-wide feedback and the delay-based estimate it feeds, over real loopback
/// UDP sockets (the numbering itself is checked on the session, `TransportWideSequenceSessionTests`).
@Suite(.serialized) struct TransportWideCCLoopbackTests {
    static let extensionID: UInt8 = 5

    /// Our receiver reports arrivals in transport-wide feedback; the sender reads it and keeps a delay-based estimate
    /// next to the loss-based one, and the congestion estimate is the lower of them. Whether the detector sees an
    /// overuse here depends on how loaded the machine is (a CI run once saw one on loopback), so that verdict is
    /// checked on simulated queues instead (`TrendlineEstimatorTests.verdicts`, `DelayBasedBandwidthEstimatorTests`).
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
        // Frames flow until ten feedback packets came back: feedback follows packets, so a fixed number of frames
        // could end before them on a loaded machine.
        let pump = FramePump(source: try PatternSource(width: 320, height: 240), sender: sender, pacing: .realTime, frameLimit: 900)
        async let pumped = pump.run()
        try await waitUntil(sender) { $0.transportFeedbackReceived >= 10 }
        pump.stop()
        _ = try await pumped
        let sent = try await sender.finish()
        let stats = try await received
        #expect(stats.framesDecoded == sent.framesSent, "\(stats)")
        #expect(stats.transportFeedbackSent >= 10)
        #expect(sent.transportFeedbackReceived >= 10)
        #expect(sent.rtcpMalformed == 0)
        let delay = try #require(sent.delayBasedEstimate)
        #expect(delay >= configuration.minimumBitrate)
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
