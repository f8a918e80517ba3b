import NIOCore
import NIOPosix

/// One bound UDP socket on SwiftNIO: hands every datagram it receives to a callback on its event loop, and sends
/// datagrams to a peer. NIO batches the writes flushed together into one `sendmmsg` on Linux.
///
/// Errors from the socket (ICMP port unreachable surfaces as `ECONNREFUSED`) are counted through `onError`: an absent
/// peer must not stop a live sender. NIO closes a datagram socket on most send errors (all but `EMSGSIZE` and
/// `EHOSTUNREACH`: a firewall's `EPERM`, `ENETUNREACH` while an interface is down, `EACCES` for a broadcast
/// destination); the endpoint then binds the same address and port again (at once, then every second until it
/// succeeds) and carries on, reporting each restart through `onRestart`. Datagrams written while it is down are lost,
/// as on a network that drops them.
package final class DatagramEndpoint: Sendable {
    /// Datagrams read per `recvmmsg` call.
    package static let messagesPerRead = 16
    /// The largest datagram accepted whole (above any path MTU we send or accept).
    package static let maximumDatagramSize = 2048

    /// How long to wait before binding again after a failed attempt.
    package static let rebindRetryInterval = TimeAmount.seconds(1)

    /// The event loop everything runs on.
    package let eventLoop: EventLoop
    /// The bound local address (kept across restarts).
    package let localAddress: SocketAddress?
    /// The current channel, and whether the owner closed the endpoint; touched only on the loop.
    private let state: NIOLoopBoundBox<(channel: Channel, closed: Bool)>
    private let bind: @Sendable (SocketAddress) -> EventLoopFuture<Channel>
    private let onRestart: @Sendable () -> Void

    /// The current channel (the socket, until NIO closes it on a send error). On the loop.
    package var channel: Channel { state.value.channel }

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
        onError: @escaping @Sendable (Error) -> Void, onRestart: @escaping @Sendable () -> Void = {}
    ) async throws {
        try await self.init(
            host: host, port: port, eventLoop: eventLoop, receiveBufferSize: receiveBufferSize,
            receivePacketInfo: false, onDatagramTo: { from, _, buffer in onDatagram(from, &buffer) }, onError: onError,
            onRestart: onRestart)
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
    ///   - onRestart: called on `eventLoop` each time the socket was bound again after NIO closed it.
    /// - Throws: when the address cannot be bound.
    package init(
        host: String, port: Int, eventLoop: EventLoop, receiveBufferSize: Int = 1 << 20, receivePacketInfo: Bool,
        onDatagramTo: @escaping @Sendable (SocketAddress, SocketAddress?, inout ByteBuffer) -> Void,
        onError: @escaping @Sendable (Error) -> Void, onRestart: @escaping @Sendable () -> Void = {}
    ) async throws {
        let makeBootstrap: @Sendable () -> DatagramBootstrap = {
            DatagramBootstrap(group: eventLoop)
                .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBufferSize))
                .channelOption(.receivePacketInfo, value: receivePacketInfo)
                // Vector reads (recvmmsg) split the receive buffer evenly between the messages: give each message room
                // for a full datagram, or NIO truncates them (2048 bytes / 32 messages would leave 64 bytes each).
                .channelOption(.datagramVectorReadMessageCount, value: Self.messagesPerRead)
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.messagesPerRead * Self.maximumDatagramSize))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            DatagramHandler(onDatagram: onDatagramTo, onError: onError))
                    }
                }
        }
        let first = try await makeBootstrap().bind(host: host, port: port).get()
        self.eventLoop = eventLoop
        self.localAddress = first.localAddress
        self.bind = { address in makeBootstrap().bind(to: address) }
        self.onRestart = onRestart
        state = try await eventLoop.submit {
            NIOLoopBoundBox((channel: first, closed: false), eventLoop: eventLoop)
        }.get()
        try await eventLoop.submit { self.watch(first) }.get()
    }

    /// Binds again when `channel` closes without the owner asking. On the loop.
    private func watch(_ channel: Channel) {
        channel.closeFuture.assumeIsolated().whenComplete { [self] _ in
            guard !state.value.closed, state.value.channel === channel else { return }
            rebind()
        }
    }

    private func rebind() {
        guard !state.value.closed, let address = localAddress else { return }
        bind(address).assumeIsolated().whenComplete { [self] result in
            switch result {
            case .success(let channel):
                guard !state.value.closed else {
                    channel.close(promise: nil)
                    return
                }
                state.value.channel = channel
                watch(channel)
                onRestart()
            case .failure:
                eventLoop.assumeIsolated().scheduleTask(in: Self.rebindRetryInterval) { [self] in rebind() }
            }
        }
    }

    /// Queues a datagram; nothing leaves until `flush()`.
    /// - Parameters:
    ///   - bytes: the datagram (a slice sharing storage is fine).
    ///   - peer: the destination.
    package func write(_ bytes: ByteBuffer, to peer: SocketAddress) {
        channel.write(AddressedEnvelope(remoteAddress: peer, data: bytes), promise: nil)
    }

    /// Queues one write that the kernel cuts into datagrams of `segmentSize` bytes, the last possibly shorter (UDP
    /// GSO, Linux only: the caller checks `System.supportsUDPSegmentationOffload`); nothing leaves until `flush()`.
    /// - Parameters:
    ///   - bytes: the datagrams back to back.
    ///   - peer: the destination of all of them.
    ///   - segmentSize: the length of each datagram but the last (at most 65,535).
    ///   - promise: completed when the write went through or failed, or nil.
    /// - Note: NIO sends metadata's ECN state with it (an `IP_TOS` of 0 here): a DSCP set on the socket would not
    ///   apply to these writes.
    package func write(_ bytes: ByteBuffer, to peer: SocketAddress, segmentSize: Int, promise: EventLoopPromise<Void>?) {
        let metadata = AddressedEnvelope<ByteBuffer>.Metadata(
            ecnState: .transportNotCapable, packetInfo: nil, segmentSize: segmentSize)
        channel.write(AddressedEnvelope(remoteAddress: peer, data: bytes, metadata: metadata), promise: promise)
    }

    /// Sends the queued datagrams (one `sendmmsg` for a batch).
    package func flush() {
        channel.flush()
    }

    /// Closes the socket for good (no restart). On the loop.
    package func closeNow() {
        state.value.closed = true
        state.value.channel.close(promise: nil)
    }

    /// Closes the socket for good (no restart), from anywhere.
    package func close() async {
        try? await eventLoop.submit { self.closeNow() }.get()
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
