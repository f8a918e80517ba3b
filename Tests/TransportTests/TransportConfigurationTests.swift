import NIOCore
import Testing
import TestSupport
import Transport

/// What a `TransportConfiguration` leaves to its defaults, and where RTCP goes for each choice of ports.
@Suite struct TransportConfigurationTests {
    /// The defaults are the strict ones: SRTCP is required once SRTP is on (plain RTCP only with Janus's opt-in),
    /// media is not held (nothing waits for DTLS unless asked), no packet info is asked of the kernel.
    @Test func theDefaultsAreTheStrictOnes() {
        let configuration = TransportConfiguration(
            localHost: "127.0.0.1", localPort: 0, peer: nil, rtcpMux: true, security: nil)
        #expect(configuration.acceptPlainRTCP == false)
        #expect(configuration.holdMediaUntilSecured == false)
        #expect(configuration.receivePacketInfo == false)
        #expect(configuration.peerRTCPPort == nil)
        #expect(configuration.receiveBufferSize == 1 << 20)
    }

    /// RTCP goes to the peer's RTP address with rtcp-mux (RFC 5761), else to its RTP port + 1 (RFC 3550 section 11)
    /// or the port the SDP names (`a=rtcp`, RFC 3605).
    @Test(arguments: [
        (true, nil, 40_000),
        (false, nil, 40_001),
        (false, 50_123, 50_123),
    ] as [(Bool, Int?, Int)])
    func rtcpGoesWhereThePortsSay(rtcpMux: Bool, peerRTCPPort: Int?, expected: Int) async throws {
        var configuration = TransportConfiguration(
            localHost: "127.0.0.1", localPort: 0, peer: try SocketAddress(ipAddress: "127.0.0.1", port: 40_000),
            rtcpMux: rtcpMux, security: nil)
        configuration.peerRTCPPort = peerRTCPPort
        // Without rtcp-mux two adjacent ports: a suite running beside this one can take the pair between the check and
        // the bind (CI saw EADDRINUSE once), so a few pairs are tried.
        var attempt = 0
        let transport: LoopbackTransport
        while true {
            if !rtcpMux { configuration.localPort = TestPorts.reserve() }
            do {
                transport = try await LoopbackTransport(configuration)
                break
            } catch {
                attempt += 1
                if rtcpMux || attempt >= 5 { throw error }
            }
        }
        #expect(try await transport.onLoop { $0.peerRTCP } == (try SocketAddress(ipAddress: "127.0.0.1", port: expected)))
        await transport.close()
    }
}
