import NIOCore
import NIOPosix
import Testing
import TestSupport
import Transport

/// NIO closes a datagram socket on a send error other than EMSGSIZE/EHOSTUNREACH. A broadcast destination without
/// SO_BROADCAST fails with EACCES on any Linux machine (127.255.255.255 is lo's broadcast address), as a firewall's
/// EPERM or a downed interface's ENETUNREACH would: the transport must bind its port again and keep sending.
@Suite struct SocketRestartTests {
    final class Received {
        var packets: [[UInt8]] = []
    }

    @Test func aSendErrorThatClosesTheSocketIsSurvivedOnTheSamePort() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let broadcast = try SocketAddress(ipAddress: "127.255.255.255", port: 9)
        let sender = try await UDPTransport.bind(
            configuration: TransportConfiguration(localHost: "127.0.0.1", localPort: 0, peer: broadcast, rtcpMux: true, security: nil),
            eventLoop: loop)
        let receiver = try await UDPTransport.bind(
            configuration: TransportConfiguration(localHost: "127.0.0.1", localPort: 0, peer: nil, rtcpMux: true, security: nil),
            eventLoop: loop)
        let received = try await loop.submit {
            let box = Received()
            receiver.value.onRTP = { bytes, _ in box.packets.append([UInt8](bytes)) }
            return NIOLoopBound(box, eventLoop: loop)
        }.get()
        let packet: [UInt8] = [0x80, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 7, 1, 2, 3, 4]
        let portBefore = try await loop.submit {
            try packet.withUnsafeBytes { try sender.value.queueRTP($0) }
            sender.value.flush()  // EACCES: NIO closes the socket
            return sender.value.localPort
        }.get()

        #expect(try await Poll.until(seconds: 2) { try await loop.submit { sender.value.counters.socketRestarts }.get() > 0 })
        let restarts = try await loop.submit { sender.value.counters.socketRestarts }.get()
        #expect(restarts == 1, "the socket was not bound again after the send error")

        // Same port, and it sends again.
        let (portAfter, receiverAddress) = try await loop.submit {
            (sender.value.localPort, receiver.value.localAddress!)
        }.get()
        #expect(portAfter == portBefore)
        try await loop.submit {
            sender.value.setPeer(receiverAddress)
            try packet.withUnsafeBytes { try sender.value.queueRTP($0) }
            sender.value.flush()
        }.get()
        #expect(try await Poll.until(seconds: 2) { try await loop.submit { received.value.packets.count }.get() > 0 })
        #expect(try await loop.submit { received.value.packets.count }.get() == 1)
        let first = try await loop.submit { received.value.packets.first }.get()
        #expect(first == packet)

        // Closing for good does not restart.
        try await loop.submit {
            sender.value.close()
            receiver.value.close()
        }.get()
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await loop.submit { sender.value.counters.socketRestarts }.get() == 1)
    }
}
