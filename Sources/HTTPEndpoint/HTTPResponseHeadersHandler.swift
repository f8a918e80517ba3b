import NIOCore
import NIOHTTP1

/// Adds the headers every reply of an endpoint carries to each response head, NIO's own `400` for a malformed
/// request included: sits between the response encoder and everything that writes responses.
package final class HTTPResponseHeadersHandler: ChannelOutboundHandler, RemovableChannelHandler {
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    /// `X-Content-Type-Options: nosniff`: a browser must not guess another type than the one declared (an error's
    /// text/plain rendered as HTML). Fetch standard, "X-Content-Type-Options" header; issue 20, item 8.
    package static let headers: [(name: String, value: String)] = [("X-Content-Type-Options", "nosniff")]

    /// Creates the handler.
    package init() {}

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        for (name, value) in Self.headers where !head.headers.contains(name: name) {
            head.headers.add(name: name, value: value)
        }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
