import NIOCore
import NIOHTTP1
import NIOPosix

/// The client side of the control endpoint, used by `rtc-h264 control`: one HTTP/1.1 request, one reply.
public enum ControlClient {
    /// Why a control request failed before a reply arrived.
    public enum Error: Swift.Error, CustomStringConvertible {
        /// The connection closed before a complete reply.
        case noReply

        public var description: String { "the control endpoint closed the connection without a reply" }
    }

    /// Sends one command and waits for the reply.
    /// - Parameters:
    ///   - command: the command.
    ///   - host: the control endpoint's address.
    ///   - port: its port.
    ///   - token: the bearer token the endpoint requires, if any (sent, never printed).
    /// - Returns: the reply's status and body.
    /// - Throws: connection errors, or `Error.noReply`.
    public static func send(_ command: ControlCommand, host: String, port: Int, token: String? = nil) async throws -> ControlReply {
        let group = MultiThreadedEventLoopGroup.singleton
        let (method, path, body): (HTTPMethod, String, String) = switch command {
        case .setBitrate(let bps): (.POST, "/bitrate", "{\"bitrate\":\(bps)}")
        case .setFrameRate(let fps): (.POST, "/framerate", "{\"fps\":\(fps)}")
        case .setDegradationPreference(let preference): (.POST, "/degradation-preference", "{\"preference\":\"\(preference)\"}")
        case .requestKeyframe: (.POST, "/keyframe", "")
        case .stats: (.GET, "/stats", "")
        }
        let promise = group.next().makePromise(of: ControlReply.self)
        let channel: Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(5))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(ReplyCollector(promise: promise))
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            promise.fail(error)  // connection refused: the promise is never left unfulfilled
            throw error
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "\(host):\(port)")
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        headers.add(name: "Connection", value: "close")
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        let head = HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if !body.isEmpty {
            channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil)
        }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        defer { channel.close(promise: nil) }
        return try await promise.futureResult.get()
    }
}

/// Collects one HTTP response.
final class ReplyCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<ControlReply>
    private var status = 0
    private var body = ByteBuffer()
    private var completed = false

    init(promise: EventLoopPromise<ControlReply>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = Int(head.status.code)
        case .body(var part): body.writeBuffer(&part)
        case .end:
            let text = body.readString(length: body.readableBytes) ?? ""
            guard !completed else { return }
            completed = true
            promise.succeed(ControlReply(status: status, body: text.trimmingWhitespace()))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        guard !completed else { return }
        completed = true
        promise.fail(ControlClient.Error.noReply)
    }

    func errorCaught(context: ChannelHandlerContext, error: Swift.Error) {
        if !completed {
            completed = true
            promise.fail(error)
        }
        context.close(promise: nil)
    }
}
