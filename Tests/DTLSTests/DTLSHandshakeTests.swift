import COpenSSL
import Foundation
import MediaTime
import RTP
import SRTP
import Testing
@testable import DTLS

/// Two real OpenSSL DTLS endpoints handshaking in memory: packets are passed between them by the test.
@Suite(.serialized) struct DTLSHandshakeTests {
    static let clientCertificate = try! DTLSCertificate.generate()
    static let serverCertificate = try! DTLSCertificate.generate()
    static let now = MonotonicTime(nanoseconds: 5_000_000_000)

    struct Pair {
        let client: DTLSEndpoint
        let server: DTLSEndpoint
        var clientEvents: [DTLSEvent] = []
        var serverEvents: [DTLSEvent] = []
        var datagramsExchanged = 0

        /// Moves datagrams both ways until neither side has anything to send; `drop` may discard some.
        mutating func pump(drop: (_ fromClient: Bool, _ index: Int, _ datagram: [UInt8]) -> Bool = { _, _, _ in false })
            throws
        {
            var progress = true
            while progress {
                progress = false
                while let datagram = client.pollTransmit() {
                    progress = true
                    datagramsExchanged += 1
                    if !drop(true, datagramsExchanged, datagram) { try server.handleDatagram(datagram, now: DTLSHandshakeTests.now) }
                }
                while let datagram = server.pollTransmit() {
                    progress = true
                    datagramsExchanged += 1
                    if !drop(false, datagramsExchanged, datagram) { try client.handleDatagram(datagram, now: DTLSHandshakeTests.now) }
                }
            }
            while let event = client.pollEvent() { clientEvents.append(event) }
            while let event = server.pollEvent() { serverEvents.append(event) }
        }
    }

    static func makePair(
        clientSuites: [SRTPSuite] = DTLSContext.defaultSRTPSuites, serverSuites: [SRTPSuite] = DTLSContext.defaultSRTPSuites,
        clientExpects: DTLSFingerprint? = nil, serverExpects: DTLSFingerprint? = nil,
        configuration: DTLSEndpoint.Configuration = DTLSEndpoint.Configuration()
    ) throws -> Pair {
        let client = try DTLSEndpoint(
            context: try DTLSContext(certificate: clientCertificate, srtpSuites: clientSuites), role: .client,
            remoteFingerprint: clientExpects ?? serverCertificate.fingerprint, configuration: configuration)
        let server = try DTLSEndpoint(
            context: try DTLSContext(certificate: serverCertificate, srtpSuites: serverSuites), role: .server,
            remoteFingerprint: serverExpects ?? clientCertificate.fingerprint, configuration: configuration)
        try server.start(now: now)
        try client.start(now: now)
        return Pair(client: client, server: server)
    }

    static func keys(_ events: [DTLSEvent]) -> DTLSSRTPKeys? {
        for case .connected(let keys) in events { return keys }
        return nil
    }

    @Test func handshakeDerivesMatchingKeys() throws {
        var pair = try Self.makePair()
        try pair.pump()
        #expect(pair.client.state == .connected)
        #expect(pair.server.state == .connected)
        let clientKeys = try #require(Self.keys(pair.clientEvents))
        let serverKeys = try #require(Self.keys(pair.serverEvents))
        #expect(clientKeys.suite == .aeadAES128GCM)
        #expect(serverKeys.suite == .aeadAES128GCM)
        #expect(clientKeys.localKey == serverKeys.remoteKey)  // client write key == server read key
        #expect(clientKeys.remoteKey == serverKeys.localKey)
        #expect(clientKeys.localKey != clientKeys.remoteKey)
        #expect(clientKeys.localKey.count == 28)
        #expect(pair.client.receivedFingerprint == Self.serverCertificate.fingerprint)
        #expect(pair.server.receivedFingerprint == Self.clientCertificate.fingerprint)
        #expect(pair.client.pollTimeout(now: Self.now) == nil)
        // The keys never show in text.
        #expect(!"\(clientKeys)".contains("0x"))
        #expect("\(clientKeys.localKey)" == "<redacted 28 bytes>")
    }

    /// No NewSessionTicket (handshake type 4, sent in the clear before ChangeCipherSpec): tickets are off, so the
    /// server's last flight is small; and the handshake uses ECDHE-ECDSA with AES-128-GCM.
    @Test func serverSendsNoSessionTicket() throws {
        var pair = try Self.makePair()
        var handshakeTypes: [UInt8] = []
        try pair.pump { fromClient, _, datagram in
            if !fromClient {
                for record in DTLSRecordSplitter.datagrams(from: datagram, mtu: 1) where record.count > 25 {
                    // content type 22, epoch 0: the 14th byte is the handshake message type.
                    if record[0] == 22, record[3] == 0, record[4] == 0 { handshakeTypes.append(record[13]) }
                }
            }
            return false
        }
        #expect(pair.server.state == .connected)
        #expect(handshakeTypes.contains(2))  // ServerHello
        #expect(handshakeTypes.contains(11))  // Certificate
        #expect(!handshakeTypes.contains(4))  // NewSessionTicket
        let cipher = String(cString: SSL_CIPHER_get_name(SSL_get_current_cipher(pair.server.ssl)))
        #expect(cipher == "ECDHE-ECDSA-AES128-GCM-SHA256")
    }

    /// The exported keys work with the existing libsrtp sessions: what the client protects, the server unprotects.
    @Test(arguments: [SRTPSuite.aeadAES128GCM, .aesCM128HMACSHA1_80])
    func exportedKeysProtectSRTP(suite: SRTPSuite) throws {
        var pair = try Self.makePair(clientSuites: [suite], serverSuites: DTLSContext.defaultSRTPSuites)
        try pair.pump()
        let clientKeys = try #require(Self.keys(pair.clientEvents))
        let serverKeys = try #require(Self.keys(pair.serverEvents))
        #expect(clientKeys.suite == suite)
        let sender = try SRTPSession(direction: .outbound, suite: suite, key: clientKeys.localKey)
        let receiver = try SRTPSession(direction: .inbound, suite: suite, key: serverKeys.remoteKey)
        let rtp: [UInt8] = [0x80, 0x60, 0x00, 0x01, 0, 0, 0x0b, 0xb8, 0x12, 0x34, 0x56, 0x78] + Array(repeating: 0xab, count: 100)
        var buffer = rtp + Array(repeating: 0, count: SRTPSuite.maxRTPTrailer)
        let protectedLength = try sender.protectRTP(&buffer, length: rtp.count)
        #expect(protectedLength == rtp.count + suite.rtpAuthTagLength)
        #expect(Array(buffer[12..<rtp.count]) != Array(rtp[12...]))
        let plainLength = try receiver.unprotectRTP(&buffer, length: protectedLength)
        #expect(Array(buffer[0..<plainLength]) == rtp)
        // The other direction uses the other key.
        let wrongReceiver = try SRTPSession(direction: .inbound, suite: suite, key: serverKeys.localKey)
        var again = rtp + Array(repeating: 0, count: SRTPSuite.maxRTPTrailer)
        again[3] = 2  // the next sequence number
        let length = try sender.protectRTP(&again, length: rtp.count)
        #expect(throws: SRTPError.self) { try wrongReceiver.unprotectRTP(&again, length: length) }
    }

    /// The server's first flight is lost: the client's timer retransmits the ClientHello and the handshake completes.
    @Test func retransmitsAfterADroppedFlight() async throws {
        var configuration = DTLSEndpoint.Configuration()
        configuration.initialRetransmissionTimeout = .milliseconds(50)
        var pair = try Self.makePair(configuration: configuration)
        // ClientHello reaches the server; the server's whole first flight is lost.
        let clientHello = try #require(pair.client.pollTransmit())
        try pair.server.handleDatagram(clientHello, now: Self.now)
        var dropped = 0
        while pair.server.pollTransmit() != nil { dropped += 1 }
        #expect(dropped > 0)
        #expect(pair.client.state == .handshaking)
        let deadline = try #require(pair.client.pollTimeout(now: Self.now))
        #expect(deadline > Self.now)
        #expect(deadline <= Self.now + .milliseconds(50))
        // Not due yet: nothing is sent.
        try pair.client.handleTimeout(now: Self.now)
        #expect(pair.client.pollTransmit() == nil)
        try await Task.sleep(for: .milliseconds(60))  // OpenSSL reads its own clock for the timer
        try pair.client.handleTimeout(now: deadline)
        let retransmitted = try #require(pair.client.pollTransmit())
        #expect(retransmitted.first == 22)  // a handshake record: the ClientHello again
        try pair.server.handleDatagram(retransmitted, now: Self.now)
        try pair.pump()
        #expect(pair.client.state == .connected)
        #expect(pair.server.state == .connected)
        #expect(Self.keys(pair.clientEvents)?.localKey == Self.keys(pair.serverEvents)?.remoteKey)
    }

    /// The client's last flight is lost: the server retransmits its flight on its timer, and both finish.
    @Test func retransmitsAfterADroppedClientFinished() async throws {
        var configuration = DTLSEndpoint.Configuration()
        configuration.initialRetransmissionTimeout = .milliseconds(50)
        var pair = try Self.makePair(configuration: configuration)
        // Datagrams: 1 ClientHello, 2.. the server's flight, then the client's Certificate..Finished flight.
        var clientFlights = 0
        try pair.pump { fromClient, _, _ in
            guard fromClient else { return false }
            clientFlights += 1
            return clientFlights >= 2
        }
        #expect(pair.server.state == .handshaking)
        let deadline = try #require(pair.server.pollTimeout(now: Self.now))
        try await Task.sleep(for: .milliseconds(60))
        try pair.server.handleTimeout(now: deadline)
        #expect(pair.server.pollTimeout(now: Self.now) != nil)
        try pair.pump()
        #expect(pair.server.state == .connected)
        #expect(pair.client.state == .connected)
        #expect(Self.keys(pair.clientEvents)?.remoteKey == Self.keys(pair.serverEvents)?.localKey)
    }

    /// The server's last flight (ChangeCipherSpec, Finished) is lost after the server is connected: the client's
    /// timer retransmits its flight, and the connected server answers it by retransmitting its own (RFC 6347 4.2.4).
    @Test func connectedServerRetransmitsItsLastFlight() async throws {
        var configuration = DTLSEndpoint.Configuration()
        configuration.initialRetransmissionTimeout = .milliseconds(50)
        var pair = try Self.makePair(configuration: configuration)
        let server = pair.server
        try pair.pump { fromClient, _, _ in !fromClient && server.state == .connected }
        #expect(pair.server.state == .connected)
        #expect(pair.client.state == .handshaking)
        #expect(Self.keys(pair.serverEvents) != nil)
        let deadline = try #require(pair.client.pollTimeout(now: Self.now))
        try await Task.sleep(for: .milliseconds(60))
        try pair.client.handleTimeout(now: deadline)
        try pair.pump()
        #expect(pair.client.state == .connected)
        #expect(Self.keys(pair.clientEvents)?.localKey == Self.keys(pair.serverEvents)?.remoteKey)
        #expect(pair.server.pollEvent() == nil)  // keys are reported once
    }

    /// Garbage and truncated records never trap; a server fed garbage before a ClientHello fails or ignores it.
    @Test func garbageNeverTraps() throws {
        var generator = SystemRandomNumberGenerator()
        for length in [1, 5, 13, 14, 60, 300, 1200] {
            let pair = try Self.makePair()
            var garbage = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            garbage[0] = 22  // looks like a handshake record
            do {
                try pair.server.handleDatagram(garbage, now: Self.now)
            } catch {
                #expect(pair.server.state == .failed)
            }
            #expect(pair.server.pollEvent() == nil)
        }
    }

    @Test func clientRefusesServerWithWrongFingerprint() throws {
        let wrong = try DTLSCertificate.generate().fingerprint
        var pair = try Self.makePair(clientExpects: wrong)
        do {
            try pair.pump()
            Issue.record("handshake with a wrong fingerprint did not fail")
        } catch let error as DTLSError {
            #expect(error == .fingerprintMismatch(expected: wrong, received: Self.serverCertificate.fingerprint))
        }
        #expect(pair.client.state == .failed)
        #expect(Self.keys(pair.clientEvents) == nil)
        // The alert reaches the server, which fails too and never hands out keys.
        let alert = try #require(pair.client.pollTransmit())
        #expect(alert.first == 21)  // an alert record
        #expect(throws: DTLSError.self) { try pair.server.handleDatagram(alert, now: Self.now) }
        #expect(pair.server.state == .failed)
        #expect(pair.server.pollEvent() == nil)
    }

    @Test func serverRefusesClientWithWrongFingerprint() throws {
        let wrong = try DTLSCertificate.generate().fingerprint
        var pair = try Self.makePair(serverExpects: wrong)
        #expect(throws: DTLSError.fingerprintMismatch(expected: wrong, received: Self.clientCertificate.fingerprint)) {
            try pair.pump()
        }
        #expect(pair.server.state == .failed)
        #expect(Self.keys(pair.serverEvents) == nil)
        #expect(pair.server.pollEvent() == nil)
    }

    @Test func failsWithoutACommonSRTPProfile() throws {
        var pair = try Self.makePair(clientSuites: [.aesCM128HMACSHA1_32], serverSuites: [.aeadAES128GCM])
        #expect(throws: DTLSError.self) { try pair.pump() }
        #expect(pair.client.state == .failed || pair.server.state == .failed)
        #expect(Self.keys(pair.clientEvents) == nil)
    }

    @Test func closeNotifyClosesThePeer() throws {
        var pair = try Self.makePair()
        try pair.pump()
        pair.client.close()
        #expect(pair.client.state == .closed)
        try pair.pump()
        #expect(pair.server.state == .closed)
        #expect(pair.serverEvents.last == .closed)
    }

    @Test func rejectsBadConfiguration() throws {
        let context = try DTLSContext(certificate: Self.serverCertificate)
        var configuration = DTLSEndpoint.Configuration()
        configuration.mtu = 100
        #expect(throws: DTLSError.self) {
            try DTLSEndpoint(context: context, role: .server, remoteFingerprint: Self.clientCertificate.fingerprint,
                             configuration: configuration)
        }
        configuration = DTLSEndpoint.Configuration()
        configuration.initialRetransmissionTimeout = .seconds(-1)
        #expect(throws: DTLSError.self) {
            try DTLSEndpoint(context: context, role: .server, remoteFingerprint: Self.clientCertificate.fingerprint,
                             configuration: configuration)
        }
        #expect(throws: DTLSError.self) { try DTLSContext(certificate: Self.serverCertificate, srtpSuites: []) }
        #expect(throws: DTLSError.self) {
            try DTLSContext(certificate: Self.serverCertificate, srtpSuites: [.aes256CMHMACSHA1_80])
        }
    }

    /// Every datagram of the handshake fits the MTU.
    @Test func datagramsRespectTheMTU() throws {
        var configuration = DTLSEndpoint.Configuration()
        configuration.mtu = 300
        var pair = try Self.makePair(configuration: configuration)
        var largest = 0
        try pair.pump { _, _, datagram in
            largest = max(largest, datagram.count)
            return false
        }
        #expect(pair.client.state == .connected)
        #expect(largest <= 300)
        #expect(largest > 100)
    }
}
