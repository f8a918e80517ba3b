import MediaTime
import RTP
import STUN
import Testing
@testable import WebRTC

@Suite struct ICELiteAgentTests {
    static let local = try! ICECredentials(ufrag: "srvr", password: "serverpassword0123456789")
    static let browser = try! ICECredentials(ufrag: "brws", password: "browserpassword012345678")
    static let source = TransportAddress(ipString: "192.0.2.7", port: 50_000)!
    static let t0 = MonotonicTime(nanoseconds: 1_000_000_000)

    /// A binding request as Chromium sends it (USERNAME, ICE-CONTROLLING, PRIORITY, optional USE-CANDIDATE).
    static func check(
        id: UInt64 = 1, username: String = "srvr:brws", password: String = "serverpassword0123456789",
        useCandidate: Bool = false, role: STUNAttribute = .iceControlling(tieBreaker: 42)
    ) -> [UInt8] {
        var attributes: [STUNAttribute] = [.username(username), role, .priority(0x6e7f_1eff)]
        if useCandidate { attributes.append(.useCandidate) }
        let message = STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(high: 7, low: id),
                                  attributes: attributes)
        return try! message.serialized(integrityKey: Array(password.utf8))
    }

    @Test func answersAuthenticatedRequestWithXorMappedAddress() throws {
        var agent = ICELiteAgent(local: Self.local, remote: Self.browser, now: Self.t0)
        agent.handleSTUN(Self.check(), from: Self.source, now: Self.t0)
        let polled = agent.pollTransmit()
        let transmit = try #require(polled)
        #expect(transmit.destination == Self.source)
        let response = try STUNMessage(parsing: transmit.bytes)  // checks FINGERPRINT
        #expect(response.type == .bindingSuccess)
        #expect(response.transactionID == STUNTransactionID(high: 7, low: 1))
        #expect(response.xorMappedAddress == Self.source)
        #expect(response.hasValidIntegrity(key: Array(Self.local.password.utf8)))
        #expect(agent.pollTransmit() == nil)
        #expect(agent.pollEvent() == nil)  // no USE-CANDIDATE yet
        #expect(agent.state == .waiting)
        #expect(agent.isAuthenticated(Self.source))
        #expect(agent.statistics.requestsAnswered == 1)
    }

    @Test func selectsOnUseCandidateAndMovesWithIt() throws {
        var agent = ICELiteAgent(local: Self.local, remote: Self.browser, now: Self.t0)
        agent.handleSTUN(Self.check(useCandidate: true), from: Self.source, now: Self.t0)
        #expect(agent.pollEvent() == .selected(remote: Self.source))
        #expect(agent.selectedRemote == Self.source)
        agent.handleSTUN(Self.check(id: 2, useCandidate: true), from: Self.source, now: Self.t0)
        #expect(agent.pollEvent() == nil)  // same pair: no new event
        let other = TransportAddress(ipString: "2001:db8::9", port: 40_000)!
        agent.handleSTUN(Self.check(id: 3, useCandidate: true), from: other, now: Self.t0)
        #expect(agent.pollEvent() == .selected(remote: other))
        _ = agent.pollTransmit()
        _ = agent.pollTransmit()
        let polled = agent.pollTransmit()
        let v6 = try STUNMessage(parsing: try #require(polled).bytes)
        #expect(v6.xorMappedAddress == other)
    }

    /// Bad credentials are ignored and counted: no response, no state.
    @Test func ignoresUnauthenticatedRequests() {
        var agent = ICELiteAgent(local: Self.local, remote: Self.browser, now: Self.t0)
        let bad: [[UInt8]] = [
            Self.check(password: "wrongpassword0123456789x", useCandidate: true),
            Self.check(username: "other:brws", useCandidate: true),
            Self.check(username: "srvr:evil", useCandidate: true),
            Self.check(username: "srvrbrws", useCandidate: true),
            try! STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(high: 1, low: 1),
                             attributes: [.username("srvr:brws"), .useCandidate]).serialized(),
        ]
        for datagram in bad { agent.handleSTUN(datagram, from: Self.source, now: Self.t0) }
        #expect(agent.statistics.integrityFailures == bad.count)
        #expect(agent.pollTransmit() == nil)
        #expect(agent.pollEvent() == nil)
        #expect(!agent.isAuthenticated(Self.source))
        agent.handleSTUN([0x00, 0x01, 0x02], from: Self.source, now: Self.t0)
        #expect(agent.statistics.malformed == 1)
    }

    @Test func answersRoleConflictWith487() throws {
        var agent = ICELiteAgent(local: Self.local, remote: Self.browser, now: Self.t0)
        agent.handleSTUN(Self.check(useCandidate: true, role: .iceControlled(tieBreaker: 1)), from: Self.source,
                         now: Self.t0)
        let polled = agent.pollTransmit()
        let response = try STUNMessage(parsing: try #require(polled).bytes)
        #expect(response.type == .bindingError)
        #expect(response.errorCode?.code == 487)
        #expect(response.hasValidIntegrity(key: Array(Self.local.password.utf8)))
        #expect(agent.pollEvent() == nil)
        #expect(agent.statistics.roleConflicts == 1)
    }

    @Test func consentExpiresAfterThirtySecondsOfSilence() {
        var agent = ICELiteAgent(local: Self.local, remote: Self.browser, now: Self.t0)
        agent.handleSTUN(Self.check(useCandidate: true), from: Self.source, now: Self.t0)
        _ = agent.pollEvent()
        // A consent check at +20 s moves the deadline to +50 s.
        let t20 = Self.t0 + .seconds(20)
        agent.handleSTUN(Self.check(id: 2), from: Self.source, now: t20)
        #expect(agent.pollTimeout() == t20 + .seconds(30))
        agent.handleTimeout(now: Self.t0 + .seconds(31))
        #expect(agent.pollEvent() == nil)
        #expect(agent.state == .connected(remote: Self.source))
        // Checks with a bad MAC do not refresh consent.
        agent.handleSTUN(Self.check(id: 3, password: "wrongpassword0123456789x"), from: Self.source,
                         now: t20 + .seconds(29))
        agent.handleTimeout(now: t20 + .seconds(30))
        #expect(agent.pollEvent() == .consentExpired(remote: Self.source))
        #expect(agent.state == .closed)
        #expect(agent.pollTimeout() == nil)
        // A closed agent answers nothing.
        agent.handleSTUN(Self.check(id: 4), from: Self.source, now: t20 + .seconds(31))
        _ = agent.pollTransmit()
        _ = agent.pollTransmit()
        #expect(agent.pollTransmit() == nil)
    }

    @Test func failsWithoutNomination() {
        var agent = ICELiteAgent(local: Self.local, remote: nil, now: Self.t0)
        #expect(agent.pollTimeout() == Self.t0 + .seconds(30))
        agent.handleTimeout(now: Self.t0 + .seconds(29))
        #expect(agent.pollEvent() == nil)
        agent.handleTimeout(now: Self.t0 + .seconds(30))
        #expect(agent.pollEvent() == .failed)
    }

    @Test func rejectsUnknownComprehensionRequiredAttributeWith420() throws {
        var agent = ICELiteAgent(local: Self.local, remote: Self.browser, now: Self.t0)
        let message = STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(high: 1, low: 9),
                                  attributes: [.username("srvr:brws"), .other(type: STUNAttributeType(rawValue: 0x0077), value: [])])
        agent.handleSTUN(try message.serialized(integrityKey: Array(Self.local.password.utf8)), from: Self.source,
                         now: Self.t0)
        let polled = agent.pollTransmit()
        let response = try STUNMessage(parsing: try #require(polled).bytes)
        #expect(response.errorCode?.code == 420)
        #expect(response.attribute(.unknownAttributes) == .unknownAttributes([STUNAttributeType(rawValue: 0x0077)]))
    }

    @Test func boundsRememberedAddresses() {
        var configuration = ICELiteAgent.Configuration()
        configuration.maxRemoteAddresses = 4
        var agent = ICELiteAgent(local: Self.local, remote: Self.browser, configuration: configuration, now: Self.t0)
        for port in 1...10 {
            agent.handleSTUN(Self.check(id: UInt64(port)), from: TransportAddress(ipString: "10.0.0.1", port: UInt16(port))!,
                             now: Self.t0 + .milliseconds(port))
        }
        #expect(agent.lastAuthenticated.count == 4)
        #expect(agent.isAuthenticated(TransportAddress(ipString: "10.0.0.1", port: 10)!))
        #expect(!agent.isAuthenticated(TransportAddress(ipString: "10.0.0.1", port: 1)!))
    }

    @Test func credentials() throws {
        #expect(throws: ICEError.self) { try ICECredentials(ufrag: "abc", password: "serverpassword0123456789") }
        #expect(throws: ICEError.self) { try ICECredentials(ufrag: "ab:c", password: "serverpassword0123456789") }
        #expect(throws: ICEError.self) { try ICECredentials(ufrag: "abcd", password: "short") }
        let random = ICECredentials.random()
        #expect(random.ufrag.count == 8)
        #expect(random.password.count == 24)
        #expect(!random.description.contains(random.password))
        // Generated credentials are letters and digits only (a peer's regular expression chokes on "+"); "+" and "/"
        // are still accepted from the peer.
        for _ in 0..<200 {
            let drawn = ICECredentials.random()
            #expect((drawn.ufrag + drawn.password).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        }
        #expect(throws: Never.self) { try ICECredentials(ufrag: "a+b/", password: "serverpassword012345+/+/") }
    }
}

/// ICE restart of the lite agent (a WHEP viewer's `PATCH` with `If-Match: "*"`).
@Suite struct ICELiteAgentRestartTests {
    typealias T = ICELiteAgentTests
    static let newLocal = try! ICECredentials(ufrag: "srv2", password: "serverpassword9876543210")
    static let newBrowser = try! ICECredentials(ufrag: "brw2", password: "browserpassword987654321")

    @Test func answersOnlyTheNewCredentialsAndKeepsThePathAndItsConsent() throws {
        var agent = ICELiteAgent(local: T.local, remote: T.browser, now: T.t0)
        agent.handleSTUN(T.check(useCandidate: true), from: T.source, now: T.t0)
        #expect(agent.pollEvent() == .selected(remote: T.source))
        _ = agent.pollTransmit()
        agent.restart(local: Self.newLocal, remote: Self.newBrowser)
        #expect(agent.localCredentials == Self.newLocal)
        #expect(agent.statistics.restarts == 1)
        #expect(agent.selectedRemote == T.source)  // media goes on
        #expect(agent.isAuthenticated(T.source))     // DTLS from it still accepted
        // The old generation's checks are no longer answered.
        agent.handleSTUN(T.check(id: 2), from: T.source, now: T.t0 + .seconds(1))
        #expect(agent.pollTransmit() == nil)
        #expect(agent.statistics.integrityFailures == 1)
        // The new one's are, and refresh consent past the old deadline.
        let later = T.t0 + .seconds(25)
        agent.handleSTUN(T.check(id: 3, username: "srv2:brw2", password: Self.newLocal.password, useCandidate: true),
                         from: T.source, now: later)
        let polled = agent.pollTransmit()
        let reply = try STUNMessage(parsing: try #require(polled).bytes)
        #expect(reply.type == .bindingSuccess && reply.hasValidIntegrity(key: Array(Self.newLocal.password.utf8)))
        #expect(agent.pollEvent() == nil)  // the same address: no new selection
        agent.handleTimeout(now: T.t0 + .seconds(31))
        #expect(agent.pollEvent() == nil)
        #expect(agent.pollTimeout() == later + .seconds(30))
        // A new address nominated with the new credentials takes the path.
        let moved = TransportAddress(ipString: "198.51.100.4", port: 40_001)!
        agent.handleSTUN(T.check(id: 4, username: "srv2:brw2", password: Self.newLocal.password, useCandidate: true),
                         from: moved, now: later)
        #expect(agent.pollEvent() == .selected(remote: moved))
    }

    @Test func aClosedAgentStaysClosed() {
        var agent = ICELiteAgent(local: T.local, remote: T.browser, now: T.t0)
        agent.handleTimeout(now: T.t0 + .seconds(31))  // no nomination
        #expect(agent.pollEvent() == .failed)
        agent.restart(local: Self.newLocal, remote: Self.newBrowser)
        #expect(agent.state == .closed)
        #expect(agent.localCredentials == T.local)
        #expect(agent.statistics.restarts == 0)
    }
}
