import NIOCore
import Testing
import TestSupport
import Transport

/// What a `UDPTransport` accepts from the network and what it refuses, each refusal counted under its reason: the
/// peer filter (by IP address), datagrams that are neither RTP nor RTCP, and the peer learned from the first packet.
@Suite struct UDPTransportReceiveTests {
    /// Only the peer's IP address may send; its port may differ (peers often send RTCP from another port than their
    /// RTP port). Anything else is a stranger's, counted and never handed up.
    @Test func datagramsFromAnotherAddressThanThePeersAreStrangers() async throws {
        let peer = try RawUDPSocket()
        let otherPort = try RawUDPSocket()
        let stranger = try RawUDPSocket(host: "127.0.0.2")
        let transport = try await LoopbackTransport(
            LoopbackTransport.configuration(peer: try SocketAddress(ipAddress: "127.0.0.1", port: peer.port)))
        try stranger.send(LoopbackTransport.rtpPacket(sequenceNumber: 1), toPort: transport.port)
        try stranger.send(LoopbackTransport.receiverReport, toPort: transport.port)
        try peer.send(LoopbackTransport.rtpPacket(sequenceNumber: 2), toPort: transport.port)
        try otherPort.send(LoopbackTransport.rtpPacket(sequenceNumber: 3), toPort: transport.port)
        try otherPort.send(LoopbackTransport.receiverReport, toPort: transport.port)

        #expect(try await transport.waitForCounters { $0.rtpPacketsReceived == 2 && $0.packetsFromStrangers == 2 })
        let counters = try await transport.counters()
        #expect(counters.packetsFromStrangers == 2)
        #expect(counters.rtpPacketsReceived == 2)
        #expect(counters.rtcpPacketsReceived == 1)
        #expect(counters.malformedPackets == 0)
        #expect(try await transport.rtp() == [LoopbackTransport.rtpPacket(sequenceNumber: 2),
                                              LoopbackTransport.rtpPacket(sequenceNumber: 3)])
        await transport.close()
    }

    /// Datagrams that cannot be RTP or RTCP, each counted as malformed; the transport goes on.
    static let malformed: [(name: String, bytes: [UInt8])] = [
        ("one byte", [0xFF]),
        ("shorter than an empty receiver report (8 bytes)", [0x80, 96, 0, 1, 0, 0, 0]),
        ("RTP version 1", [0x40, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7, 1, 2]),
        ("RTP version 0 (a STUN message's first byte)", [0x00, 0x01, 0, 0, 0x21, 0x12, 0xA4, 0x42, 1, 2, 3, 4]),
        ("RTCP whose length field runs past the datagram", [0x80, 0xC9, 0x00, 0x10, 1, 2, 3, 4]),
    ]

    @Test(arguments: 0..<malformed.count)
    func aDatagramThatIsNeitherRTPNorRTCPIsCountedAsMalformed(_ index: Int) async throws {
        let (name, bytes) = Self.malformed[index]
        let peer = try RawUDPSocket()
        let transport = try await LoopbackTransport(
            LoopbackTransport.configuration(peer: try SocketAddress(ipAddress: "127.0.0.1", port: peer.port)))
        try peer.send(bytes, toPort: transport.port)
        try peer.send(LoopbackTransport.rtpPacket(sequenceNumber: 9), toPort: transport.port)

        #expect(try await transport.waitForCounters { $0.rtpPacketsReceived == 1 }, "\(name)")
        let counters = try await transport.counters()
        #expect(counters.malformedPackets == 1, "\(name)")
        #expect(counters.rtcpPacketsReceived == 0, "\(name)")
        #expect(try await transport.rtp() == [LoopbackTransport.rtpPacket(sequenceNumber: 9)], "\(name)")
        await transport.close()
    }

    /// Without a configured peer (a receiver), the first accepted RTP packet's source becomes the peer (symmetric
    /// RTP), RTCP does not; from then on another address is a stranger's.
    @Test func theFirstRTPPacketsSourceBecomesThePeer() async throws {
        let first = try RawUDPSocket()
        let stranger = try RawUDPSocket(host: "127.0.0.2")
        let transport = try await LoopbackTransport(LoopbackTransport.configuration())
        try first.send(LoopbackTransport.receiverReport, toPort: transport.port)
        #expect(try await transport.waitForCounters { $0.rtcpPacketsReceived == 1 })
        #expect(try await transport.onLoop { $0.peer } == nil, "RTCP taught the peer")

        try first.send(LoopbackTransport.rtpPacket(sequenceNumber: 1), toPort: transport.port)
        #expect(try await transport.waitForCounters { $0.rtpPacketsReceived == 1 })
        #expect(try await transport.onLoop { $0.peer } == (try SocketAddress(ipAddress: "127.0.0.1", port: first.port)))

        try stranger.send(LoopbackTransport.rtpPacket(sequenceNumber: 2), toPort: transport.port)
        #expect(try await transport.waitForCounters { $0.packetsFromStrangers == 1 })
        #expect(try await transport.counters().rtpPacketsReceived == 1)
        #expect(try await transport.onLoop { $0.peer?.port } == first.port)
        await transport.close()
    }

    /// Media reaches the learned peer: the transport answers where the first packet came from.
    @Test func mediaGoesToTheLearnedPeer() async throws {
        let remote = try RawUDPSocket()
        let transport = try await LoopbackTransport(LoopbackTransport.configuration())
        #expect(try await transport.send(LoopbackTransport.rtpPacket(sequenceNumber: 1)) == 0, "sent without a peer")

        try remote.send(LoopbackTransport.rtpPacket(sequenceNumber: 1), toPort: transport.port)
        #expect(try await transport.waitForCounters { $0.rtpPacketsReceived == 1 })
        let packet = LoopbackTransport.rtpPacket(sequenceNumber: 77, payload: Array(0..<100))
        #expect(try await transport.send(packet) == 1)
        var received: (bytes: [UInt8], port: Int)?
        #expect(await Poll.until(seconds: 5) {
            received = remote.receive()
            return received != nil
        })
        #expect(received?.bytes == packet)
        #expect(received?.port == transport.port)
        let counters = try await transport.counters()
        #expect(counters.rtpPacketsSent == 1)
        #expect(counters.rtpBytesSent == packet.count)
        await transport.close()
    }
}
