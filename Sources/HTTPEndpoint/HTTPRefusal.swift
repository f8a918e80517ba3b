import NIOCore

/// Sends a reply that ends a connection (a 503 past a connection limit, a 431 for an oversized head) the way RFC 9112
/// 9.6 asks: write it, half-close (our FIN after it), keep reading and dropping what the client still sends until it
/// closes too, and close fully after `linger` at the latest. Closing at once with unread input makes the kernel answer
/// with a reset, and a client may lose the reply to it.
package enum HTTPRefusal {
    /// How long a refused connection may stay half-closed, waiting for the client's close: a client reads a reply of
    /// a few hundred bytes and closes within a round trip; 1 s bounds what a client that never closes can hold.
    package static let linger = TimeAmount.seconds(1)

    /// Writes `bytes` and closes as described. The caller drops what is read from then on.
    /// - Parameters:
    ///   - bytes: the whole reply.
    ///   - context: the refusing handler's context (on the channel's loop).
    package static func send(_ bytes: [UInt8], context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        let channel = context.channel
        context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
            channel.eventLoop.scheduleTask(in: linger) { channel.close(promise: nil) }
        }
    }
}
