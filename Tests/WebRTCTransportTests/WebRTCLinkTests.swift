import DTLS
import NIOCore
import NIOPosix
import RTP
import STUN
import Testing
import TestSupport
import Transport
import WebRTC
@testable import WebRTCTransport

/// Two real UDP transports on loopback, each driven by a `WebRTCLink`: an ICE-lite DTLS server (the WHEP side) and a
/// controlling full agent as DTLS client (the WHIP side). Real sockets, OpenSSL and libsrtp2.
@Suite struct WebRTCLinkTests {
    /// What one side saw, confined to the loop.
    final class Observed {
        var events: [WebRTCLink.Event] = []
        var rtp: [[UInt8]] = []
    }

    struct Pair {
        let server: UDPTransport
        let client: UDPTransport
        let serverLink: WebRTCLink
        let clientLink: WebRTCLink
        let serverSeen: Observed
        let clientSeen: Observed
    }

    static func rtpPacket(sequenceNumber: UInt16, payload: [UInt8]) -> [UInt8] {
        [0x80, 96, UInt8(sequenceNumber >> 8), UInt8(truncatingIfNeeded: sequenceNumber),
         0, 0, 0x10, 0, 0x12, 0x34, 0x56, 0x78] + payload
    }

    static func bindHeld(on loop: EventLoop) async throws -> NIOLoopBound<UDPTransport> {
        var configuration = TransportConfiguration(localHost: "127.0.0.1", localPort: 0, peer: nil, rtcpMux: true, security: nil)
        configuration.holdMediaUntilSecured = true
        return try await UDPTransport.bind(configuration: configuration, eventLoop: loop)
    }

    /// Binds both sides and creates (not starts) their links.
    static func makePair(loop: EventLoop, serverFingerprintSeenByClient: DTLSFingerprint? = nil) async throws -> NIOLoopBound<Pair> {
        let server = try await bindHeld(on: loop)
        let client = try await bindHeld(on: loop)
        return try await loop.submit {
            let serverCertificate = try DTLSCertificate.generate()
            let clientCertificate = try DTLSCertificate.generate()
            let serverCredentials = ICECredentials.random()
            let clientCredentials = ICECredentials.random()
            let now = WebRTCLink.monotonicNow()
            let serverAddress = TransportAddress(server.value.localAddress!)!
            let clientAddress = TransportAddress(client.value.localAddress!)!
            let serverPeer = PeerTransport(
                agent: .lite(ICELiteAgent(local: serverCredentials, remote: clientCredentials, now: now)),
                dtls: try DTLSEndpoint(context: try DTLSContext(certificate: serverCertificate), role: .server,
                                       remoteFingerprint: clientCertificate.fingerprint))
            var agent = ICEFullAgent(
                local: clientCredentials, remote: serverCredentials,
                localCandidates: [.init(address: clientAddress, priority: 2_122_260_223)], now: now)
            agent.addRemoteCandidate(.host(serverAddress))
            let clientPeer = PeerTransport(
                agent: .full(agent),
                dtls: try DTLSEndpoint(context: try DTLSContext(certificate: clientCertificate), role: .client,
                                       remoteFingerprint: serverFingerprintSeenByClient ?? serverCertificate.fingerprint))
            let serverSeen = Observed()
            let clientSeen = Observed()
            let serverLink = WebRTCLink(transport: server.value, peer: serverPeer, allowRepeatTransmission: false) {
                serverSeen.events.append($0)
            }
            let clientLink = WebRTCLink(
                transport: client.value, peer: clientPeer, allowRepeatTransmission: false, local: clientAddress
            ) {
                clientSeen.events.append($0)
            }
            server.value.onRTP = { bytes, _ in serverSeen.rtp.append([UInt8](bytes)) }
            client.value.onRTP = { bytes, _ in clientSeen.rtp.append([UInt8](bytes)) }
            return NIOLoopBound(
                Pair(server: server.value, client: client.value, serverLink: serverLink, clientLink: clientLink,
                     serverSeen: serverSeen, clientSeen: clientSeen),
                eventLoop: loop)
        }.get()
    }

    /// Polls `condition` on the loop every 10 ms for up to `seconds`.
    static func waitFor(_ loop: EventLoop, seconds: Int = 10, _ condition: @escaping @Sendable () -> Bool) async throws -> Bool {
        try await Poll.until(seconds: Double(seconds)) { try await loop.submit(condition).get() }
    }

    static func isConnected(_ seen: Observed) -> Bool {
        seen.events.contains { if case .connected = $0 { true } else { false } }
    }

    @Test func mediaIsHeldUntilDTLSKeysThenFlowsBothWaysAsSRTP() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let pair = try await Self.makePair(loop: loop)
        // Before the handshake nothing leaves in the clear.
        let held = try await loop.submit {
            let packet = Self.rtpPacket(sequenceNumber: 1, payload: [1, 2, 3])
            try packet.withUnsafeBytes { try pair.value.client.queueRTP($0) }
            pair.value.client.flush()
            return (pair.value.client.counters.heldBeforeSecured, pair.value.client.counters.rtpPacketsSent)
        }.get()
        #expect(held == (1, 0))

        try await loop.submit {
            pair.value.serverLink.start()
            pair.value.clientLink.start()
        }.get()
        let connected = try await Self.waitFor(loop) {
            Self.isConnected(pair.value.serverSeen) && Self.isConnected(pair.value.clientSeen)
        }
        #expect(connected, "ICE + DTLS did not connect over loopback within 10 s")

        let payload: [UInt8] = Array(0..<200)
        try await loop.submit {
            #expect(pair.value.client.isSecured && pair.value.server.isSecured)
            for sequenceNumber in UInt16(2)...11 {
                try Self.rtpPacket(sequenceNumber: sequenceNumber, payload: payload).withUnsafeBytes {
                    try pair.value.client.queueRTP($0)
                }
            }
            pair.value.client.flush()
            try Self.rtpPacket(sequenceNumber: 100, payload: payload).withUnsafeBytes { try pair.value.server.queueRTP($0) }
            pair.value.server.flush()
        }.get()
        let delivered = try await Self.waitFor(loop) {
            pair.value.serverSeen.rtp.count == 10 && pair.value.clientSeen.rtp.count == 1
        }
        #expect(delivered)
        let (serverRTP, clientRTP, bytesSent) = try await loop.submit {
            (pair.value.serverSeen.rtp, pair.value.clientSeen.rtp, pair.value.client.counters.rtpBytesSent)
        }.get()
        #expect(serverRTP.first == Self.rtpPacket(sequenceNumber: 2, payload: payload))
        #expect(clientRTP.first == Self.rtpPacket(sequenceNumber: 100, payload: payload))
        // Protected on the wire: each packet carries an SRTP tag beyond its 212 plain bytes.
        #expect(bytesSent > 10 * 212)

        try await loop.submit {
            pair.value.clientLink.close()
            pair.value.serverLink.close()
            pair.value.client.close()
            pair.value.server.close()
        }.get()
    }

    @Test func mediaFromAnAddressICEDidNotSelectIsDropped() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let pair = try await Self.makePair(loop: loop)
        try await loop.submit {
            pair.value.serverLink.start()
            pair.value.clientLink.start()
        }.get()
        #expect(try await Self.waitFor(loop) { Self.isConnected(pair.value.serverSeen) && Self.isConnected(pair.value.clientSeen) })

        // A stranger sends plain RTP to the server's socket.
        let serverAddress = try await loop.submit { pair.value.server.localAddress! }.get()
        let stranger = try await UDPTransport.bind(
            configuration: TransportConfiguration(localHost: "127.0.0.1", localPort: 0, peer: serverAddress, rtcpMux: true, security: nil),
            eventLoop: loop)
        try await loop.submit {
            try Self.rtpPacket(sequenceNumber: 7, payload: [9, 9, 9]).withUnsafeBytes { try stranger.value.queueRTP($0) }
            stranger.value.flush()
        }.get()
        #expect(try await Self.waitFor(loop, seconds: 5) { pair.value.serverLink.peer.statistics.unexpectedMedia == 1 })
        let received = try await loop.submit { pair.value.serverSeen.rtp.count }.get()
        #expect(received == 0)
        try await loop.submit {
            stranger.value.close()
            pair.value.client.close()
            pair.value.server.close()
        }.get()
    }

    @Test func aFingerprintMismatchClosesTheLinkAndNothingIsSent() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let impostor = try DTLSCertificate.generate()
        let pair = try await Self.makePair(loop: loop, serverFingerprintSeenByClient: impostor.fingerprint)
        try await loop.submit {
            pair.value.serverLink.start()
            pair.value.clientLink.start()
        }.get()
        let closed = try await Self.waitFor(loop) {
            pair.value.clientSeen.events.contains { if case .closed(.dtlsFailed) = $0 { true } else { false } }
        }
        #expect(closed, "the client must refuse the server's certificate")
        let state = try await loop.submit {
            (pair.value.client.isSecured, pair.value.clientLink.peer.statistics.fingerprintMismatches)
        }.get()
        #expect(state == (false, 1))
        try await loop.submit {
            pair.value.client.close()
            pair.value.server.close()
        }.get()
    }

    @Test func addressesConvertBothWays() throws {
        let v4 = TransportAddress(ipString: "192.0.2.10", port: 8443)!
        #expect(TransportAddress(SocketAddress(v4)) == v4)
        let v6 = TransportAddress(ipString: "2001:db8::1", port: 5004)!
        #expect(TransportAddress(SocketAddress(v6)) == v6)
        #expect(try SocketAddress(v6) == SocketAddress(ipAddress: "2001:db8::1", port: 5004))
    }
}
