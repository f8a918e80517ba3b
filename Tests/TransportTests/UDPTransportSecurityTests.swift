import NIOCore
import RTP
import SRTP
import Testing
import TestSupport
import Transport

/// SRTP and SRTCP between two transports (SDES: each side protects with its own key, RFC 4568 section 6.1), what a
/// wrong key gets, and WebRTC's rule that media waits for the keys and never leaves in the clear.
@Suite struct UDPTransportSecurityTests {
    static let suite = SRTPSuite.default
    static let keyA = SRTPMasterKey.random(for: suite)
    static let keyB = SRTPMasterKey.random(for: suite)

    /// A protects with `keyA` and reads what is protected with `keyB`; B the other way round.
    static func securedPair() async throws -> (a: LoopbackTransport, b: LoopbackTransport) {
        let a = try await LoopbackTransport(LoopbackTransport.configuration(
            security: TransportSecurity(suite: suite, outboundKey: keyA, inboundKey: keyB)))
        let b = try await LoopbackTransport(LoopbackTransport.configuration(
            peer: try a.address, security: TransportSecurity(suite: suite, outboundKey: keyB, inboundKey: keyA)))
        let bAddress = try b.address
        try await a.onLoop { $0.setPeer(bAddress) }
        return (a, b)
    }

    @Test func rtpAndRTCPCrossProtectedAndComeOutAsSent() async throws {
        let (a, b) = try await Self.securedPair()
        let packet = LoopbackTransport.rtpPacket(sequenceNumber: 1000, payload: Array(repeating: 0x5A, count: 200))
        #expect(try await a.send(packet) == 1)
        #expect(try await b.waitForCounters { $0.rtpPacketsReceived == 1 })
        #expect(try await b.rtp() == [packet])
        let sent = try await a.counters()
        #expect(sent.rtpPacketsSent == 1)
        #expect(sent.rtpBytesSent == packet.count + Self.suite.rtpTrailerLength, "the SRTP tag is counted")

        let report = RTCPPacket.receiverReport(ReceiverReport(ssrc: SSRC(0xB0B)))
        try await b.onLoop { try $0.sendRTCP([report]) }
        #expect(try await a.waitForCounters { $0.rtcpPacketsReceived == 1 })
        #expect(try await a.rtcp() == [[report]])
        #expect(try await b.counters().rtcpPacketsSent == 1)
        #expect(try await a.counters().srtcpUnprotectFailures == 0)
        await a.close()
        await b.close()
    }

    /// A packet protected with a key this end does not read with fails authentication: counted, never handed up,
    /// and (issue 14's opt-in off) RTCP is not read as plain either.
    @Test func aWrongKeyIsAnAuthenticationFailure() async throws {
        let receiver = try await LoopbackTransport(LoopbackTransport.configuration(
            security: TransportSecurity(suite: Self.suite, outboundKey: Self.keyA, inboundKey: Self.keyB)))
        let forger = try await LoopbackTransport(LoopbackTransport.configuration(
            peer: try receiver.address,
            security: TransportSecurity(suite: Self.suite, outboundKey: SRTPMasterKey.random(for: Self.suite),
                                        inboundKey: Self.keyA)))
        try await forger.send(LoopbackTransport.rtpPacket(sequenceNumber: 1))
        try await forger.onLoop { try $0.sendRTCP([.receiverReport(ReceiverReport(ssrc: SSRC(1)))]) }
        #expect(try await receiver.waitForCounters { $0.srtpUnprotectFailures == 1 && $0.srtcpUnprotectFailures == 1 })
        let counters = try await receiver.counters()
        #expect(counters.rtpPacketsReceived == 0)
        #expect(counters.rtcpPacketsReceived == 0)
        #expect(counters.plainRTCPAccepted == 0)
        #expect(try await receiver.rtp().isEmpty)
        // A forged packet teaches no peer: only an authentic one would.
        #expect(try await receiver.onLoop { $0.peer } == nil)
        await receiver.close()
        await forger.close()
    }

    /// WebRTC: until `secure(with:)` media and reports are dropped and counted both ways, while STUN and DTLS
    /// (`sendDatagram`) go out as they are. Once secured, media flows protected; keys are installed once.
    @Test func mediaWaitsForTheKeysAndNeverLeavesInTheClear() async throws {
        let remote = try RawUDPSocket()
        var configuration = LoopbackTransport.configuration(peer: try SocketAddress(ipAddress: "127.0.0.1", port: remote.port))
        configuration.holdMediaUntilSecured = true
        let held = try await LoopbackTransport(configuration)
        #expect(try await held.onLoop { $0.isSecured } == false)
        #expect(try await held.send(LoopbackTransport.rtpPacket(sequenceNumber: 1)) == 0)
        try await held.onLoop { try $0.sendRTCP([.receiverReport(ReceiverReport(ssrc: SSRC(1)))]) }
        try remote.send(LoopbackTransport.rtpPacket(sequenceNumber: 2), toPort: held.port)
        #expect(try await held.waitForCounters { $0.heldBeforeSecured == 3 })
        let destination = try SocketAddress(ipAddress: "127.0.0.1", port: remote.port)
        try await held.onLoop { $0.sendDatagram([0, 1, 0, 0], to: destination) }  // a STUN-like datagram
        var received: [UInt8]?
        #expect(await Poll.until(seconds: 5) {
            received = remote.receive()?.bytes
            return received != nil
        })
        #expect(received == [0, 1, 0, 0], "only the unprotected datagram left before the keys")
        let counters = try await held.counters()
        #expect(counters.rtpPacketsSent == 0 && counters.rtcpPacketsSent == 0 && counters.rtpPacketsReceived == 0)
        #expect(try await held.rtp().isEmpty)

        let security = TransportSecurity(suite: Self.suite, outboundKey: Self.keyA, inboundKey: Self.keyB)
        try await held.onLoop { try $0.secure(with: security) }
        #expect(try await held.onLoop { $0.isSecured })
        let packet = LoopbackTransport.rtpPacket(sequenceNumber: 3)
        #expect(try await held.send(packet) == 1)
        var protected: [UInt8]?
        #expect(await Poll.until(seconds: 5) {
            protected = remote.receive()?.bytes
            return protected != nil
        })
        #expect(protected?.count == packet.count + Self.suite.rtpTrailerLength)
        #expect(protected.map { Array($0.prefix(12)) } == Array(packet.prefix(12)), "the RTP header stays in the clear")
        #expect(protected.map { Array($0.dropFirst(12).prefix(packet.count - 12)) } != Array(packet.dropFirst(12)),
                "the payload is encrypted")

        await #expect(throws: TransportError.alreadySecured) {
            try await held.onLoop { try $0.secure(with: security) }
        }
        #expect("\(TransportError.alreadySecured)" == "the transport is already secured; SRTP keys are installed once")
        await held.close()
    }
}
