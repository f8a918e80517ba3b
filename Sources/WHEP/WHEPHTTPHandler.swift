import NIOCore
import NIOHTTP1

/// One HTTP connection of the WHEP endpoint: gathers a request (body bounded), routes it (`WHEPRequest.parse`),
/// answers it, with the CORS headers on every reply.
final class WHEPHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let token: String?
    private let allowedOrigin: String
    private let respond: @Sendable (WHEPRequest) async -> WHEPReply
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false

    init(token: String?, allowedOrigin: String, respond: @escaping @Sendable (WHEPRequest) async -> WHEPReply) {
        self.token = token
        self.allowedOrigin = allowedOrigin
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body.removeAll(keepingCapacity: true)
            tooLarge = false
        case .body(var buffer):
            if tooLarge || body.count + buffer.readableBytes > WHEPRequest.maximumBodySize {
                tooLarge = true
                body.removeAll()
            } else {
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            }
        case .end:
            guard let head else { return }
            self.head = nil
            let parsed = WHEPRequest.parse(
                method: head.method.rawValue, uri: head.uri, contentType: head.headers.first(name: "Content-Type"),
                authorization: head.headers.first(name: "Authorization"), token: token, body: body,
                bodyTooLarge: tooLarge)
            body.removeAll()
            switch parsed {
            case .failure(let error):
                write(context: context, head: head, reply: error.reply)
            case .success(let request):
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                let eventLoop = context.eventLoop
                let respond = self.respond
                Task {
                    let reply = await respond(request)
                    eventLoop.execute {
                        let (handler, context) = loopBound.value
                        handler.write(context: context, head: head, reply: reply)
                    }
                }
            }
        }
    }

    /// A malformed request (NIO's error handler has answered 400) or a broken connection: close it now rather than
    /// at the idle timeout.
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func write(context: ChannelHandlerContext, head: HTTPRequestHead, reply: WHEPReply) {
        var headers = HTTPHeaders()
        for (name, value) in reply.headers { headers.add(name: name, value: value) }
        headers.add(name: "Access-Control-Allow-Origin", value: allowedOrigin)
        headers.add(name: "Access-Control-Expose-Headers", value: "Location, ETag, Accept-Post")
        if allowedOrigin != "*" { headers.add(name: "Vary", value: "Origin") }
        let bytes = Array(reply.body.utf8)
        headers.add(name: "Content-Length", value: String(bytes.count))
        headers.add(name: "Cache-Control", value: "no-store")
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: reply.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if !bytes.isEmpty, head.method != .HEAD {  // a reply to HEAD carries the headers only (RFC 9110 9.3.2)
            var buffer = context.channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
