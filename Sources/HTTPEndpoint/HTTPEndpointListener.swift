#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
#if TLS
import NIOSSL

/// A server's TLS context: swift-nio-ssl's.
package typealias HTTPEndpointTLSContext = NIOSSLContext
#else
/// A server's TLS context, of which a build without the TLS trait has none (no value of this type exists).
package enum HTTPEndpointTLSContext: Sendable {}
#endif

/// Starts a small HTTP/1.1 endpoint (WHEP, the control endpoint) with the connection handling both share, written
/// once: the limits of `HTTPEndpointLimits` (connections in all and per address, the request timeout, the head size),
/// the idle timeout, NIO's HTTP codec, the headers every reply carries, and an `HTTPExchangeHandler` on top. With a
/// TLS context, swift-nio-ssl's `NIOSSLServerHandler` comes first in every connection's pipeline (HTTPS); the
/// connection limits and timeouts still apply from the accept, so a handshake that drips is closed like a request.
///
/// The listening socket backs off after a failed `accept`: `ServerBootstrap.bind(host:port:)` (the future-returning
/// one) installs no `AcceptBackoffHandler` (only the `NIOAsyncChannel` bind does, in swift-nio 2.101), so at the
/// descriptor limit `accept` failed with `EMFILE`, NIO kept the socket registered for reading (the error is not fatal
/// for a server channel) and epoll reported it readable again at once: a core spun while nothing was accepted.
package enum HTTPEndpointListener {
    /// Binds and starts serving.
    /// - Parameters:
    ///   - host: the address to bind.
    ///   - port: the port (0 picks a free one).
    ///   - limits: what clients may hold.
    ///   - tls: serve HTTPS with this context (`TLSServerConfiguration.makeContext()`), or nil for plain HTTP.
    ///   - extraHeaders: headers added to every reply (CORS), refusals included.
    ///   - errorReply: words an error reply in the endpoint's format (status, message): the 503 past a connection
    ///     limit, the 431 for an oversized head, the 400 for a missing `Host`.
    ///   - route: checks a request and turns it into what it asks for, or its error reply. On the loop.
    ///   - respond: acts on a routed request, off the loop.
    /// - Returns: the listening channel (close it to stop).
    /// - Throws: bind errors.
    package static func bind<Routed: Sendable>(
        host: String, port: Int, limits: HTTPEndpointLimits, tls: HTTPEndpointTLSContext? = nil,
        extraHeaders: [(name: String, value: String)] = [],
        errorReply: @escaping @Sendable (Int, String) -> HTTPEndpointReply,
        route: @escaping @Sendable (HTTPEndpointRequest) -> Result<Routed, HTTPEndpointError>,
        respond: @escaping @Sendable (Routed) async -> HTTPEndpointReply,
        logger: Logger = Logger(label: "rtc-h264.http")
    ) async throws -> Channel {
        let limiter = HTTPConnectionLimiter(
            maximumConnections: min(limits.maximumConnections, descriptorBudget()),
            maximumPerAddress: limits.maximumConnectionsPerAddress)
        let refusalHeaders: [(name: String, value: String)] =
            [(name: "Retry-After", value: String(HTTPEndpointLimits.retryAfterSeconds))] + extraHeaders
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoffHandler(
                        shouldForwardIOErrorCaught: false, backoffProvider: { _ in HTTPEndpointLimits.acceptBackoff }))
                }
            }
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    let address = channel.remoteAddress?.ipAddress ?? "unknown"
                    #if TLS
                    if let tls { try pipeline.addHandler(NIOSSLServerHandler(context: tls)) }
                    #endif
                    if let refusal = limiter.admit(address) {
                        logger.notice("connection refused", metadata: ["remote": "\(address)", "reason": "\(refusal.message)"])
                        var reply = errorReply(503, refusal.message)
                        reply.headers += refusalHeaders
                        try pipeline.addHandler(HTTPRefusalHandler(bytes: reply.wireBytes()))
                        return
                    }
                    try pipeline.addHandler(HTTPConnectionGuard(
                        limits: limits, limiter: limiter, address: address, errorReply: errorReply))
                    try pipeline.addHandler(IdleStateHandler(allTimeout: limits.idleTimeout))
                    try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                    try pipeline.addHandler(
                        HTTPResponseHeadersHandler(), position: .after(try pipeline.handler(type: HTTPResponseEncoder.self)))
                    try pipeline.addHandler(HTTPExchangeHandler<Routed>(
                        maximumBodySize: limits.maximumBodySize, extraHeaders: extraHeaders, errorReply: errorReply,
                        route: route, respond: respond, logger: logger, remote: address))
                }
            }
            .bind(host: host, port: port).get()
    }

    /// The connections the process's descriptor limit leaves room for: `RLIMIT_NOFILE`'s soft limit less the part
    /// `HTTPEndpointLimits.descriptorReserveDivisor` keeps (at least 16), or `Int.max` when it cannot be read or is
    /// unlimited.
    static func descriptorBudget() -> Int {
        var limit = rlimit()
        #if os(Linux)
        let status = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #else
        let status = getrlimit(RLIMIT_NOFILE, &limit)
        #endif
        // RLIM_INFINITY is all ones (Swift cannot import the macro's -1 as an unsigned value).
        guard status == 0, limit.rlim_cur != rlim_t.max, limit.rlim_cur < rlim_t(Int.max) else { return .max }
        let descriptors = Int(limit.rlim_cur)
        return max(16, descriptors - descriptors / HTTPEndpointLimits.descriptorReserveDivisor)
    }
}
