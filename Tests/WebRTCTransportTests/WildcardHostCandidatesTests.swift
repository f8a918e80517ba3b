import DTLS
import NIOCore
import NIOPosix
import STUN
import Testing
import Transport
import WebRTC
@testable import WebRTCTransport

/// The WHIP client's socket: one wildcard UDP socket with a host candidate per local address, each datagram paired
/// by the address it arrived on (IP_PKTINFO). Real sockets on loopback (127.0.0.1 and 127.0.0.2 are both local on
/// Linux), an ICE-lite DTLS server on 127.0.0.1.
@Suite struct WildcardHostCandidatesTests {
    @Test func checksArePairedByTheAddressTheyArrivedOn() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        var serverConfiguration = TransportConfiguration(
            localHost: "127.0.0.1", localPort: 0, peer: nil, rtcpMux: true, security: nil)
        serverConfiguration.holdMediaUntilSecured = true
        let server = try await UDPTransport.bind(configuration: serverConfiguration, eventLoop: loop)
        var clientConfiguration = TransportConfiguration(
            localHost: "0.0.0.0", localPort: 0, peer: nil, rtcpMux: true, security: nil)
        clientConfiguration.holdMediaUntilSecured = true
        clientConfiguration.receivePacketInfo = true
        let client = try await UDPTransport.bind(configuration: clientConfiguration, eventLoop: loop)

        let links = try await loop.submit {
            let serverCertificate = try DTLSCertificate.generate()
            let clientCertificate = try DTLSCertificate.generate()
            let serverCredentials = ICECredentials.random()
            let clientCredentials = ICECredentials.random()
            let now = WebRTCLink.monotonicNow()
            let serverAddress = TransportAddress(server.value.localAddress!)!
            let port = UInt16(client.value.localPort)
            // 127.0.0.2 first and preferred: the kernel sends to 127.0.0.1 from 127.0.0.1, so only the second pair
            // can succeed, and only if the answer's destination is read from the datagram.
            let preferred = TransportAddress(ipString: "127.0.0.2", port: port)!
            let routed = TransportAddress(ipString: "127.0.0.1", port: port)!
            var agent = ICEFullAgent(
                local: clientCredentials, remote: serverCredentials,
                localCandidates: [.init(address: preferred, priority: 2_122_260_223),
                                  .init(address: routed, priority: 2_122_260_222)], now: now)
            agent.addRemoteCandidate(.host(serverAddress))
            let serverLink = WebRTCLink(
                transport: server.value,
                peer: PeerTransport(
                    agent: .lite(ICELiteAgent(local: serverCredentials, remote: clientCredentials, now: now)),
                    dtls: try DTLSEndpoint(context: try DTLSContext(certificate: serverCertificate), role: .server,
                                           remoteFingerprint: clientCertificate.fingerprint)),
                allowRepeatTransmission: false) { _ in }
            let clientLink = WebRTCLink(
                transport: client.value,
                peer: PeerTransport(
                    agent: .full(agent),
                    dtls: try DTLSEndpoint(context: try DTLSContext(certificate: clientCertificate), role: .client,
                                           remoteFingerprint: serverCertificate.fingerprint)),
                allowRepeatTransmission: false, local: preferred) { _ in }
            serverLink.start()
            clientLink.start()
            return NIOLoopBound((serverLink, clientLink, routed, preferred), eventLoop: loop)
        }.get()

        var connected = false
        for _ in 0..<500 where !connected {
            connected = try await loop.submit { links.value.1.peer.keys != nil && links.value.1.peer.path != nil }.get()
            if !connected { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(connected, "ICE and DTLS did not connect within 5 s")
        let selected: TransportAddress? = try await loop.submit { links.value.1.peer.path?.local }.get()
        let pairStates: [String] = try await loop.submit { () -> [String] in
            guard case .full(let agent) = links.value.1.peer.agent else { return [] }
            return agent.pairs.map { pair -> String in "\(pair.local) \(pair.state)" }
        }.get()
        let outside: Bool = try await loop.submit { client.value.datagramDestination == nil }.get()
        let (routed, preferred) = try await loop.submit { (links.value.2, links.value.3) }.get()
        #expect(selected == routed)
        #expect(pairStates.contains("\(routed) succeeded"), "\(pairStates)")
        #expect(!pairStates.contains("\(preferred) succeeded"), "\(pairStates)")
        #expect(outside)  // only set while a datagram is being intercepted
        try await loop.submit {
            links.value.0.close()
            links.value.1.close()
            server.value.close()
            client.value.close()
        }.get()
    }
}
