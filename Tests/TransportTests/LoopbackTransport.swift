import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif
import RTP
import TestSupport
import Transport

/// A `UDPTransport` bound on 127.0.0.1 for a test, with what it delivered: the test reads both through the
/// transport's event loop (everything about a transport happens there) and waits with `Poll`, never blocking.
final class LoopbackTransport: Sendable {
    /// What the transport handed up, kept on its loop.
    final class Delivered {
        var rtp: [[UInt8]] = []
        var rtcp: [[RTCPPacket]] = []
    }

    let loop: EventLoop
    let transport: NIOLoopBound<UDPTransport>
    private let delivered: NIOLoopBound<Delivered>
    /// The bound RTP port.
    let port: Int

    /// Binds a transport and records every RTP packet and RTCP compound it accepts.
    /// - Parameter configuration: the configuration; its local address is replaced by 127.0.0.1 (port kept).
    init(_ configuration: TransportConfiguration) async throws {
        var configuration = configuration
        configuration.localHost = "127.0.0.1"
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let transport = try await UDPTransport.bind(configuration: configuration, eventLoop: loop)
        (delivered, port) = try await loop.submit {
            let delivered = Delivered()
            transport.value.onRTP = { bytes, _ in delivered.rtp.append([UInt8](bytes)) }
            transport.value.onRTCP = { delivered.rtcp.append($0) }
            return (NIOLoopBound(delivered, eventLoop: loop), transport.value.localPort)
        }.get()
        self.loop = loop
        self.transport = transport
    }

    /// A configuration on an ephemeral port, RTCP muxed, no SRTP.
    static func configuration(peer: SocketAddress? = nil, security: TransportSecurity? = nil) -> TransportConfiguration {
        TransportConfiguration(localHost: "127.0.0.1", localPort: 0, peer: peer, rtcpMux: true, security: security)
    }

    /// The RTP address of this transport, as a peer sees it.
    var address: SocketAddress { get throws { try SocketAddress(ipAddress: "127.0.0.1", port: port) } }

    /// Runs `body` on the loop with the transport.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable (UDPTransport) throws -> T) async throws -> T {
        let transport = self.transport
        return try await loop.submit { try body(transport.value) }.get()
    }

    /// The counters now.
    func counters() async throws -> TransportCounters { try await onLoop { $0.counters } }

    /// The RTP packets delivered so far (unprotected).
    func rtp() async throws -> [[UInt8]] {
        let delivered = self.delivered
        return try await loop.submit { delivered.value.rtp }.get()
    }

    /// The RTCP compounds delivered so far.
    func rtcp() async throws -> [[RTCPPacket]] {
        let delivered = self.delivered
        return try await loop.submit { delivered.value.rtcp }.get()
    }

    /// Waits up to 5 s for the counters to satisfy `condition`.
    func waitForCounters(_ condition: @escaping @Sendable (TransportCounters) -> Bool) async throws -> Bool {
        try await Poll.until(seconds: 5) { condition(try await counters()) }
    }

    /// Queues `packet` and flushes it to the peer.
    /// - Returns: how many packets the flush handed to the socket.
    @discardableResult
    func send(_ packet: [UInt8]) async throws -> Int {
        try await onLoop { transport in
            try packet.withUnsafeBytes { try transport.queueRTP($0) }
            return transport.flush()
        }
    }

    func close() async {
        try? await onLoop { $0.close() }
    }

    /// A plain RTP packet (RFC 3550 section 5.1: V=2, PT 96) with `payload` behind the 12-byte header.
    static func rtpPacket(sequenceNumber: UInt16, ssrc: UInt32 = 0x1234_5678, payload: [UInt8] = [1, 2, 3, 4]) -> [UInt8] {
        [0x80, 96, UInt8(sequenceNumber >> 8), UInt8(truncatingIfNeeded: sequenceNumber), 0, 0, 0x0b, 0xb8,
         UInt8(ssrc >> 24), UInt8(truncatingIfNeeded: ssrc >> 16), UInt8(truncatingIfNeeded: ssrc >> 8),
         UInt8(truncatingIfNeeded: ssrc)] + payload
    }

    /// An empty Receiver Report (RFC 3550 section 6.4.2: PT 201, length 1, the SSRC), 8 bytes.
    static let receiverReport: [UInt8] = [0x80, 201, 0, 1, 0, 0, 0, 7]
}
