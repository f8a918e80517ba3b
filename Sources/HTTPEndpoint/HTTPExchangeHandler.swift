import NIOCore
import NIOHTTP1

/// One reply of a small HTTP endpoint (the control endpoint, WHEP): status, headers in order, body.
package struct HTTPEndpointReply: Sendable {
    /// The status code.
    package var status: Int
    /// Header names and values, in order (`Content-Length` and `Connection` are added when written).
    package var headers: [(name: String, value: String)]
    /// The body.
    package var body: [UInt8]

    /// Creates a reply.
    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A request gathered whole: its head, its body (empty when over the limit), and whether the body was over the limit.
package struct HTTPEndpointRequest: Sendable {
    /// Method, target, version, headers.
    package var head: HTTPRequestHead
    /// The body (dropped when `bodyTooLarge`).
    package var body: [UInt8]
    /// Whether the body exceeded the endpoint's limit.
    package var bodyTooLarge: Bool
}

/// One HTTP/1.1 connection of a small endpoint, shared by the control endpoint and WHEP: gathers each request with
/// its body bounded, hands it to a pure `route` (a value to act on, or the error reply it deserves), runs `respond`
/// off the loop for a routed request, and writes the reply (`HEAD` gets the headers only). A malformed request (NIO's
/// error handler answered 400), a broken or an idle connection is closed at once.
package final class HTTPExchangeHandler<Routed: Sendable>: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias OutboundOut = HTTPServerResponsePart

    private let maximumBodySize: Int
    private let route: (HTTPEndpointRequest) -> Result<Routed, HTTPEndpointError>
    private let respond: @Sendable (Routed) async -> HTTPEndpointReply
    private let extraHeaders: [(name: String, value: String)]
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false

    /// Creates the handler for one connection.
    /// - Parameters:
    ///   - maximumBodySize: the largest body accepted; a larger one reaches `route` as `bodyTooLarge`.
    ///   - extraHeaders: headers added to every reply (CORS).
    ///   - route: checks a request (token, method, path, body) and turns it into what it asks for. On the loop.
    ///   - respond: acts on a routed request, off the loop.
    package init(
        maximumBodySize: Int, extraHeaders: [(name: String, value: String)] = [],
        route: @escaping (HTTPEndpointRequest) -> Result<Routed, HTTPEndpointError>,
        respond: @escaping @Sendable (Routed) async -> HTTPEndpointReply
    ) {
        self.maximumBodySize = maximumBodySize
        self.extraHeaders = extraHeaders
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
            let request = HTTPEndpointRequest(head: head, body: body, bodyTooLarge: tooLarge)
            body.removeAll()
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

    private func write(context: ChannelHandlerContext, head: HTTPRequestHead, reply: HTTPEndpointReply) {
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

/// A request `route` refused, with the reply it gets.
package struct HTTPEndpointError: Error, Sendable {
    /// The reply.
    package var reply: HTTPEndpointReply
    /// Creates the error.
    package init(_ reply: HTTPEndpointReply) { self.reply = reply }
}

/// Bearer-token checks shared by the endpoints.
package enum HTTPBearerToken {
    /// Compares two byte strings in time that depends only on their lengths (a token check must not leak a prefix).
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
