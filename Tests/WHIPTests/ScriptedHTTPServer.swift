import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A real HTTP/1.1 server on loopback (NIO), answering each request with a scripted reply: the WHIP client's tests
/// talk to it over TCP exactly as to an endpoint.
final class ScriptedHTTPServer: Sendable {
    /// One request as the server saw it.
    struct Recorded: Sendable {
        var method: String
        var uri: String
        var headers: [(name: String, value: String)]
        var body: String

        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    }

    /// A reply.
    struct Reply: Sendable {
        var status: Int
        var headers: [(String, String)] = []
        var body: String = ""
    }

    private let channel: Channel
    private final class Log: Sendable {
        let entries = Mutex<[Recorded]>([])
    }

    private let log = Log()

    /// The port.
    var port: Int { channel.localAddress?.port ?? 0 }
    /// Whether it speaks HTTPS.
    let isTLS: Bool
    /// `http://127.0.0.1:PORT` (`https://` with TLS).
    var base: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }
    /// What arrived so far.
    var requests: [Recorded] { log.entries.withLock { $0 } }

    /// Starts a server.
    /// - Parameters:
    ///   - tls: a PEM certificate (chain) and key: serve HTTPS with them (the handshake's outcome, whatever the
    ///     client decides, is not a test failure here).
    ///   - route: the reply for each request.
    init(tls: (certificate: String, key: String)? = nil, route: @escaping @Sendable (Recorded) -> Reply) async throws {
        let log = self.log
        let context = try tls.map { tls in
            try NIOSSLContext(configuration: .makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(tls.certificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: tls.key, format: .pem))))
        }
        isTLS = tls != nil
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(ScriptedHandler { request in
                        log.entries.withLock { $0.append(request) }
                        return route(request)
                    })
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    func close() async {
        try? await channel.close()
    }
}

final class ScriptedHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let route: (ScriptedHTTPServer.Recorded) -> ScriptedHTTPServer.Reply
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(route: @escaping (ScriptedHTTPServer.Recorded) -> ScriptedHTTPServer.Reply) { self.route = route }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var part): body.writeBuffer(&part)
        case .end:
            guard let head else { return }
            let request = ScriptedHTTPServer.Recorded(
                method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                body: body.readString(length: body.readableBytes) ?? "")
            let reply = route(request)
            var headers = HTTPHeaders()
            for (name, value) in reply.headers { headers.add(name: name, value: value) }
            headers.replaceOrAdd(name: "Content-Length", value: String(reply.body.utf8.count))
            headers.replaceOrAdd(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(
                version: .http1_1, status: HTTPResponseStatus(statusCode: reply.status), headers: headers))), promise: nil)
            if !reply.body.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: reply.body)))), promise: nil)
            }
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
