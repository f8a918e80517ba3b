import Foundation
import Logging
import RTCH264
import ServiceLifecycle
import Testing
import TestSupport

/// The library's long-running parts as swift-service-lifecycle services: a graceful shutdown of their group ends the
/// stream as `finish()` does (the receiver sees the BYE), and a WHEP server and a control endpoint stop listening.
@Suite struct ServiceLifecycleTests {
    @Test(.timeLimit(.minutes(1)))
    func aGracefulShutdownFinishesTheSenderWithABYEAndClosesTheServers() async throws {
        let stream = try await LoopbackStream.start()
        let sender = stream.sender
        let control = try await ControlServer(host: "127.0.0.1", port: 0, token: nil, target: sender)
        let whep = try await WHEPServer(
            configuration: stream.configuration, options: WHEPServer.Options(host: "127.0.0.1", port: 0))
        let controlPort = control.localPort, whepPort = whep.localPort
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [.init(service: sender), .init(service: whep), .init(service: control)],
            logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        try await stream.push(15)
        await group.triggerGracefulShutdown()
        try await running.value
        let decoded = try await stream.received.value  // ends on the BYE the sender's run() sent
        let sent = try await sender.finish()  // idempotent: the final statistics again
        #expect(decoded.byeReceived)
        #expect(sent.framesSent >= 1)
        #expect(decoded.framesDecoded == sent.framesSent)
        #expect(whep.viewerCount == 0)
        #expect(!Self.accepts(port: controlPort), "the control endpoint still listens after the shutdown")
        #expect(!Self.accepts(port: whepPort), "the WHEP server still listens after the shutdown")
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    static func accepts(port: Int) -> Bool { (try? RawConnection(port: port)) != nil }
}
