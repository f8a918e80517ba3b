import MediaTime
import RTP
import STUN
import Testing
@testable import WebRTC

@Suite struct ICEFullAgentTests {
    static let clientCredentials = try! ICECredentials(ufrag: "clnt", password: "clientpassword0123456789")
    static let serverCredentials = ICELiteAgentTests.local
    static let clientSocket = TransportAddress(ipString: "10.0.0.2", port: 40_000)!
    static let serverSocket = TransportAddress(ipString: "192.0.2.10", port: 8443)!
    static let t0 = MonotonicTime(nanoseconds: 1_000_000_000)

    static func client(tieBreaker: UInt64 = 99, role: ICEFullAgent.Role = .controlling,
                       local: ICECredentials = clientCredentials, remote: ICECredentials = serverCredentials,
                       socket: TransportAddress = clientSocket) -> ICEFullAgent {
        var generator = FixedGenerator(values: [tieBreaker, 7])
        return ICEFullAgent(
            local: local, remote: remote,
            localCandidates: [.init(address: socket, priority: ICECandidate.priority(kind: .host, localPreference: 65535))],
            role: role, now: t0, using: &generator)
    }

    /// Runs a full client against the lite server until `until` (or `maxSteps`), delivering datagrams unless
    /// `drop` says otherwise; returns the time reached.
    @discardableResult
    static func run(_ client: inout ICEFullAgent, _ server: inout ICELiteAgent, from start: MonotonicTime,
                    until end: MonotonicTime, drop: (ICEFullAgent.Transmit) -> Bool = { _ in false }) -> MonotonicTime {
        var now = start
        for _ in 0..<10_000 {
            client.handleTimeout(now: now)
            server.handleTimeout(now: now)
            while let transmit = client.pollTransmit() {
                if drop(transmit) { continue }
                #expect(transmit.destination == serverSocket)
                server.handleSTUN(transmit.bytes, from: transmit.source, now: now)
                while let answer = server.pollTransmit() {
                    client.handleSTUN(answer.bytes, from: serverSocket, to: answer.destination, now: now)
                }
            }
            let next = [client.pollTimeout(), server.pollTimeout()].compactMap { $0 }.min()
            guard let next, next <= end else { return now }
            now = max(next, now)
        }
        return now
    }

    @Test func nominatesThroughALiteServer() throws {
        var client = Self.client()
        var server = ICELiteAgent(local: Self.serverCredentials, remote: Self.clientCredentials, now: Self.t0)
        client.addRemoteCandidate(.host(Self.serverSocket))
        client.addRemoteCandidate(try ICECandidate(parsing: "2 1 udp 2122194687 abc.local 9 typ host"))  // skipped
        #expect(client.pairs.count == 1)
        Self.run(&client, &server, from: Self.t0, until: Self.t0 + .milliseconds(10))
        #expect(client.pollEvent() == .selectedPair(local: Self.clientSocket, remote: Self.serverSocket))
        #expect(server.pollEvent() == .selected(remote: Self.clientSocket))
        #expect(client.selected?.remote == Self.serverSocket)
        #expect(client.pairs[0].state == .succeeded)
        #expect(client.pairs[0].nominated)
        #expect(client.statistics.requestsSent == 2)  // the check, then the check with USE-CANDIDATE
        #expect(client.statistics.responsesReceived == 2)
        #expect(server.statistics.requestsAnswered == 2)
    }

    /// A local candidate that comes after the start (a relayed one whose allocation finished late) is paired with
    /// every remote candidate known, below the host pairs, and checked; once a pair is selected, none is added.
    @Test func aLateLocalCandidateIsPairedAndChecked() throws {
        var client = Self.client()
        client.addRemoteCandidate(.host(Self.serverSocket))
        let relayed = TransportAddress(ipString: "192.0.2.2", port: 50_001)!
        let relayPriority = ICECandidate.priority(kind: .relay, localPreference: 65_535)
        client.addLocalCandidate(.init(address: relayed, priority: relayPriority))
        client.addLocalCandidate(.init(address: relayed, priority: relayPriority))  // once
        #expect(client.pairs.map(\.local) == [Self.clientSocket, relayed])
        #expect(client.pairs[1].priority(controlling: true) < client.pairs[0].priority(controlling: true))
        // The host pair's check goes first, the relayed pair's one pacing step later.
        client.handleTimeout(now: Self.t0)
        client.handleTimeout(now: Self.t0 + .milliseconds(50))
        var sources: [TransportAddress] = []
        while let transmit = client.pollTransmit() { sources.append(transmit.source) }
        #expect(sources == [Self.clientSocket, relayed])

        var server = ICELiteAgent(local: Self.serverCredentials, remote: Self.clientCredentials, now: Self.t0)
        var connected = Self.client()
        connected.addRemoteCandidate(.host(Self.serverSocket))
        Self.run(&connected, &server, from: Self.t0, until: Self.t0 + .milliseconds(10))
        #expect(connected.selected != nil)
        connected.addLocalCandidate(.init(address: relayed, priority: relayPriority))
        #expect(connected.pairs.count == 1)
    }

    /// Consent: a request every 4-6 s keeps both sides alive; when the path dies, both expire after 30 s.
    @Test func keepsConsentAndExpiresWhenThePathDies() throws {
        var client = Self.client()
        var server = ICELiteAgent(local: Self.serverCredentials, remote: Self.clientCredentials, now: Self.t0)
        client.addRemoteCandidate(.host(Self.serverSocket))
        var now = Self.run(&client, &server, from: Self.t0, until: Self.t0 + .seconds(60))
        // Sixty seconds of consent checks: still connected on both sides.
        #expect(client.pollEvent() == .selectedPair(local: Self.clientSocket, remote: Self.serverSocket))
        #expect(server.pollEvent() == .selected(remote: Self.clientSocket))
        #expect(client.pollEvent() == nil)
        #expect(server.pollEvent() == nil)
        let consentRequests = client.statistics.requestsSent - 2
        #expect((10...15).contains(consentRequests))  // 60 s / 4-6 s
        // Now every datagram is lost: a consent request unanswered for 2.5 s reports the path disconnected, once; 30 s
        // after the last answer consent expires.
        let lost = now
        now = Self.run(&client, &server, from: now, until: now + .seconds(40)) { _ in true }
        #expect(client.pollEvent() == .disconnected(remote: Self.serverSocket))
        #expect(client.pollEvent() == .consentExpired(remote: Self.serverSocket))
        #expect(now >= lost + .seconds(24))
        #expect(server.pollEvent() == .consentExpired(remote: Self.clientSocket))
        #expect(client.isClosed)
        #expect(client.pollTimeout() == nil)
    }

    /// The first two transmissions are lost: the check is retransmitted after 500 ms, then 1 s, and succeeds.
    @Test func retransmitsWithDoublingRTO() throws {
        var client = Self.client()
        var server = ICELiteAgent(local: Self.serverCredentials, remote: Self.clientCredentials, now: Self.t0)
        client.addRemoteCandidate(.host(Self.serverSocket))
        var sendTimes: [MonotonicTime] = []
        var lost = 0
        var now = Self.t0
        for _ in 0..<20 {
            client.handleTimeout(now: now)
            while let transmit = client.pollTransmit() {
                sendTimes.append(now)
                if lost < 2 {
                    lost += 1
                    continue
                }
                server.handleSTUN(transmit.bytes, from: transmit.source, now: now)
                while let answer = server.pollTransmit() {
                    client.handleSTUN(answer.bytes, from: Self.serverSocket, to: answer.destination, now: now)
                }
            }
            guard let next = client.pollTimeout(), client.selected == nil else { break }
            now = next
        }
        #expect(client.selected != nil)
        #expect(sendTimes.count >= 4)
        #expect(sendTimes[1] - sendTimes[0] == .milliseconds(500))
        #expect(sendTimes[2] - sendTimes[1] == .milliseconds(1000))
    }

    @Test func failsWhenNothingAnswers() {
        var client = Self.client()
        client.addRemoteCandidate(.host(Self.serverSocket))
        var now = Self.t0
        var sent = 0
        while let next = client.pollTimeout() {
            now = next
            client.handleTimeout(now: now)
            while client.pollTransmit() != nil { sent += 1 }
        }
        #expect(sent == 7)  // Rc transmissions, then the pair fails
        #expect(client.pollEvent() == .failed)
        #expect(client.pairs[0].state == .failed)
        // 0.5 + 1 + 2 + 3 + 3 + 3 s between the 7 transmissions (RTO capped at 3 s), then 3 s for the last.
        #expect(now - Self.t0 == .milliseconds(15_500))
    }

    @Test func ignoresResponsesWithBadIntegrity() throws {
        var client = Self.client()
        client.addRemoteCandidate(.host(Self.serverSocket))
        client.handleTimeout(now: Self.t0)
        let polled = client.pollTransmit()
        let request = try STUNMessage(parsing: try #require(polled).bytes)
        #expect(request.username == "srvr:clnt")
        #expect(request.attribute(.iceControlling) == .iceControlling(tieBreaker: 99))
        #expect(request.hasValidIntegrity(key: Array(Self.serverCredentials.password.utf8)))
        let forged = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID,
                                 attributes: [.xorMappedAddress(Self.clientSocket)])
        client.handleSTUN(try forged.serialized(integrityKey: Array("wrongpassword0123456789x".utf8)),
                          from: Self.serverSocket, to: Self.clientSocket, now: Self.t0)
        #expect(client.statistics.integrityFailures == 1)
        #expect(client.pairs[0].state == .inProgress)
        // A response from another address than the check went to fails the pair (symmetry check).
        let genuine = try forged.serialized(integrityKey: Array(Self.serverCredentials.password.utf8))
        client.handleSTUN(genuine, from: TransportAddress(ipString: "192.0.2.99", port: 8443)!, to: Self.clientSocket,
                          now: Self.t0)
        #expect(client.pairs[0].state == .failed)
    }

    /// Two full agents that both start controlling: the smaller tie-breaker yields (RFC 8445 section 7.3.1.1), and
    /// the pair is nominated and selected on both sides, including through a peer-reflexive candidate.
    @Test func resolvesRoleConflictBetweenFullAgents() throws {
        let peerSocket = TransportAddress(ipString: "10.0.0.3", port: 50_000)!
        let peerCredentials = try ICECredentials(ufrag: "peer", password: "peerpassword0123456789ab")
        var a = Self.client(tieBreaker: 1000, remote: peerCredentials)
        var b = Self.client(tieBreaker: 5, local: peerCredentials, remote: Self.clientCredentials, socket: peerSocket)
        a.addRemoteCandidate(.host(peerSocket))
        // b learns of a only through a's checks (a peer-reflexive candidate).
        var now = Self.t0
        for _ in 0..<200 {
            a.handleTimeout(now: now)
            b.handleTimeout(now: now)
            var moved = true
            while moved {
                moved = false
                while let transmit = a.pollTransmit() {
                    moved = true
                    b.handleSTUN(transmit.bytes, from: transmit.source, to: transmit.destination, now: now)
                }
                while let transmit = b.pollTransmit() {
                    moved = true
                    a.handleSTUN(transmit.bytes, from: transmit.source, to: transmit.destination, now: now)
                }
            }
            if a.selected != nil, b.selected != nil { break }
            guard let next = [a.pollTimeout(), b.pollTimeout()].compactMap({ $0 }).min() else { break }
            now = max(now, next)
        }
        #expect(a.role == .controlling)
        #expect(b.role == .controlled)
        #expect(a.statistics.roleConflicts + b.statistics.roleConflicts >= 1)
        #expect(a.selected?.remote == peerSocket)
        #expect(a.isAuthenticated(peerSocket))
        #expect(b.isAuthenticated(Self.clientSocket))
        #expect(!b.isAuthenticated(TransportAddress(ipString: "10.0.0.9", port: 1)!))
        #expect(b.selected?.remote == Self.clientSocket)
        #expect(now - Self.t0 < .seconds(2))
    }

    /// An ICE restart after the client's address changed: new credentials on both sides, the checklist rebuilt from
    /// the new socket; media stays on the old pair until the new one is nominated (reported even when it is the same
    /// pair); no consent expires meanwhile; a restart that nominates nothing fails after the nomination timeout.
    @Test func restartsOntoANewAddressWithNewCredentials() throws {
        var client = Self.client()
        var server = ICELiteAgent(local: Self.serverCredentials, remote: Self.clientCredentials, now: Self.t0)
        client.addRemoteCandidate(.host(Self.serverSocket))
        var now = Self.run(&client, &server, from: Self.t0, until: Self.t0 + .seconds(5))
        #expect(client.pollEvent() == .selectedPair(local: Self.clientSocket, remote: Self.serverSocket))
        #expect(server.pollEvent() == .selected(remote: Self.clientSocket))
        // The old address dies: the next consent request goes unanswered.
        now = Self.run(&client, &server, from: now, until: now + .seconds(9)) { _ in true }
        #expect(client.pollEvent() == .disconnected(remote: Self.serverSocket))
        // Restart from the new address (the server restarts with the credentials our PATCH gave it).
        let moved = TransportAddress(ipString: "10.0.0.3", port: 40_000)!
        let clientNew = try ICECredentials(ufrag: "cln2", password: "clientpassword9876543210")
        let serverNew = ICELiteAgentRestartTests.newLocal
        server.restart(local: serverNew, remote: clientNew)
        client.restart(local: clientNew, remote: serverNew,
                       localCandidates: [.init(address: moved, priority: ICECandidate.priority(kind: .host, localPreference: 65535))],
                       now: now)
        #expect(client.isRestarting)
        #expect(client.selected?.local == Self.clientSocket)  // media stays until a new pair is nominated
        #expect(client.localCredentials == clientNew && client.statistics.restarts == 1)
        client.addRemoteCandidate(.host(Self.serverSocket))
        #expect(client.pairs.count == 1 && client.pairs[0].local == moved)
        let restartedAt = now
        now = Self.run(&client, &server, from: now, until: now + .milliseconds(10))
        #expect(client.pollEvent() == .selectedPair(local: moved, remote: Self.serverSocket))
        #expect(server.pollEvent() == .selected(remote: moved))
        #expect(!client.isRestarting)
        #expect(now - restartedAt < .milliseconds(10))
        // Consent goes on from the new address.
        now = Self.run(&client, &server, from: now, until: now + .seconds(60))
        #expect(client.pollEvent() == nil && !client.isClosed)

        // A second restart proving the same pair again reports it again.
        let third = try ICECredentials(ufrag: "cln3", password: "clientpassword1111111111")
        server.restart(local: Self.serverCredentials, remote: third)
        client.restart(local: third, remote: Self.serverCredentials, localCandidates: [.init(address: moved, priority: 1)], now: now)
        client.addRemoteCandidate(.host(Self.serverSocket))
        now = Self.run(&client, &server, from: now, until: now + .milliseconds(10))
        #expect(client.pollEvent() == .selectedPair(local: moved, remote: Self.serverSocket))

        // A restart nobody answers: no consent expiry while it runs, then failure at the nomination timeout.
        let fourth = try ICECredentials(ufrag: "cln4", password: "clientpassword2222222222")
        client.restart(local: fourth, remote: Self.serverCredentials, localCandidates: [.init(address: moved, priority: 1)], now: now)
        client.addRemoteCandidate(.host(Self.serverSocket))
        let start = now
        now = Self.run(&client, &server, from: now, until: now + .seconds(40)) { _ in true }
        #expect(client.pollEvent() == .failed)
        #expect(client.isClosed)
        #expect(now - start >= .seconds(30))
    }
}
