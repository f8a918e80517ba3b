import NIOCore
import RTP
import SRTP
import Testing
import TestSupport
import Transport

/// Media over a TURN relay (RFC 8656): sent as ChannelData, the 4-byte header written in room kept in front of each
/// protected packet (nothing copied, nothing allocated per packet); received from inside ChannelData, unprotected in
/// the socket's own buffer; and the hook that lets the owner release the relay before the sockets close.
@Suite struct UDPTransportChannelDataTests {
    static let suite = SRTPSuite.default
    static let keyA = SRTPMasterKey.random(for: suite)
    static let keyB = SRTPMasterKey.random(for: suite)
    static let channel: UInt16 = 0x4001

    /// Waits up to 5 s for a datagram on `socket`.
    static func datagram(_ socket: RawUDPSocket) async throws -> [UInt8]? {
        var received: [UInt8]?
        _ = await Poll.until(seconds: 5) {
            received = socket.receive()?.bytes
            return received != nil
        }
        return received
    }

    /// RTP and RTCP to a "server" bound on a channel: each datagram is the header (channel, the protected length)
    /// then exactly the SRTP or SRTCP packet; the counted bytes include the header.
    @Test func mediaGoesAsChannelDataWithTheHeaderInFront() async throws {
        let server = try RawUDPSocket()
        let a = try await LoopbackTransport(LoopbackTransport.configuration(
            security: TransportSecurity(suite: Self.suite, outboundKey: Self.keyA, inboundKey: Self.keyB)))
        let serverAddress = try SocketAddress(ipAddress: "127.0.0.1", port: server.port)
        try await a.onLoop { $0.setPeer(serverAddress, channel: Self.channel) }
        let packet = LoopbackTransport.rtpPacket(sequenceNumber: 7, payload: Array(repeating: 0xA5, count: 101))
        #expect(try await a.send(packet) == 1)
        let rtp = try #require(try await Self.datagram(server))
        let protectedLength = packet.count + Self.suite.rtpTrailerLength
        #expect(Array(rtp.prefix(4)) == [0x40, 0x01, UInt8(protectedLength >> 8), UInt8(protectedLength & 0xFF)])
        #expect(rtp.count == 4 + protectedLength, "no padding over UDP")
        #expect(Array(rtp[4..<16]) == Array(packet.prefix(12)), "the RTP header follows, in the clear as SRTP keeps it")
        #expect(try await a.counters().rtpBytesSent == 4 + protectedLength)

        try await a.onLoop { try $0.sendRTCP([.receiverReport(ReceiverReport(ssrc: SSRC(9)))]) }
        let rtcp = try #require(try await Self.datagram(server))
        #expect(Array(rtcp.prefix(2)) == [0x40, 0x01])
        #expect(Int(rtcp[2]) << 8 | Int(rtcp[3]) == rtcp.count - 4)
        #expect(rtcp[5] == 201, "a Receiver Report after the header")

        // Back to a direct peer: packets as they are.
        try await a.onLoop { $0.setPeer(serverAddress) }
        #expect(try await a.send(LoopbackTransport.rtpPacket(sequenceNumber: 8, payload: Array(repeating: 0xA5, count: 101))) == 1)
        #expect(try await Self.datagram(server)?.count == protectedLength)
        await a.close()
    }

    /// A receiver whose interceptor reads ChannelData (as a WebRTC link over TURN does) gets the packets inside it
    /// unprotected and handed up, RTP and RTCP alike; a range past the datagram is counted as malformed.
    @Test func relayedMediaIsReadInPlace() async throws {
        let a = try await LoopbackTransport(LoopbackTransport.configuration(
            security: TransportSecurity(suite: Self.suite, outboundKey: Self.keyA, inboundKey: Self.keyB)))
        let b = try await LoopbackTransport(LoopbackTransport.configuration(
            security: TransportSecurity(suite: Self.suite, outboundKey: Self.keyB, inboundKey: Self.keyA)))
        try await b.onLoop { transport in
            transport.interceptor = { bytes, _ in
                guard bytes.count >= 4, bytes[0] == 0x40 else { return .drop }
                let length = Int(bytes[2]) << 8 | Int(bytes[3])
                return bytes[1] == 0x01 ? .relayedMedia(4..<(4 + length)) : .relayedMedia(4..<(bytes.count + 1))
            }
        }
        let bAddress = try b.address
        try await a.onLoop { $0.setPeer(bAddress, channel: Self.channel) }
        let packet = LoopbackTransport.rtpPacket(sequenceNumber: 8, payload: Array(repeating: 0x3C, count: 64))
        #expect(try await a.send(packet) == 1)
        let report = RTCPPacket.receiverReport(ReceiverReport(ssrc: SSRC(0xB0B)))
        try await a.onLoop { try $0.sendRTCP([report]) }
        #expect(try await b.waitForCounters { $0.rtpPacketsReceived == 1 && $0.rtcpPacketsReceived == 1 })
        #expect(try await b.rtp() == [packet])
        #expect(try await b.rtcp() == [[report]])

        try await a.onLoop { $0.setPeer(bAddress, channel: 0x4002) }  // the interceptor's bad range
        #expect(try await a.send(LoopbackTransport.rtpPacket(sequenceNumber: 9)) == 1)
        #expect(try await b.waitForCounters { $0.malformedPackets == 1 })
        #expect(try await b.counters().srtpUnprotectFailures == 0)
        await a.close()
        await b.close()
    }

    /// A TCP or TLS connection to the relay's server, as the tests see it: it keeps what it is handed, or refuses.
    final class CapturingSink: MediaStreamSink, @unchecked Sendable {
        var frames: [[UInt8]] = []
        var flushes = 0
        var accepting = true
        func write(_ frame: ByteBuffer) -> Bool {
            guard accepting else { return false }
            frames.append(Array(frame.readableBytesView))
            return true
        }
        func flush() { flushes += 1 }
    }

    /// Over a stream (TURN over TCP or TLS, RFC 8656 section 12.5) each packet is ChannelData padded with zeros to a
    /// multiple of 4, handed to the connection instead of the socket; a connection with no room drops the packet and
    /// counts it. What the owner takes out of the stream's ChannelData comes in through `receiveRelayedMedia`.
    @Test func overAStreamChannelDataIsPaddedAndGoesToTheConnection() async throws {
        let server = try RawUDPSocket()
        let a = try await LoopbackTransport(LoopbackTransport.configuration(
            security: TransportSecurity(suite: Self.suite, outboundKey: Self.keyA, inboundKey: Self.keyB)))
        let b = try await LoopbackTransport(LoopbackTransport.configuration(
            security: TransportSecurity(suite: Self.suite, outboundKey: Self.keyB, inboundKey: Self.keyA)))
        let sink = CapturingSink()
        let serverAddress = try SocketAddress(ipAddress: "127.0.0.1", port: server.port)
        try await a.onLoop { $0.setPeer(serverAddress, channel: Self.channel, stream: sink) }
        let packet = LoopbackTransport.rtpPacket(sequenceNumber: 7, payload: Array(repeating: 0xA5, count: 101))
        #expect(try await a.send(packet) == 1)
        let report = RTCPPacket.receiverReport(ReceiverReport(ssrc: SSRC(9)))
        try await a.onLoop { try $0.sendRTCP([report]) }
        let frames = try await a.onLoop { _ in sink.frames }
        #expect(frames.count == 2)
        for frame in frames {
            let length = Int(frame[2]) << 8 | Int(frame[3])
            #expect(Array(frame.prefix(2)) == [0x40, 0x01])
            #expect(frame.count == (4 + length + 3) & ~3 && frame.count % 4 == 0, "padded to a multiple of 4")
            #expect(frame[(4 + length)...].allSatisfy { $0 == 0 }, "the padding is zeros")
        }
        let protectedLength = packet.count + Self.suite.rtpTrailerLength
        #expect(protectedLength % 4 != 0, "the case needs padding")
        #expect(Int(frames[0][2]) << 8 | Int(frames[0][3]) == protectedLength)
        #expect(try await a.counters().rtpBytesSent == frames[0].count)
        try await Task.sleep(for: .milliseconds(50))
        #expect(server.receive() == nil, "nothing on the socket")

        // The packets back out of their ChannelData into another transport: unprotected and handed up.
        try await b.onLoop { transport in
            for frame in frames {
                let length = Int(frame[2]) << 8 | Int(frame[3])
                var buffer = ByteBufferAllocator().buffer(bytes: frame[4..<(4 + length)])
                transport.receiveRelayedMedia(&buffer, from: serverAddress)
            }
        }
        #expect(try await b.rtp() == [packet])
        #expect(try await b.rtcp() == [[report]])

        // A connection with no room: dropped and counted, not queued.
        try await a.onLoop { _ in sink.accepting = false }
        #expect(try await a.send(LoopbackTransport.rtpPacket(sequenceNumber: 8)) == 0)
        try await a.onLoop { try $0.sendRTCP([report]) }
        let counters = try await a.counters()
        #expect(counters.relayStreamDrops == 2 && counters.rtpPacketsSent == 1 && counters.rtcpPacketsSent == 1)
        await a.close()
        await b.close()
    }

    /// `willClose` runs once, on `close()`, while datagrams can still leave.
    @Test func willCloseRunsOnceBeforeTheSocketsClose() async throws {
        let server = try RawUDPSocket()
        let a = try await LoopbackTransport(LoopbackTransport.configuration())
        let serverAddress = try SocketAddress(ipAddress: "127.0.0.1", port: server.port)
        try await a.onLoop { transport in
            transport.willClose = { transport.sendDatagram([1, 2, 3], to: serverAddress) }
        }
        await a.close()
        await a.close()
        #expect(try await Self.datagram(server) == [1, 2, 3])
        try await Task.sleep(for: .milliseconds(50))
        #expect(server.receive() == nil, "once")
    }
}
