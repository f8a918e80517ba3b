import NIOCore
import NIOPosix
import STUN
import Synchronization
import Testing
import TestSupport
import TURN
@testable import WebRTCTransport

/// The TCP connections to TURN servers (`TURNStreams`) against scripted TCP servers on loopback: messages queued
/// while connecting arrive in order, the server's bytes come back as whole frames however the stream cuts them, and
/// every way a connection fails reaches `onFailure` once, with its reason (refused, broken framing, closed, TLS
/// without a configuration). TURN itself over TCP and TLS against coturn: `whip-turn.sh`.
@Suite struct TURNStreamsTests {
    /// A TCP server that records what it reads and answers the first read with `reply`, cut in two writes.
    final class ScriptedServer: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let reply: [UInt8]
        let closeAfterReply: Bool
        let received = Mutex<[UInt8]>([])
        private var answered = false

        init(reply: [UInt8], closeAfterReply: Bool = false) {
            self.reply = reply
            self.closeAfterReply = closeAfterReply
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = Array(unwrapInboundIn(data).readableBytesView)
            received.withLock { $0 += bytes }
            guard !answered, !reply.isEmpty else { return }
            answered = true
            let half = reply.count / 2
            for part in [reply[..<half], reply[half...]] {
                context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: part)), promise: nil)
            }
            if closeAfterReply { context.close(promise: nil) }
        }
    }

    static func listen(_ handler: ScriptedServer) async throws -> (Channel, TransportAddress) {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { $0.pipeline.addHandler(handler) }
            .bind(host: "127.0.0.1", port: 0).get()
        return (channel, TransportAddress(ipString: "127.0.0.1", port: UInt16(channel.localAddress!.port!))!)
    }

    /// What the streams reported, read on the loop.
    final class Seen: @unchecked Sendable {
        var frames: [[UInt8]] = []
        var failures: [String] = []
    }

    static func streams(
        _ server: TransportAddress, transport: TURNClientConfiguration.Transport = .tcp, loop: EventLoop, seen: Seen
    ) async throws -> NIOLoopBound<TURNStreams> {
        try await loop.submit {
            let streams = TURNStreams(
                servers: [.init(address: server, transport: transport, host: "127.0.0.1", name: "turn:test")],
                eventLoop: loop, makeTLSHandler: nil)
            streams.onFrame = { frame, _, _ in seen.frames.append(frame) }
            streams.onFailure = { _, _, reason in seen.failures.append(reason) }
            return NIOLoopBound(streams, eventLoop: loop)
        }.get()
    }

    static let binding: [UInt8] = try! STUNMessage(
        type: .bindingRequest, transactionID: STUNTransactionID(high: 1, low: 2)).serialized()

    @Test func messagesQueuedWhileConnectingArriveAndTheRepliesComeBackWhole() async throws {
        // The reply: a STUN message then a padded ChannelData frame, cut in the middle of the first.
        let channelData = try ChannelData.message(channel: 0x4000, payload: [1, 2, 3, 4, 5], padded: true)
        let handler = ScriptedServer(reply: Self.binding + channelData)
        let (server, address) = try await Self.listen(handler)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let seen = Seen()
        let streams = try await Self.streams(address, loop: loop, seen: seen)
        try await loop.submit {
            streams.value.send(Self.binding, to: address, over: .tcp)  // queued: the connection is being made
            streams.value.send([9, 9, 9, 9], to: TransportAddress(ipString: "127.0.0.1", port: 1)!, over: .tcp)  // unknown
        }.get()
        #expect(try await Poll.until(seconds: 5) { try await loop.submit { seen.frames.count == 2 }.get() })
        #expect(try await loop.submit { seen.frames }.get() == [Self.binding, channelData])
        #expect(handler.received.withLock { $0 } == Self.binding)
        #expect(try await loop.submit { seen.failures }.get().isEmpty)
        // Media through the sink while connected; the server reads it as it was written.
        let accepted = try await loop.submit {
            let sink = streams.value.sink(for: address, over: .tcp)!
            defer { sink.flush() }
            return sink.write(ByteBufferAllocator().buffer(bytes: channelData))
        }.get()
        #expect(accepted)
        #expect(await Poll.until(seconds: 5) { handler.received.withLock { $0 } == Self.binding + channelData })
        try await loop.submit { streams.value.close() }.get()
        try await server.close()
    }

    @Test func aRefusedConnectionFailsOnceWithItsReason() async throws {
        // A port nobody listens on: bound, then closed.
        let (probe, address) = try await Self.listen(ScriptedServer(reply: []))
        try await probe.close()
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let seen = Seen()
        let streams = try await Self.streams(address, loop: loop, seen: seen)
        try await loop.submit { streams.value.send(Self.binding, to: address, over: .tcp) }.get()
        #expect(try await Poll.until(seconds: 10) { try await loop.submit { !seen.failures.isEmpty }.get() })
        let failures = try await loop.submit { seen.failures }.get()
        #expect(failures.count == 1)
        #expect(failures.first?.hasPrefix("cannot connect over TCP to \(address)") == true, "\(failures)")
        // After the failure nothing is sent and no sink is offered for media.
        let sinkWrites = try await loop.submit {
            streams.value.send(Self.binding, to: address, over: .tcp)
            return streams.value.sink(for: address, over: .tcp)?.write(ByteBufferAllocator().buffer(bytes: [0])) ?? false
        }.get()
        #expect(!sinkWrites)
        try await loop.submit { streams.value.close() }.get()
    }

    @Test(arguments: [
        ([0x80, 0, 0, 4, 1, 2, 3, 4], false, "the server's stream broke: "),  // neither STUN nor ChannelData
        ([], true, "the server closed the TCP connection"),
    ] as [([UInt8], Bool, String)])
    func aBrokenStreamFailsWithItsReason(reply: [UInt8], close: Bool, reason: String) async throws {
        let handler = ScriptedServer(reply: close ? Self.binding : reply, closeAfterReply: close)
        let (server, address) = try await Self.listen(handler)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let seen = Seen()
        let streams = try await Self.streams(address, loop: loop, seen: seen)
        try await loop.submit { streams.value.send(Self.binding, to: address, over: .tcp) }.get()
        #expect(try await Poll.until(seconds: 5) { try await loop.submit { !seen.failures.isEmpty }.get() })
        try await Task.sleep(for: .milliseconds(100))
        let failures = try await loop.submit { seen.failures }.get()
        #expect(failures.count == 1 && failures[0].hasPrefix(reason), "\(failures)")
        try await loop.submit { streams.value.close() }.get()
        try await server.close()
    }

    @Test func tlsWithoutAConfigurationFails() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let seen = Seen()
        let address = TransportAddress(ipString: "127.0.0.1", port: 5349)!
        let streams = try await Self.streams(address, transport: .tls, loop: loop, seen: seen)
        try await loop.submit { streams.value.send(Self.binding, to: address, over: .tls) }.get()
        #expect(try await Poll.until(seconds: 5) { try await loop.submit { !seen.failures.isEmpty }.get() })
        #expect(try await loop.submit { seen.failures }.get() == ["TURN over TLS needs a TLS configuration"])
        try await loop.submit { streams.value.close() }.get()
    }
}
