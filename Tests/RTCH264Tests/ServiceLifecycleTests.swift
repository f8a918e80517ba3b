import Foundation
import Logging
import RTCH264
import ServiceLifecycle
import Testing

/// The library's long-running parts as swift-service-lifecycle services: a graceful shutdown of their group ends the
/// stream as `finish()` does (the receiver sees the BYE), and a WHEP server and a control endpoint stop listening.
@Suite struct ServiceLifecycleTests {
    @Test(.timeLimit(.minutes(1)))
    func aGracefulShutdownFinishesTheSenderWithABYEAndClosesTheServers() async throws {
        let key = SRTPMasterKey.random(for: .default)
        var receiving = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiving.security = .init(remoteKey: key)
        let receiver = try await H264Receiver(configuration: receiving)
        async let received = receiver.run()
        var sending = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: receiver.localPort,
            encoder: EncoderConfiguration(width: 160, height: 96, frameRate: 30, targetBitrate: 200_000))
        sending.security = .init(key: key)
        let sender = try await H264Sender(configuration: sending)
        let control = try await ControlServer(host: "127.0.0.1", port: 0, token: nil, target: sender)
        let whep = try await WHEPServer(
            configuration: sending, options: WHEPServer.Options(host: "127.0.0.1", port: 0))
        let controlPort = control.localPort, whepPort = whep.localPort
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [.init(service: sender), .init(service: whep), .init(service: control)],
            logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        let frame = I420Frame(width: 160, height: 96)
        for _ in 0..<15 {
            try sender.send(.i420(frame), captureTime: .now)
            try await Task.sleep(for: .milliseconds(33))
        }
        await group.triggerGracefulShutdown()
        try await running.value
        let decoded = try await received  // ends on the BYE the sender's run() sent
        let sent = try await sender.finish()  // idempotent: the final statistics again
        #expect(decoded.byeReceived)
        #expect(sent.framesSent >= 1)
        #expect(decoded.framesDecoded == sent.framesSent)
        #expect(whep.viewerCount == 0)
        #expect(!Self.accepts(port: controlPort), "the control endpoint still listens after the shutdown")
        #expect(!Self.accepts(port: whepPort), "the WHEP server still listens after the shutdown")
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
