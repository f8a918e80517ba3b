import DTLS
import H264
import MediaTime
import RTP
import SRTP
import STUN
import Testing
@testable import WebRTC

/// A whole WHEP join in memory: a Chromium-like offer, our answer, then a "browser" (full ICE, DTLS client) and our
/// server (ICE-lite, DTLS server) exchanging datagrams until SRTP flows. Real OpenSSL and libsrtp; no sockets.
@Suite(.serialized) struct PeerTransportTests {
    static let serverCertificate = try! DTLSCertificate.generate()
    static let browserCertificate = try! DTLSCertificate.generate()
    static let serverSocket = TransportAddress(ipString: "192.0.2.10", port: 8443)!
    static let browserSocket = TransportAddress(ipString: "192.168.1.23", port: 51623)!
    static let browserCredentials = try! ICECredentials(ufrag: "EsAw", password: "bP+XJMM09aR8AiX1jdukzR6Y")
    static let t0 = MonotonicTime(nanoseconds: 10_000_000_000)

    struct Join {
        let server: PeerTransport
        let browser: PeerTransport
        let negotiated: NegotiatedVideo
    }

    /// Offer -> answer -> both transports, with the browser's offer announcing `offeredFingerprint`.
    static func join(offeredFingerprint: DTLSFingerprint = browserCertificate.fingerprint) throws -> Join {
        let offerText = ChromiumOffer.sdp.replacingOccurrences(
            of: ChromiumOffer.fingerprint, with: offeredFingerprint.sdpValue)
        let offer = try JSEPSessionDescription(parsing: offerText)
        let serverCredentials = ICECredentials.random()
        let local = LocalTransportDescription(
            credentials: serverCredentials, candidates: [.host(serverSocket)], iceLite: true,
            fingerprint: serverCertificate.fingerprint)
        let (answer, negotiated) = try VideoAnswerer.answer(offer, video: JSEPNegotiationTests.video(), transport: local)

        let server = PeerTransport(
            agent: .lite(ICELiteAgent(local: serverCredentials, remote: negotiated.remoteCredentials, now: t0)),
            dtls: try DTLSEndpoint(context: try DTLSContext(certificate: serverCertificate), role: negotiated.dtlsRole,
                                   remoteFingerprint: negotiated.remoteFingerprint))

        // The browser reads our answer.
        let parsedAnswer = try JSEPSessionDescription(parsing: answer.sdp)
        let video = parsedAnswer.media[1]
        let remote = try parsedAnswer.remoteTransport(for: video)
        #expect(parsedAnswer.isICELite)
        #expect(remote.setup == .passive)
        var agent = ICEFullAgent(
            local: browserCredentials, remote: remote.credentials,
            localCandidates: [.init(address: browserSocket, priority: 2_122_260_223)], now: t0)
        for candidate in remote.candidates { agent.addRemoteCandidate(candidate) }
        let browser = PeerTransport(
            agent: .full(agent),
            dtls: try DTLSEndpoint(context: try DTLSContext(certificate: browserCertificate), role: .client,
                                   remoteFingerprint: remote.fingerprint))
        return Join(server: server, browser: browser, negotiated: negotiated)
    }

    /// Delivers datagrams both ways and runs timers until `stop` or 10 s of simulated time.
    @discardableResult
    static func run(_ join: Join, from start: MonotonicTime = t0, debug: Bool = false, stop: () -> Bool) -> MonotonicTime {
        var now = start
        while now - start < .seconds(10), !stop() {
            join.browser.handleTimeout(now: now)
            join.server.handleTimeout(now: now)
            var moved = true
            while moved {
                moved = false
                while let transmit = join.browser.pollTransmit() {
                    moved = true
                    #expect(transmit.destination == serverSocket)
                    if debug { print("t=\(now - start) browser->server \(DatagramKind(classifying: transmit.bytes)) \(transmit.bytes.count)") }
                    _ = join.server.handleDatagram(transmit.bytes, from: browserSocket, to: nil, now: now)
                }
                while let transmit = join.server.pollTransmit() {
                    moved = true
                    #expect(transmit.destination == browserSocket)
                    if debug { print("t=\(now - start) server->browser \(DatagramKind(classifying: transmit.bytes)) \(transmit.bytes.count)") }
                    _ = join.browser.handleDatagram(transmit.bytes, from: serverSocket, to: browserSocket, now: now)
                }
            }
            if stop() { return now }
            guard let next = [join.browser.pollTimeout(now: now), join.server.pollTimeout(now: now)]
                .compactMap({ $0 }).min() else { break }
            now = max(now + .milliseconds(1), next)
        }
        return now
    }

    static func events(_ transport: PeerTransport) -> [PeerTransport.Event] {
        var events: [PeerTransport.Event] = []
        while let event = transport.pollEvent() { events.append(event) }
        return events
    }

    @Test func joinsAndCarriesSRTP() throws {
        let join = try Self.join()
        let end = Self.run(join) { join.server.keys != nil && join.browser.keys != nil }
        #expect(end - Self.t0 < .milliseconds(100))  // no losses: one pacing step or two
        let serverEvents = Self.events(join.server)
        let browserEvents = Self.events(join.browser)
        guard case .connected(nil, let viewer, let serverKeys) = serverEvents.first,
              case .connected(Self.browserSocket?, let sender, let browserKeys) = browserEvents.first
        else {
            Issue.record("not connected: \(serverEvents) \(browserEvents)")
            return
        }
        #expect(viewer == Self.browserSocket)
        #expect(sender == Self.serverSocket)
        #expect(serverKeys.suite == .aeadAES128GCM)
        #expect(serverKeys.localKey == browserKeys.remoteKey)

        // One SRTP packet from the server reaches the browser's demultiplexer and decrypts.
        let suite = serverKeys.suite
        let outbound = try SRTPSession(direction: .outbound, suite: suite, key: serverKeys.localKey)
        let inbound = try SRTPSession(direction: .inbound, suite: suite, key: browserKeys.remoteKey)
        let rtp: [UInt8] = [0x80, join.negotiated.format.payloadType, 0, 1, 0, 0, 0, 90, 0x11, 0x11, 0x22, 0x22]
            + Array(repeating: 0x5c, count: 200)
        var packet = rtp + Array(repeating: 0, count: SRTPSuite.maxRTPTrailer)
        let length = try outbound.protectRTP(&packet, length: rtp.count)
        let wire = Array(packet.prefix(length))
        #expect(join.browser.handleDatagram(wire, from: Self.serverSocket, to: Self.browserSocket, now: Self.t0) == .media(.rtp))
        var received = wire
        let plain = try inbound.unprotectRTP(&received, length: wire.count)
        #expect(Array(received.prefix(plain)) == rtp)
        // RTCP from the browser is classified as RTCP; media from elsewhere is dropped.
        #expect(join.server.handleDatagram([0x81, 201, 0, 1, 0, 0, 0, 1], from: Self.browserSocket, to: nil, now: Self.t0)
            == .media(.rtcp))
        // A lite agent has one socket: naming it does not change the answer.
        #expect(join.server.handleDatagram([0x81, 201, 0, 1, 0, 0, 0, 1], from: Self.browserSocket,
                                           to: Self.serverSocket, now: Self.t0) == .media(.rtcp))
        // A full agent's media must arrive on the selected local socket.
        #expect(join.browser.handleDatagram(wire, from: Self.serverSocket, to: TransportAddress(ipString: "192.168.1.23", port: 1),
                                            now: Self.t0) == .dropped)
        let stranger = TransportAddress(ipString: "198.51.100.1", port: 1)!
        #expect(join.server.handleDatagram(wire, from: stranger, to: nil, now: Self.t0) == .dropped)
        #expect(join.server.handleDatagram([22, 0xfe, 0xfd, 0, 0], from: stranger, to: nil, now: Self.t0) == .dropped)
        #expect(join.server.statistics.unexpectedMedia == 1)
        #expect(join.server.statistics.unauthenticatedDTLS == 1)
    }

    /// An offer whose fingerprint is not the browser's certificate: our server refuses the handshake and counts it.
    @Test func refusesWrongFingerprint() throws {
        let join = try Self.join(offeredFingerprint: try DTLSCertificate.generate().fingerprint)
        Self.run(join) { join.server.isClosed }
        #expect(join.server.isClosed)
        #expect(join.server.keys == nil)
        #expect(join.server.statistics.fingerprintMismatches == 1)
        let closed = Self.events(join.server).last
        guard case .closed(.dtlsFailed(.fingerprintMismatch(_, let received))) = closed else {
            Issue.record("unexpected \(String(describing: closed))")
            return
        }
        #expect(received == Self.browserCertificate.fingerprint)
    }

    /// After the join, the browser disappears: the server's consent expires 30 s after the last check.
    @Test func serverDropsSilentViewerAfterConsentTimeout() throws {
        let join = try Self.join()
        let connectedAt = Self.run(join) { join.server.keys != nil && join.browser.keys != nil }
        _ = Self.events(join.server)
        var now = connectedAt
        while let next = join.server.pollTimeout(now: now), next - connectedAt <= .seconds(31) {
            now = next
            join.server.handleTimeout(now: now)
        }
        #expect(Self.events(join.server) == [.closed(.consentExpired)])
        #expect(now - connectedAt >= .seconds(29))
        #expect(now - connectedAt <= .seconds(30))
    }
}
