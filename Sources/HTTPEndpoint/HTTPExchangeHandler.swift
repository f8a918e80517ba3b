import Logging
import NIOCore
import NIOHTTP1

/// One HTTP/1.1 connection of a small endpoint, shared by the control endpoint and WHEP: gathers each request with
/// its body bounded, hands it to a pure `route` (a value to act on, or the error reply it deserves), runs `respond`
/// off the loop for a routed request, and writes the reply (`HEAD` gets the headers only). An HTTP/1.1 request
/// without exactly one `Host` gets 400 (RFC 9112 3.2). A malformed request (NIO's error handler answered 400), a
/// broken or an idle connection is closed at once. Each whole request is announced to `HTTPConnectionGuard`
/// (`HTTPRequestCompletedEvent`), which stops its deadline.
package final class HTTPExchangeHandler<Routed: Sendable>: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias OutboundOut = HTTPServerResponsePart

    private let maximumBodySize: Int
    private let route: (HTTPEndpointRequest) -> Result<Routed, HTTPEndpointError>
    private let respond: @Sendable (Routed) async -> HTTPEndpointReply
    private let extraHeaders: [(name: String, value: String)]
    private let errorReply: @Sendable (Int, String) -> HTTPEndpointReply
    private let logger: Logger
    private let remote: String
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false

    /// Creates the handler for one connection.
    /// - Parameters:
    ///   - maximumBodySize: the largest body accepted; a larger one reaches `route` as `bodyTooLarge`.
    ///   - extraHeaders: headers added to every reply (CORS).
    ///   - errorReply: words an error reply of the handler's own (a missing `Host`) in the endpoint's format.
    ///   - route: checks a request (token, method, path, body) and turns it into what it asks for. On the loop.
    ///   - respond: acts on a routed request, off the loop.
    ///   - logger: where each reply is logged: a refusal (4xx, 5xx) at `notice`, others at `debug`; the method, the
    ///     path without its query, the status and the client's address, never a header (tokens) or a body.
    ///   - remote: the client's address, for the log.
    package init(
        maximumBodySize: Int, extraHeaders: [(name: String, value: String)] = [],
        errorReply: @escaping @Sendable (Int, String) -> HTTPEndpointReply,
        route: @escaping (HTTPEndpointRequest) -> Result<Routed, HTTPEndpointError>,
        respond: @escaping @Sendable (Routed) async -> HTTPEndpointReply,
        logger: Logger = Logger(label: "rtc-h264.http"), remote: String = "unknown"
    ) {
        self.logger = logger
        self.remote = remote
        self.maximumBodySize = maximumBodySize
        self.extraHeaders = extraHeaders
        self.errorReply = errorReply
        self.route = route
        self.respond = respond
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body.removeAll(keepingCapacity: true)
            tooLarge = false
        case .body(var buffer):
            if tooLarge || body.count + buffer.readableBytes > maximumBodySize {
                tooLarge = true
                body.removeAll()
            } else {
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            }
        case .end:
            guard let head else { return }
            self.head = nil
            context.triggerUserOutboundEvent(HTTPRequestCompletedEvent(), promise: nil)
            let request = HTTPEndpointRequest(head: head, body: body, bodyTooLarge: tooLarge)
            body.removeAll()
            if let problem = Self.hostProblem(head) {
                write(context: context, head: head, reply: errorReply(400, problem))
                return
            }
            switch route(request) {
            case .failure(let error):
                write(context: context, head: head, reply: error.reply)
            case .success(let routed):
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                let eventLoop = context.eventLoop
                let respond = self.respond
                Task {
                    let reply = await respond(routed)
                    eventLoop.execute {
                        let (handler, context) = loopBound.value
                        handler.write(context: context, head: head, reply: reply)
                    }
                }
            }
        }
    }

    package func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)  // an idle connection holds nothing for ever
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Why a request's `Host` is refused, or nil: RFC 9112 3.2, "A server MUST respond with a 400 (Bad Request)
    /// status code to any HTTP/1.1 request message that lacks a Host header field and to any request message that
    /// contains more than one Host header field line". HTTP/1.0 needs none.
    static func hostProblem(_ head: HTTPRequestHead) -> String? {
        let count = head.headers["Host"].count
        if count > 1 { return "more than one Host header (RFC 9112 3.2): send one" }
        if count == 0, head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1) {
            return "an HTTP/1.1 request must carry a Host header (RFC 9112 3.2), e.g. Host: 127.0.0.1:8080"
        }
        return nil
    }

    /// The path as logged: no query or fragment, and only its first segment (`/whep/...`: a session id lets its
    /// holder end that session, so it stays out of logs).
    static func loggedPath(_ uri: String) -> String {
        let path = uri.prefix { $0 != "?" && $0 != "#" }
        let segments = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard segments.count > 1 else { return String(path.prefix(64)) }
        let first = segments[1].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        return "/" + first[0].prefix(64) + (first.count > 1 ? "/..." : "")
    }

    private func write(context: ChannelHandlerContext, head: HTTPRequestHead, reply: HTTPEndpointReply) {
        let level: Logger.Level = reply.status >= 400 ? .notice : .debug
        if logger.logLevel <= level {
            let path = Self.loggedPath(head.uri)
            logger.log(level: level, reply.status >= 400 ? "request refused" : "request answered", metadata: [
                "method": "\(head.method.rawValue)", "path": "\(path)", "status": "\(reply.status)", "remote": "\(remote)",
            ])
        }
        var headers = HTTPHeaders()
        for (name, value) in reply.headers { headers.add(name: name, value: value) }
        for (name, value) in extraHeaders { headers.add(name: name, value: value) }
        headers.add(name: "Content-Length", value: String(reply.body.count))
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: reply.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if !reply.body.isEmpty, head.method != .HEAD {  // a reply to HEAD carries the headers only (RFC 9110 9.3.2)
            var buffer = context.channel.allocator.buffer(capacity: reply.body.count)
            buffer.writeBytes(reply.body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
