import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 request and its reply over a fresh connection (`Connection: close`): what the WHIP client needs
/// (a POST, a DELETE) and no more. SwiftNIO underneath, never in the module's public API.
///
/// The whole exchange (connect, then TLS handshake, send, reply) is bounded by a timeout, and the reply body by a
/// size; a reply cut short is an error, not a truncated answer. `https://` goes over `WHIPTLSContext` (swift-nio-ssl's
/// handler first in the pipeline): a failed handshake is a `WHIPError` naming the cause.
enum HTTPExchange {
    /// A request.
    struct Request: Sendable {
        /// `POST`, `DELETE`, ...
        var method: String
        /// Where to.
        var url: HTTPURL
        /// Extra headers (Host, Content-Length and Connection are added).
        var headers: [(name: String, value: String)] = []
        /// The body.
        var body: [UInt8] = []
    }

    /// A reply.
    struct Response: Sendable {
        /// The status code.
        var status: Int
        /// The headers in order.
        var headers: [(name: String, value: String)]
        /// The body.
        var body: [UInt8]

        /// The first value of a header (names compare case-insensitively).
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// Performs one exchange.
    /// - Parameters:
    ///   - request: The request.
    ///   - timeout: The most the whole exchange may take.
    ///   - maximumBodySize: The largest reply body accepted.
    ///   - tls: The TLS context for an `https://` URL (required then).
    ///   - group: The event loops (NIO's process-wide group by default).
    /// - Returns: The reply, whatever its status.
    /// - Throws: `WHIPError.connectionFailed`, `.timedOut` (also for a handshake that does not finish in time),
    ///   `.responseTooLarge`, and for TLS `.certificateExpired`, `.certificateUntrusted`, `.certificateHostMismatch`,
    ///   `.tlsHandshakeFailed`.
    static func perform(
        _ request: Request, timeout: Duration, maximumBodySize: Int, tls: WHIPTLSContext?,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(WHIPError) -> Response {
        let url = request.url
        guard !url.isHTTPS || tls != nil else {
            throw .tlsHandshakeFailed(url: url.description, reason: "no TLS context for an https:// URL")
        }
        let loop = group.next()
        let promise = loop.makePromise(of: Response.self)
        let timeAmount = TimeAmount.nanoseconds(timeout.clampedNanoseconds)
        let channel: Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(timeAmount)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let check = CertificateCheck()
                        if url.isHTTPS, let tls {
                            try channel.pipeline.syncOperations.addHandler(tls.makeHandler(for: url, check: check))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(ResponseCollector(
                            promise: promise, maximumBodySize: maximumBodySize, url: url, check: check))
                    }
                }
                .connect(host: url.host, port: url.port).get()
        } catch {
            promise.fail(WHIPError.connectionFailed(url: url.description, reason: Self.reason(error)))
            if case ChannelError.connectTimeout? = error as? ChannelError { throw .timedOut(url: url.description) }
            throw .connectionFailed(url: url.description, reason: Self.reason(error))
        }
        let timer = loop.scheduleTask(in: timeAmount) {
            promise.fail(WHIPError.timedOut(url: url.description))
            channel.close(promise: nil)
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: url.authority)
        for header in request.headers { headers.add(name: header.name, value: header.value) }
        headers.add(name: "Content-Length", value: String(request.body.count))
        headers.add(name: "Connection", value: "close")
        let head = HTTPRequestHead(
            version: .http1_1, method: HTTPMethod(rawValue: request.method), uri: url.requestTarget, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if !request.body.isEmpty {
            channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: request.body))), promise: nil)
        }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        defer {
            timer.cancel()
            channel.close(promise: nil)
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as WHIPError {
            throw error
        } catch {
            throw .connectionFailed(url: url.description, reason: Self.reason(error))
        }
    }

    /// A short reason for a socket error.
    static func reason(_ error: any Error) -> String {
        if let io = error as? IOError { return io.description }
        if let connect = error as? NIOConnectionError {
            if connect.dnsAError != nil || connect.dnsAAAAError != nil, connect.connectionErrors.isEmpty {
                return "the host name does not resolve"
            }
            if let first = connect.connectionErrors.first { return "\(first.error)" }
        }
        return String(describing: error).prefix(200).description
    }
}

/// Collects one reply, bounded in size; fails the promise when the connection ends before it is complete.
final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<HTTPExchange.Response>
    private let maximumBodySize: Int
    private let target: HTTPURL
    private let check: CertificateCheck
    private var url: String { target.description }
    private var response: HTTPExchange.Response?
    private var completed = false

    init(promise: EventLoopPromise<HTTPExchange.Response>, maximumBodySize: Int, url: HTTPURL, check: CertificateCheck) {
        self.promise = promise
        self.maximumBodySize = maximumBodySize
        self.target = url
        self.check = check
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !completed else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            // 1xx interim replies (100 Continue) are not the reply.
            guard head.status.code >= 200 else { return }
            response = HTTPExchange.Response(
                status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) }, body: [])
        case .body(let part):
            guard response != nil else { return }
            guard response!.body.count + part.readableBytes <= maximumBodySize else {
                finish(.failure(WHIPError.responseTooLarge(limit: maximumBodySize)))
                context.close(promise: nil)
                return
            }
            response!.body.append(contentsOf: part.readableBytesView)
        case .end:
            guard let response else { return }
            finish(.success(response))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(WHIPError.connectionFailed(url: url, reason: "the connection closed before a complete reply")))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let tlsError = HTTPExchange.tlsError(error, url: target, check: check) {
            finish(.failure(tlsError))
        } else {
            finish(.failure(WHIPError.connectionFailed(url: url, reason: "malformed HTTP reply (\(HTTPExchange.reason(error)))")))
        }
        context.close(promise: nil)
    }

    private func finish(_ result: Result<HTTPExchange.Response, any Error>) {
        guard !completed else { return }
        completed = true
        promise.completeWith(result)
    }
}

extension Duration {
    /// Nanoseconds, clamped to 0...Int64.max (no trap for any value).
    var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, overflow2) = product.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow2 ? .max : sum
    }
}
