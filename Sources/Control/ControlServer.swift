#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Codec
import NIOCore
import NIOHTTP1
import NIOPosix

/// The control endpoint: a small HTTP/JSON API on a loopback address, scriptable with curl.
///
/// | method and path | body | effect |
/// |---|---|---|
/// | `POST /bitrate` | `{"bitrate":"800k"}`, `{"bitrate":800000}` or `800k` | sets the operator's bitrate |
/// | `POST /framerate` | `{"fps":15}` or `15` | sets the frame rate |
/// | `POST /keyframe` | none | asks for a keyframe |
/// | `GET /stats` | none | the sender's statistics (WebRTC `outbound-rtp` names) |
///
/// A bad command gets a 4xx reply with `{"ok":false,"error":"..."}` and changes nothing. Built on NIOHTTP1.
public final class ControlServer: Sendable {
    /// The largest request body accepted.
    public static let maximumBodySize = 4096

    private let channel: Channel

    /// The address the server listens on.
    public var localAddress: SocketAddress? { channel.localAddress }

    /// Starts a server.
    /// - Parameters:
    ///   - host: the address to bind; loopback unless the operator says otherwise.
    ///   - port: the port (0 picks a free one).
    ///   - group: the event loop group to run on.
    ///   - respond: called for every well-formed command; its future gives the reply.
    /// - Throws: when the address cannot be bound.
    public init(
        host: String, port: Int, group: EventLoopGroup,
        respond: @escaping @Sendable (ControlCommand) -> EventLoopFuture<ControlReply>
    ) async throws {
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(ControlHTTPHandler(respond: respond))
                }
            }
            .bind(host: host, port: port).get()
    }

    /// Stops listening.
    public func close() async {
        try? await channel.close()
    }

    /// Turns an HTTP request into a command, or into the error reply it deserves. Pure, for tests.
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - path: the request path (query ignored).
    ///   - body: the request body.
    /// - Returns: the command, or the reply explaining why there is none.
    public static func command(method: String, path: String, body: [UInt8]) -> Result<ControlCommand, ControlReplyError> {
        let route = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        let routes: [String: String] = ["/bitrate": "POST", "/framerate": "POST", "/keyframe": "POST", "/stats": "GET"]
        guard let expectedMethod = routes[route] else {
            return .failure(ControlReplyError(.error(404, "unknown path \(route); use /bitrate, /framerate, /keyframe or /stats")))
        }
        guard method == expectedMethod else {
            return .failure(ControlReplyError(.error(405, "\(route) takes \(expectedMethod)")))
        }
        switch route {
        case "/keyframe": return .success(.requestKeyframe)
        case "/stats": return .success(.stats)
        case "/bitrate":
            return value(in: body, key: "bitrate").flatMap { text in
                Result { try RateParser.bitrate(text) }
                    .map { ControlCommand.setBitrate($0) }
                    .mapError { ControlReplyError(.error(400, "bitrate: \($0)")) }
            }
        default:
            return value(in: body, key: "fps").flatMap { text in
                Result { try RateParser.frameRate(text) }
                    .map { ControlCommand.setFrameRate($0) }
                    .mapError { ControlReplyError(.error(400, "framerate: \($0)")) }
            }
        }
    }

    private static func value(in body: [UInt8], key: String) -> Result<String, ControlReplyError> {
        let text = String(decoding: body, as: UTF8.self).trimmingWhitespace()
        guard !text.isEmpty else { return .failure(ControlReplyError(.error(400, "missing body: send {\"\(key)\": ...}"))) }
        guard text.first == "{" else { return .success(text) }
        guard let object = try? JSONDecoder().decode([String: JSONScalar].self, from: Data(body)) else {
            return .failure(ControlReplyError(.error(400, "body is not a JSON object of strings and numbers")))
        }
        guard let value = object[key] else {
            return .failure(ControlReplyError(.error(400, "missing \"\(key)\" in the JSON body")))
        }
        return .success(value.text)
    }
}

/// A reply that ends a control request early (unknown path, bad value).
public struct ControlReplyError: Error, Sendable, Equatable {
    /// The reply to send.
    public var reply: ControlReply
    init(_ reply: ControlReply) { self.reply = reply }
}

/// A JSON string or number, kept as text for `RateParser`.
struct JSONScalar: Decodable {
    var text: String
    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else if let integer = try? container.decode(Int.self) {
            text = String(integer)
        } else {
            text = String(try container.decode(Double.self))
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        String(self.drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}

/// One HTTP connection of the control endpoint: gathers a request, answers it.
final class ControlHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let respond: @Sendable (ControlCommand) -> EventLoopFuture<ControlReply>
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false

    init(respond: @escaping @Sendable (ControlCommand) -> EventLoopFuture<ControlReply>) {
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body.removeAll(keepingCapacity: true)
            tooLarge = false
        case .body(var buffer):
            if body.count + buffer.readableBytes > ControlServer.maximumBodySize {
                tooLarge = true
            } else {
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            }
        case .end:
            guard let head else { return }
            self.head = nil
            if tooLarge {
                write(context: context, head: head, reply: .error(413, "body over \(ControlServer.maximumBodySize) bytes"))
                return
            }
            switch ControlServer.command(method: head.method.rawValue, path: head.uri, body: body) {
            case .failure(let e):
                write(context: context, head: head, reply: e.reply)
            case .success(let command):
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                respond(command).hop(to: context.eventLoop).whenComplete { result in
                    let (handler, context) = loopBound.value
                    switch result {
                    case .success(let reply): handler.write(context: context, head: head, reply: reply)
                    case .failure(let error): handler.write(context: context, head: head, reply: .error(500, "\(error)"))
                    }
                }
            }
        }
    }

    private func write(context: ChannelHandlerContext, head: HTTPRequestHead, reply: ControlReply) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(reply.body.utf8.count + 1))
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: reply.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        var buffer = context.channel.allocator.buffer(capacity: reply.body.utf8.count + 1)
        buffer.writeString(reply.body)
        buffer.writeString("\n")
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
