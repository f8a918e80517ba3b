import NIOCore

/// The first handler of an admitted connection, before the HTTP codec, on its bytes: holds the connection's place
/// in the `HTTPConnectionLimiter` until it closes, closes it when a request is not complete within the request
/// timeout (counted from the accept, then from each request's first byte: a drip of a byte every few seconds is
/// never idle, and the idle timeout alone kept it for ever), and answers `431` and closes when a request head grows
/// past the head limit before its empty line (NIO's decoder would keep up to 80 KiB of it; a long request line has no
/// limit there at all). Issue 20, item 3.
package final class HTTPConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    /// Where the connection is in its current request.
    private enum Phase {
        /// Between requests: no byte of the next one yet, no deadline.
        case idle
        /// Reading a head: its bytes so far, and how far the end-of-head matcher got.
        case head(bytes: Int, matched: EndOfHead)
        /// Past the head's empty line, until `HTTPRequestCompletedEvent` (the body is bounded by the exchange).
        case body
        /// Refused: the reply is written and the connection closing.
        case closing
    }

    /// How much of an empty line (the end of a head: CRLF CRLF, or bare LFs, which NIO's parser also takes) was seen.
    private enum EndOfHead {
        /// Inside a line.
        case inLine
        /// Just after a line feed: a line starts.
        case lineStart
        /// A carriage return at the start of a line.
        case carriageReturn
    }

    private let limits: HTTPEndpointLimits
    private let limiter: HTTPConnectionLimiter
    private let address: String
    private let errorReply: @Sendable (Int, String) -> HTTPEndpointReply
    private var phase = Phase.head(bytes: 0, matched: .inLine)
    private var deadline: Scheduled<Void>?
    private var admitted = true

    /// Creates the guard of a connection `limiter` has admitted.
    /// - Parameters:
    ///   - limits: the request timeout and the head limit.
    ///   - limiter: the limiter that admitted the connection; released when the connection closes.
    ///   - address: the address it was admitted with.
    ///   - errorReply: words an error reply in the endpoint's format (status, message).
    package init(
        limits: HTTPEndpointLimits, limiter: HTTPConnectionLimiter, address: String,
        errorReply: @escaping @Sendable (Int, String) -> HTTPEndpointReply
    ) {
        self.limits = limits
        self.limiter = limiter
        self.address = address
        self.errorReply = errorReply
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        armDeadline(context: context)  // from the accept: a connection that sends nothing is no better than a drip
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        release()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        release()
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        switch phase {
        case .closing:
            return  // refused: what follows is dropped
        case .body:
            break
        case .idle:
            phase = .head(bytes: 0, matched: .inLine)
            armDeadline(context: context)
            fallthrough
        case .head:
            guard case .head(var bytes, var matched) = phase else { break }
            var ended = false
            for byte in buffer.readableBytesView {
                bytes += 1
                switch (byte, matched) {
                case (UInt8(ascii: "\n"), .lineStart), (UInt8(ascii: "\n"), .carriageReturn): ended = true
                case (UInt8(ascii: "\n"), _): matched = .lineStart
                case (UInt8(ascii: "\r"), .lineStart): matched = .carriageReturn
                default: matched = .inLine
                }
                if ended || bytes > limits.maximumHeadSize { break }
            }
            if !ended && bytes > limits.maximumHeadSize {
                refuse(context: context, errorReply(
                    431, "request head over \(limits.maximumHeadSize) bytes (request line and headers); send less"))
                return
            }
            phase = ended ? .body : .head(bytes: bytes, matched: matched)
        }
        context.fireChannelRead(data)
    }

    package func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is HTTPRequestCompletedEvent else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        if case .closing = phase {} else { phase = .idle }
        deadline?.cancel()
        deadline = nil
        promise?.succeed()
    }

    /// Starts the current request's deadline (unless one runs).
    private func armDeadline(context: ChannelHandlerContext) {
        guard deadline == nil else { return }
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: limits.requestTimeout) {
            channel.close(promise: nil)  // mid-request: no reply can be framed reliably, the client learns by the close
        }
    }

    /// Writes a refusal straight to the socket and closes (`HTTPRefusal`).
    private func refuse(context: ChannelHandlerContext, _ reply: HTTPEndpointReply) {
        phase = .closing
        deadline?.cancel()
        deadline = nil
        HTTPRefusal.send(reply.wireBytes(), context: context)
    }

    /// Gives the connection's place back, once.
    private func release() {
        guard admitted else { return }
        admitted = false
        limiter.release(address)
    }
}
