import HTTPEndpoint
import MediaTime
import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request and its reply over a fresh connection (`Connection: close`): what the WHIP client (a POST, a
/// DELETE) and the control client (a GET or a POST) need, and no more. SwiftNIO underneath, never in a public API.
///
/// The whole exchange (connect, then TLS handshake, send, reply) is bounded by a timeout, and the reply body by a
/// size; a reply cut short is an error, not a truncated answer. `https://` goes over `TLSClientContext`
/// (swift-nio-ssl's handler first in the pipeline): a failed handshake is an `HTTPExchangeError` naming the cause.
package enum HTTPExchange {
    /// A request.
    package struct Request: Sendable {
        /// `POST`, `DELETE`, ...
        package var method: String
        /// Where to.
        package var url: HTTPURL
        /// Extra headers (Host, Content-Length and Connection are added).
        package var headers: [(name: String, value: String)]
        /// The body.
        package var body: [UInt8]

        /// A request.
        /// - Parameters:
        ///   - method: `POST`, `DELETE`, ...
        ///   - url: where to.
        ///   - headers: extra headers (Host, Content-Length and Connection are added).
        ///   - body: the body.
        package init(method: String, url: HTTPURL, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    /// A reply.
    package struct Response: Sendable {
        /// The status code.
        package var status: Int
        /// The headers in order.
        package var headers: [(name: String, value: String)]
        /// The body.
        package var body: [UInt8]

        /// The first value of a header (names compare case-insensitively).
        package func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// Performs one exchange.
    /// - Parameters:
    ///   - request: The request.
    ///   - timeout: The most the whole exchange may take.
    ///   - connectTimeout: The most the connection may take (at most `timeout`; `timeout` when nil).
    ///   - maximumBodySize: The largest reply body accepted.
    ///   - tls: The TLS context for an `https://` URL (required then).
    ///   - group: The event loops (NIO's process-wide group by default).
    /// - Returns: The reply, whatever its status.
    /// - Throws: `HTTPExchangeError.connectionFailed`, `.noReply`, `.timedOut` (also for a handshake that does not
    ///   finish in time), `.responseTooLarge`, and for TLS `.certificateExpired`, `.certificateUntrusted`,
    ///   `.certificateHostMismatch`, `.tlsHandshakeFailed`.
    package static func perform(
        _ request: Request, timeout: Duration, connectTimeout: Duration? = nil, maximumBodySize: Int,
        tls: TLSClientContext?, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(HTTPExchangeError) -> Response {
        let url = request.url
        guard !url.isHTTPS || tls != nil else {
            throw .tlsHandshakeFailed(url: url.description, reason: "no TLS context for an https:// URL")
        }
        guard !url.isHTTPS || TLSAvailability.isBuilt else { throw .tlsNotInThisBuild(url: url.description) }
        let loop = group.next()
        let promise = loop.makePromise(of: Response.self)
        let timeAmount = TimeAmount.nanoseconds(max(0, timeout.saturatingNanoseconds))
        let connectTimeAmount = TimeAmount.nanoseconds(max(0, min(timeout, connectTimeout ?? timeout).saturatingNanoseconds))
        let channel: Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(connectTimeAmount)
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
            promise.fail(HTTPExchangeError.connectionFailed(url: url.description, reason: Self.reason(error)))
            if case ChannelError.connectTimeout? = error as? ChannelError { throw .timedOut(url: url.description) }
            throw .connectionFailed(url: url.description, reason: Self.reason(error))
        }
        let timer = loop.scheduleTask(in: timeAmount) {
            promise.fail(HTTPExchangeError.timedOut(url: url.description))
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
        } catch let error as HTTPExchangeError {
            throw error
        } catch {
            throw .connectionFailed(url: url.description, reason: Self.reason(error))
        }
    }

    /// A short reason for a socket error.
    package static func reason(_ error: any Error) -> String {
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
