import DTLS
import MediaTime
import RTP
import SRTP
import STUN
import Testing
import TURN
@testable import WebRTC

/// A full agent (a WHIP publisher) whose only working path is a TURN relay, against an ICE-lite peer, in memory:
/// direct datagrams are dropped (a firewall), the relay is `SimulatedTURNServer`. ICE selects the relayed pair, a
/// channel is bound before `.connected`, media goes as ChannelData on `mediaRoute`, and the peer's SRTP comes back
/// as `.relayedMedia` with where the packet lies. Real OpenSSL and libsrtp; no sockets.
@Suite(.serialized) struct PeerTransportRelayTests {
    static let clientHost = TransportAddress(ipString: "10.0.0.2", port: 40_000)!
    static let turnAddress = TransportAddress(ipString: "192.0.2.2", port: 3478)!
    static let relayed = TransportAddress(ipString: "192.0.2.2", port: 50_001)!
    static let peerSocket = TransportAddress(ipString: "203.0.113.7", port: 8443)!
    static let credential = LongTermCredential(username: "robot", password: "s3cret")
    static let t0 = MonotonicTime(nanoseconds: 10_000_000_000)

    final class Network {
        let client: PeerTransport
        let peer: PeerTransport
        var turn: SimulatedTURNServer
        var directDropped = 0
        var now: MonotonicTime

        init(client: PeerTransport, peer: PeerTransport, turn: SimulatedTURNServer, now: MonotonicTime) {
            self.client = client
            self.peer = peer
            self.turn = turn
            self.now = now
        }

        /// Delivers datagrams and runs timers until `stop`, or 10 s of simulated time.
        func run(until stop: () -> Bool) {
            let start = now
            while now - start < .seconds(10), !stop() {
                client.handleTimeout(now: now)
                peer.handleTimeout(now: now)
                var moved = true
                while moved {
                    moved = false
                    while let transmit = client.pollTransmit() {
                        moved = true
                        guard transmit.destination == turnAddress else {
                            directDropped += 1
                            continue
                        }
                        for output in turn.handle(transmit.bytes) {
                            switch output {
                            case .toClient(let bytes):
                                _ = client.handleDatagram(bytes, from: turnAddress, to: clientHost, now: now)
                            case .toPeer(let destination, let bytes):
                                #expect(destination == peerSocket)
                                _ = peer.handleDatagram(bytes, from: relayed, to: nil, now: now)
                            }
                        }
                    }
                    while let transmit = peer.pollTransmit() {
                        moved = true
                        guard transmit.destination == relayed, let bytes = turn.fromPeer(transmit.bytes, peer: peerSocket)
                        else {
                            directDropped += 1
                            continue
                        }
                        _ = client.handleDatagram(bytes, from: turnAddress, to: clientHost, now: now)
                    }
                }
                if stop() { return }
                guard let next = [client.pollTimeout(now: now), peer.pollTimeout(now: now)].compactMap({ $0 }).min()
                else { return }
                now = max(now + .milliseconds(1), next)
            }
        }
    }

    /// The client gathers its relayed candidate first (as the publisher does before its offer), then ICE and DTLS
    /// run with the peer reachable only through the relay.
    static func network() throws -> Network {
        var turn = SimulatedTURNServer(address: turnAddress, relayed: relayed, mapped: clientHost, credential: credential)
        var generator = SplitMix64(seed: 3)
        var gatherer = ICEGatherer(base: clientHost, hostAddresses: [clientHost], using: &generator)
        gatherer.add(ICEGatherer.Server(address: turnAddress, kind: .turn(credential), name: "turn:192.0.2.2:3478"), now: t0)
        while let transmit = gatherer.pollTransmit() {
            for case .toClient(let bytes) in turn.handle(transmit.bytes) {
                _ = gatherer.handle(bytes, from: turnAddress, now: t0)
            }
        }
        let relay = try #require(gatherer.candidates.first { $0.kind == .relay })

        let clientCredentials = ICECredentials.random()
        let peerCredentials = ICECredentials.random()
        let clientCertificate = try DTLSCertificate.generate()
        let peerCertificate = try DTLSCertificate.generate()
        var agent = ICEFullAgent(
            local: clientCredentials, remote: peerCredentials,
            localCandidates: [
                .init(address: clientHost, priority: ICECandidate.host(clientHost).priority),
                .init(address: relayed, priority: relay.priority),
            ], now: t0)
        agent.addRemoteCandidate(.host(peerSocket))
        let client = PeerTransport(
            agent: .full(agent),
            dtls: try DTLSEndpoint(context: try DTLSContext(certificate: clientCertificate), role: .client,
                                   remoteFingerprint: peerCertificate.fingerprint),
            gatherer: gatherer)
        let peer = PeerTransport(
            agent: .lite(ICELiteAgent(local: peerCredentials, remote: clientCredentials, now: t0)),
            dtls: try DTLSEndpoint(context: try DTLSContext(certificate: peerCertificate), role: .server,
                                   remoteFingerprint: clientCertificate.fingerprint))
        return Network(client: client, peer: peer, turn: turn, now: t0)
    }

    @Test func connectsThroughTheRelayAndCarriesMediaAsChannelData() throws {
        let network = try Self.network()
        network.run { network.client.keys != nil && network.peer.keys != nil && network.client.mediaRoute != nil }
        var clientEvents: [PeerTransport.Event] = []
        var gathered: [ICECandidate] = []
        while let event = network.client.pollEvent() {
            if case .candidate(let candidate) = event { gathered.append(candidate) } else { clientEvents.append(event) }
        }
        // The relayed candidate, gathered inside the transport, is reported for trickle ICE.
        #expect(gathered.contains { $0.kind == .relay && $0.transportAddress == Self.relayed })
        guard case .connected(Self.relayed?, Self.peerSocket, let keys)? = clientEvents.first else {
            Issue.record("not connected through the relay: \(clientEvents)")
            return
        }
        #expect(network.directDropped > 0, "the host pair was tried")
        #expect(network.client.mediaRoute == PeerTransport.MediaRoute(destination: Self.turnAddress, channel: 0x4000))
        #expect(network.turn.requests.contains("ChannelBind 16384 \(Self.peerSocket)"))
        #expect(network.turn.requests.contains("CreatePermission 203.0.113.7"))
        #expect(network.peer.path?.remote == Self.relayed, "the peer sees the relayed address")

        // The peer's SRTP reaches the client inside ChannelData: `.relayedMedia` says where the packet lies.
        let peerKeys = try #require(network.peer.keys)
        let outbound = try SRTPSession(direction: .outbound, suite: peerKeys.suite, key: peerKeys.localKey)
        let rtp: [UInt8] = [0x80, 96, 0, 1, 0, 0, 0, 90, 0x11, 0x11, 0x22, 0x22] + Array(repeating: 0x5c, count: 100)
        var packet = rtp + Array(repeating: 0, count: SRTPSuite.maxRTPTrailer)
        let length = try outbound.protectRTP(&packet, length: rtp.count)
        let framed = try #require(network.turn.fromPeer(Array(packet.prefix(length)), peer: Self.peerSocket))
        #expect(network.client.handleDatagram(framed, from: Self.turnAddress, to: Self.clientHost, now: network.now)
            == .relayedMedia(.rtp, 4..<(4 + length)))
        let inbound = try SRTPSession(direction: .inbound, suite: keys.suite, key: keys.remoteKey)
        var received = Array(framed[4...])
        let plainLength = try inbound.unprotectRTP(&received, length: length)
        #expect(Array(received.prefix(plainLength)) == rtp)

        // The client's media on the route: ChannelData on the bound channel reaches the peer as SRTP from the relay.
        let clientOutbound = try SRTPSession(direction: .outbound, suite: keys.suite, key: keys.localKey)
        var mine = rtp + Array(repeating: 0, count: SRTPSuite.maxRTPTrailer)
        let mineLength = try clientOutbound.protectRTP(&mine, length: rtp.count)
        let channelData = try ChannelData.message(channel: 0x4000, payload: mine.prefix(mineLength), padded: false)
        guard case .toPeer(Self.peerSocket, let relayedBytes)? = network.turn.handle(channelData).first else {
            Issue.record("the server did not relay the ChannelData")
            return
        }
        #expect(network.peer.handleDatagram(relayedBytes, from: Self.relayed, to: nil, now: network.now) == .media(.rtp))

        // Releasing the relays sends the Refresh with LIFETIME 0.
        network.client.releaseRelays()
        let release = try #require(network.client.pollTransmit())
        #expect(release.destination == Self.turnAddress)
        _ = network.turn.handle(release.bytes)
        #expect(network.turn.released)
    }

    /// The relay's loss under the selected pair closes the transport with the reason; consent and refreshes keep a
    /// healthy relay alive meanwhile.
    @Test func aLostRelayClosesTheTransport() throws {
        let network = try Self.network()
        network.run { network.client.mediaRoute != nil && network.client.keys != nil }
        #expect(network.client.mediaRoute != nil)
        // The allocation's refresh goes unanswered: the server is gone.
        var now = network.now
        var closed: PeerTransport.CloseReason?
        for _ in 0..<10_000 where closed == nil {
            guard let next = network.client.pollTimeout(now: now) else { break }
            now = max(now + .milliseconds(1), next)
            network.client.handleTimeout(now: now)
            while network.client.pollTransmit() != nil {}
            while let event = network.client.pollEvent() {
                if case .closed(let reason) = event { closed = reason }
            }
        }
        // Consent (30 s without answers) ends it before the allocation's refresh (540 s) would.
        #expect(closed == .consentExpired)
    }
}
