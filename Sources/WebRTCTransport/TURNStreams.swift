#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix
import STUN
import TURN
import Transport

/// The TCP and TLS connections to the TURN servers a publisher reaches so (`turn:...?transport=tcp`, `turns:`), for
/// a network that lets no UDP out: RFC 8656 section 12.5's framing on one connection per server, made when the first
/// message for it leaves and kept for the session.
///
/// ```
/// ICEGatherer / PeerTransport transmit over .tcp/.tls -> send(_:to:over:) -> the server's connection (queued until it connects)
/// the connection's bytes -> TURNStreamFramer -> onFrame(frame, server, transport) -> ICEGatherer / PeerTransport
/// a relayed selected pair -> sink(for:over:) -> UDPTransport.setPeer(_:channel:stream:) -> media as padded ChannelData
/// a connection refused, broken or timed out -> onFailure(server, transport, reason)
/// ```
/// TLS (`turns:`) verifies the certificate and the server's host name as the WHIP client does (`makeTLSHandler`).
/// Confined to its loop (the UDP transport's): create, use and close it there; the callbacks run there.
package final class TURNStreams {
    /// How a TLS connection is set up: the handler for the server's host name and URI, and the function that names
    /// what a TLS error on it means (nil for an error that is not TLS's).
    package typealias TLSHandlerFactory =
        @Sendable (_ host: String, _ name: String) throws -> (handler: any ChannelHandler, explain: (any Error) -> String?)

    /// One server reached over a stream.
    package struct Server: Hashable, Sendable {
        /// Its resolved address.
        package var address: TransportAddress
        /// TCP or TLS.
        package var transport: TURNClientConfiguration.Transport
        /// The host name its certificate must carry (TLS).
        package var host: String
        /// Its URI, for messages.
        package var name: String

        package init(address: TransportAddress, transport: TURNClientConfiguration.Transport, host: String, name: String) {
            self.address = address
            self.transport = transport
            self.host = host
            self.name = name
        }
    }

    /// How long connecting (and the TLS handshake) may take: 5 s, the gatherer's own limit per server.
    package static let connectTimeout: TimeAmount = .seconds(5)
    /// The most bytes queued on a connection before media is dropped instead (`MediaStreamSink`): 256 KiB, about
    /// 1.4 s of 1.5 Mbit/s. STUN and TURN messages are always queued.
    package static let highWaterMark = 256 * 1024
    /// The most messages held for a connection that is still being made.
    package static let maximumPending = 64

    /// Called with each whole frame (a STUN or ChannelData message) from a server.
    package var onFrame: (([UInt8], TransportAddress, TURNClientConfiguration.Transport) -> Void)?
    /// Called once per connection that failed: refused, timed out, TLS refused, closed by the server, or framing broken.
    package var onFailure: ((TransportAddress, TURNClientConfiguration.Transport, String) -> Void)?

    private let eventLoop: EventLoop
    private let makeTLSHandler: TLSHandlerFactory?
    private var servers: [Key: Server] = [:]
    private var connections: [Key: TURNStreamConnection] = [:]
    private var closed = false

    struct Key: Hashable {
        var address: TransportAddress
        var transport: TURNClientConfiguration.Transport
    }

    /// Creates the connections' owner; nothing connects until a message is sent.
    /// - Parameters:
    ///   - servers: The servers reached over TCP or TLS.
    ///   - eventLoop: The loop (the UDP transport's).
    ///   - makeTLSHandler: How TLS connections verify their server; nil refuses `turns:` servers (their messages fail).
    package init(servers: [Server], eventLoop: EventLoop, makeTLSHandler: TLSHandlerFactory?) {
        self.eventLoop = eventLoop
        self.makeTLSHandler = makeTLSHandler
        for server in servers where server.transport.isStream {
            self.servers[Key(address: server.address, transport: server.transport)] = server
        }
    }

    /// Adds a server learned later (from the WHIP endpoint's `Link` headers); one already known is kept as it is.
    /// - Parameter server: A server reached over TCP or TLS.
    package func add(_ server: Server) {
        eventLoop.preconditionInEventLoop()
        guard server.transport.isStream else { return }
        let key = Key(address: server.address, transport: server.transport)
        if servers[key] == nil { servers[key] = server }
    }

    /// Whether any server is reached over a stream.
    package var isEmpty: Bool { servers.isEmpty }

    /// Sends one message to a server over its connection (made now if there is none yet).
    /// - Parameters:
    ///   - bytes: A STUN or ChannelData message (framed as it is: TURN over TCP needs no length prefix).
    ///   - address: The server.
    ///   - transport: TCP or TLS.
    package func send(_ bytes: [UInt8], to address: TransportAddress, over transport: TURNClientConfiguration.Transport) {
        eventLoop.preconditionInEventLoop()
        guard !closed, let connection = connection(for: Key(address: address, transport: transport)) else { return }
        connection.send(bytes)
    }

    /// The connection media to `address` goes over when the selected pair is relayed by that server.
    /// - Parameters:
    ///   - address: The server.
    ///   - transport: TCP or TLS.
    /// - Returns: The sink, or nil for a server not reached over a stream.
    package func sink(for address: TransportAddress, over transport: TURNClientConfiguration.Transport) -> (any MediaStreamSink)? {
        eventLoop.preconditionInEventLoop()
        return connection(for: Key(address: address, transport: transport))
    }

    /// Closes every connection (after what was sent, a Refresh with lifetime 0 among it, is flushed). Idempotent.
    package func close() {
        eventLoop.preconditionInEventLoop()
        guard !closed else { return }
        closed = true
        for connection in connections.values { connection.close() }
        connections.removeAll()
    }

    private func connection(for key: Key) -> TURNStreamConnection? {
        if let existing = connections[key] { return existing }
        guard let server = servers[key] else { return nil }
        let connection = TURNStreamConnection(server: server, eventLoop: eventLoop)
        connections[key] = connection
        connection.onFrame = { [weak self] frame in self?.onFrame?(frame, key.address, key.transport) }
        connection.onFailure = { [weak self] reason in self?.onFailure?(key.address, key.transport, reason) }
        connection.connect(makeTLSHandler: makeTLSHandler)
        return connection
    }
}

extension UDPTransport {
    /// One message of ICE, DTLS or TURN: a datagram on the socket, or, for a TURN server reached over TCP or TLS, a
    /// frame on the connection `streams` keeps to it.
    package func send(
        _ bytes: [UInt8], to destination: TransportAddress, over transport: TURNClientConfiguration.Transport,
        streams: TURNStreams?
    ) {
        if transport.isStream {
            streams?.send(bytes, to: destination, over: transport)
        } else {
            sendDatagram(bytes, to: SocketAddress(destination))
        }
    }
}

/// One TCP or TLS connection to a TURN server.
final class TURNStreamConnection: MediaStreamSink {
    let server: TURNStreams.Server
    let eventLoop: EventLoop
    var onFrame: (([UInt8]) -> Void)?
    var onFailure: ((String) -> Void)?
    private var channel: Channel?
    private var pending: [[UInt8]] = []
    private var failed = false
    private var closed = false
    /// Names what a TLS error means (TLS connections only).
    private var explain: ((any Error) -> String?)?

    init(server: TURNStreams.Server, eventLoop: EventLoop) {
        self.server = server
        self.eventLoop = eventLoop
    }

    func connect(makeTLSHandler: TURNStreams.TLSHandlerFactory?) {
        let server = self.server
        let useTLS = server.transport == .tls
        let loop = eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        if useTLS && makeTLSHandler == nil {
            loop.execute { bound.value.fail("TURN over TLS needs a TLS configuration") }
            return
        }
        let target = SocketAddress(server.address)
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(TURNStreams.connectTimeout)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelOption(.writeBufferWaterMark, value: .init(low: TURNStreams.highWaterMark / 2, high: TURNStreams.highWaterMark))
            .channelInitializer { channel in
                do {
                    let connection = bound.value
                    if useTLS, let makeTLSHandler {
                        let (handler, explain) = try makeTLSHandler(server.host, server.name)
                        connection.explain = explain
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    try channel.pipeline.syncOperations.addHandler(FrameReader(connection: connection))
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
        bootstrap.connect(to: target).whenComplete { result in
            let connection = bound.value
            switch result {
            case .success(let channel):
                guard !connection.closed, !connection.failed else {
                    channel.close(promise: nil)
                    return
                }
                connection.channel = channel
                for bytes in connection.pending { connection.write(bytes) }
                connection.pending.removeAll()
                channel.flush()
            case .failure(let error):
                connection.fail(connection.describe(error, connecting: true))
            }
        }
    }

    func send(_ bytes: [UInt8]) {
        guard !failed, !closed else { return }
        guard let channel else {
            if pending.count < TURNStreams.maximumPending { pending.append(bytes) }
            return
        }
        write(bytes)
        channel.flush()
    }

    private func write(_ bytes: [UInt8]) {
        guard let channel else { return }
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        channel.write(buffer, promise: nil)
    }

    // MediaStreamSink: media only while the connection has room.
    func write(_ frame: ByteBuffer) -> Bool {
        guard let channel, !failed, !closed, channel.isWritable else { return false }
        channel.write(frame, promise: nil)
        return true
    }

    func flush() { channel?.flush() }

    func close() {
        guard !closed else { return }
        closed = true
        pending.removeAll()
        channel?.close(promise: nil)
        channel = nil
    }

    func received(_ frame: [UInt8]) {
        guard !failed, !closed else { return }
        onFrame?(frame)
    }

    func fail(_ reason: String) {
        guard !failed, !closed else { return }
        failed = true
        pending.removeAll()
        channel?.close(promise: nil)
        channel = nil
        onFailure?(reason)
    }

    /// Whether the connection is made (errors before that are failures to connect).
    var isConnected: Bool { channel != nil }

    func describe(_ error: any Error, connecting: Bool) -> String {
        if let explained = explain?(error) { return explained }
        let kind = server.transport.rawValue.uppercased()
        if case ChannelError.connectTimeout? = error as? ChannelError {
            return "no \(kind) connection to \(server.address) within \(TURNStreams.connectTimeout.nanoseconds / 1_000_000_000) s"
        }
        let reason: String
        if let io = error as? IOError {
            reason = String(cString: strerror(io.errnoCode))
        } else if let connect = error as? NIOConnectionError {
            reason = connect.connectionErrors.first.map { "\($0.error)" } ?? "no address"
        } else {
            reason = "\(error)"
        }
        return connecting
            ? "cannot connect over \(kind) to \(server.address): \(reason)"
            : "the \(kind) connection to \(server.address) failed: \(reason)"
    }
}

/// Cuts the connection's bytes into frames and reports the end of the connection.
private final class FrameReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let connection: TURNStreamConnection
    private var framer = TURNStreamFramer()

    init(connection: TURNStreamConnection) { self.connection = connection }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        framer.append(buffer.readableBytesView)
        do {
            while let frame = try framer.nextFrame() { connection.received(frame) }
        } catch {
            connection.fail("the server's stream broke: \(error)")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.fail("the server closed the \(connection.server.transport.rawValue.uppercased()) connection")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connection.fail(connection.describe(error, connecting: !connection.isConnected))
        context.close(promise: nil)
    }
}
