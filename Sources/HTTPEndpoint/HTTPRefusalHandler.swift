import NIOCore

/// The only handler of a connection refused past a connection limit: writes the 503 as soon as the connection is
/// active, drops whatever the client sends, and closes (`HTTPRefusal`: at the client's close, within 1 s). No HTTP
/// codec is set up and no slot of the limiter is taken: a refused connection costs its descriptor for a round trip.
package final class HTTPRefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private let bytes: [UInt8]
    private var sent = false

    /// Creates the handler.
    /// - Parameter bytes: the whole reply (`HTTPEndpointReply.wireBytes(extraHeaders:)`).
    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { send(context: context) }
    }

    package func channelActive(context: ChannelHandlerContext) {
        send(context: context)
        context.fireChannelActive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    package func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    private func send(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        HTTPRefusal.send(bytes, context: context)
    }
}
