import NIOCore
import NIOPosix

/// One bound UDP socket on SwiftNIO: hands every datagram it receives to a callback on its event loop, and sends
/// datagrams to a peer. NIO batches the writes flushed together into one `sendmmsg` on Linux.
///
/// Errors from the socket (ICMP port unreachable surfaces as `ECONNREFUSED`) are counted through `onError` and never
/// close the channel: an absent peer must not stop a live sender.
package final class DatagramEndpoint: Sendable {
    /// Datagrams read per `recvmmsg` call.
    package static let messagesPerRead = 16
    /// The largest datagram accepted whole (above any path MTU we send or accept).
    package static let maximumDatagramSize = 2048

    /// The channel; all reads and writes happen on its event loop.
    package let channel: Channel

    /// The event loop everything runs on.
    package var eventLoop: EventLoop { channel.eventLoop }

    /// The bound local address.
    package var localAddress: SocketAddress? { channel.localAddress }

    /// Binds a UDP socket.
    /// - Parameters:
    ///   - host: local address to bind.
    ///   - port: local port (0 picks one).
    ///   - eventLoop: the loop to run on.
    ///   - receiveBufferSize: SO_RCVBUF in bytes.
    ///   - onDatagram: called for every datagram, on `eventLoop`, with its source address and bytes.
    ///   - onError: called for every socket error, on `eventLoop`.
    /// - Throws: when the address cannot be bound.
    package convenience init(
        host: String, port: Int, eventLoop: EventLoop, receiveBufferSize: Int = 1 << 20,
        onDatagram: @escaping @Sendable (SocketAddress, inout ByteBuffer) -> Void,
        onError: @escaping @Sendable (Error) -> Void
    ) async throws {
        try await self.init(
            host: host, port: port, eventLoop: eventLoop, receiveBufferSize: receiveBufferSize,
            receivePacketInfo: false, onDatagramTo: { from, _, buffer in onDatagram(from, &buffer) }, onError: onError)
    }

    /// Binds a UDP socket that also reports the local address each datagram was sent to (IP_PKTINFO): on a
    /// wildcard socket, a full ICE agent pairs its checks by the host candidate they arrived on.
    /// - Parameters:
    ///   - host: local address to bind.
    ///   - port: local port (0 picks one).
    ///   - eventLoop: the loop to run on.
    ///   - receiveBufferSize: SO_RCVBUF in bytes.
    ///   - receivePacketInfo: whether to ask the kernel for each datagram's destination address.
    ///   - onDatagramTo: called for every datagram, on `eventLoop`, with its source, its destination (the local
    ///     address, port 0; nil without packet info) and its bytes.
    ///   - onError: called for every socket error, on `eventLoop`.
    /// - Throws: when the address cannot be bound.
    package init(
        host: String, port: Int, eventLoop: EventLoop, receiveBufferSize: Int = 1 << 20, receivePacketInfo: Bool,
        onDatagramTo: @escaping @Sendable (SocketAddress, SocketAddress?, inout ByteBuffer) -> Void,
        onError: @escaping @Sendable (Error) -> Void
    ) async throws {
        channel = try await DatagramBootstrap(group: eventLoop)
            .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBufferSize))
            .channelOption(.receivePacketInfo, value: receivePacketInfo)
            // Vector reads (recvmmsg) split the receive buffer evenly between the messages: give each message room for
            // a full datagram, or NIO truncates them (2048 bytes / 32 messages would leave 64 bytes each).
            .channelOption(.datagramVectorReadMessageCount, value: Self.messagesPerRead)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.messagesPerRead * Self.maximumDatagramSize))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                                        try channel.pipeline.syncOperations.addHandler(
                        DatagramHandler(onDatagram: onDatagramTo, onError: onError))
                }
            }
            .bind(host: host, port: port).get()
    }

    /// Queues a datagram; nothing leaves until `flush()`.
    /// - Parameters:
    ///   - bytes: the datagram (a slice sharing storage is fine).
    ///   - peer: the destination.
    package func write(_ bytes: ByteBuffer, to peer: SocketAddress) {
        channel.write(AddressedEnvelope(remoteAddress: peer, data: bytes), promise: nil)
    }

    /// Sends the queued datagrams (one `sendmmsg` for a batch).
    package func flush() {
        channel.flush()
    }

    /// Closes the socket.
    package func close() async {
        try? await channel.close()
    }
}

/// Forwards datagrams and errors to closures; keeps the channel open on errors.
final class DatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let onDatagram: (SocketAddress, SocketAddress?, inout ByteBuffer) -> Void
    private let onError: (Error) -> Void

    init(onDatagram: @escaping (SocketAddress, SocketAddress?, inout ByteBuffer) -> Void, onError: @escaping (Error) -> Void) {
        self.onDatagram = onDatagram
        self.onError = onError
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var envelope = unwrapInboundIn(data)
        onDatagram(envelope.remoteAddress, envelope.metadata?.packetInfo?.destinationAddress, &envelope.data)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        onError(error)
    }
}
