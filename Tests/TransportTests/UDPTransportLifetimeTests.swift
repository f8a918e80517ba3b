import NIOCore
import NIOPosix
import Testing
import TestSupport
import Transport

/// When a transport's sockets go: dropped without `close()`, the transport is freed (nothing it handed its sockets
/// refers back to it strongly) and its socket closes; a bind that fails half-way leaves no socket open.
@Suite struct UDPTransportLifetimeTests {
    /// Where the test keeps its weak reference: written and read on the transport's loop only.
    final class WeakSlot: @unchecked Sendable {
        weak var transport: UDPTransport?
    }

    /// Issue 20, item 2: the socket callbacks held the transport strongly (transport -> endpoint -> callbacks ->
    /// transport), so no transport was ever freed, nor its sockets closed, once its owner let it go.
    @Test func aDroppedTransportIsFreedAndItsSocketClosed() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let slot = WeakSlot()
        var bound: NIOLoopBound<UDPTransport>? = try await UDPTransport.bind(
            configuration: TransportConfiguration(
                localHost: "127.0.0.1", localPort: 0, peer: nil, rtcpMux: true, security: nil),
            eventLoop: loop)
        let port = try await loop.submit { [bound] in
            slot.transport = bound?.value
            return bound?.value.localPort ?? 0
        }.get()
        #expect(port > 0)
        #expect(throws: RawUDPSocket.Failure.self, "the port is free while the transport holds it") {
            _ = try RawUDPSocket(port: port)
        }

        bound = nil
        #expect(await Poll.until(seconds: 5) { (try? await loop.submit { slot.transport == nil }.get()) == true },
                "the transport outlived its last owner")
        #expect(await Poll.until(seconds: 5) { (try? RawUDPSocket(port: port)) != nil },
                "the dropped transport's socket stayed open")
    }

    /// RTP and RTCP on two ports (no rtcp-mux): when the RTCP port cannot be bound, the RTP socket already bound is
    /// closed before the error is thrown.
    @Test func aFailedSecondBindLeavesNoSocketOpen() async throws {
        let port = TestPorts.reserve()
        let blocker = try RawUDPSocket(port: port + 1)
        let configuration = TransportConfiguration(
            localHost: "127.0.0.1", localPort: port, peer: nil, rtcpMux: false, security: nil)
        await #expect(throws: (any Error).self) {
            _ = try await UDPTransport.bind(configuration: configuration, eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        }
        #expect(await Poll.until(seconds: 5) { (try? RawUDPSocket(port: port)) != nil },
                "the RTP port \(port) stayed bound after the RTCP port \(blocker.port) failed")
    }

    /// Closing is for good: nothing is sent or counted after it, and closing twice is harmless.
    @Test func aClosedTransportSendsAndReceivesNothing() async throws {
        let remote = try RawUDPSocket()
        let transport = try await LoopbackTransport(
            LoopbackTransport.configuration(peer: try SocketAddress(ipAddress: "127.0.0.1", port: remote.port)))
        await transport.close()
        await transport.close()
        #expect(try await transport.send(LoopbackTransport.rtpPacket(sequenceNumber: 1)) == 0)
        try await transport.onLoop { try $0.sendRTCP([]) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(remote.receive() == nil)
        #expect(try await transport.counters() == TransportCounters())
    }
}
