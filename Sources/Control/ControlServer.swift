#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Codec
import HTTPEndpoint
import Logging
import Sender
import NIOCore
import NIOHTTP1
import NIOPosix

/// The control endpoint: a small HTTP/JSON API, scriptable with curl, over a running `ControlTarget`: an
/// `H264Sender` (`send --control`) or a WHEP server's shared encoder (`serve --control`).
///
/// | method and path | body | effect |
/// |---|---|---|
/// | `POST /bitrate` | `{"bitrate":"800k"}`, `{"bitrate":800000}` or `800k` | sets the operator's bitrate (for a WHEP server: the ceiling over every viewer's estimate) |
/// | `POST /framerate` | `{"fps":15}` or `15` | sets the frame rate |
/// | `POST /degradation-preference` | `{"preference":"balanced"}` or `balanced` | sets what the encoder gives up first: `maintain-framerate`, `maintain-resolution` or `balanced` |
/// | `POST /keyframe` | none | asks for a keyframe (a WHEP server: for every viewer) |
/// | `GET /stats` | none | the target's statistics (a sender's in WebRTC `outbound-rtp` names; a WHEP server's with every viewer's) |
/// | `GET /metrics` | none | the same as Prometheus text (`rtc_h264_outbound_frames_sent_total`, ...; a WHEP server's per viewer, labelled `viewer`) |
///
/// A bad command gets a 4xx reply with `{"ok":false,"error":"..."}` and changes nothing; a command the target cannot
/// carry out now (`ControlTargetError`) gets 409 with the reason. Hard to abuse: it binds to
/// loopback unless told otherwise, and then only with a bearer token (`Authorization: Bearer ...`, the scheme in any
/// case, the token compared in constant time, never printed); bodies over `maximumBodySize` get 413, heads over
/// 16 KiB 431 and a closed connection; at most 64 connections at once, 8 per client address (503 beyond); a request
/// not complete within 10 s, or a connection idle for `idleTimeout`, is closed; an HTTP/1.1 request without `Host`
/// gets 400; every reply carries `X-Content-Type-Options: nosniff` (`HTTPEndpointListener`). With a
/// `TLSServerConfiguration` it serves HTTPS (TLS 1.2+). Built on NIOHTTP1, in a module of its own so that embedding
/// the sender does not link HTTP.
public final class ControlServer: Sendable {
    /// The largest request body accepted.
    public static let maximumBodySize = 64 * 1024
    /// How long a connection may stay idle before it is closed.
    public static let idleTimeout = TimeAmount.seconds(10)
    /// The most connections at once: 64 in all, 8 from one address. The endpoint serves an operator's scripts and
    /// curl, one request at a time each; a few monitors polling `/stats` from one host fit in 8 (issue 20, item 3).
    static let maximumConnections = 64
    /// The most connections at once from one address (see `maximumConnections`).
    static let maximumConnectionsPerAddress = 8
    /// The endpoint's limits: the connection limits above, 10 s for a whole request, 16 KiB of head, 64 KiB of body.
    package static let limits = HTTPEndpointLimits(
        maximumConnections: maximumConnections, maximumConnectionsPerAddress: maximumConnectionsPerAddress,
        idleTimeout: idleTimeout, maximumBodySize: maximumBodySize)

    private let channel: Channel
    /// Whether it serves HTTPS.
    public let isHTTPS: Bool

    /// The port the server listens on.
    public var localPort: Int { channel.localAddress?.port ?? 0 }

    /// Starts a server.
    /// - Parameters:
    ///   - host: the address to bind; a non-loopback address requires `token`.
    ///   - port: the port (0 picks a free one).
    ///   - token: the bearer token every request must carry, or nil (loopback only).
    ///   - target: what the commands go to (a sender, a WHEP server).
    ///   - tls: serve HTTPS with this certificate and key, or nil for plain HTTP.
    ///   - logger: where the endpoint logs (swift-log): commands that change the stream at `info`, reads at
    ///     `debug`, refused requests at `notice` (method, path, status and client address; never a header or the
    ///     token). Nil logs to `Logger(label: "rtc-h264.control")`, the process's logging system.
    /// - Throws: `ControlServerError.tokenRequired` for a non-loopback address without a token; `TLSServerError` for
    ///   a certificate or key that cannot be used; bind errors.
    public convenience init(
        host: String, port: Int, token: String?, target: some ControlTarget, tls: TLSServerConfiguration? = nil,
        logger: Logger? = nil
    ) async throws {
        try await self.init(
            host: host, port: port, token: token, target: target, limits: Self.limits, tls: tls, logger: logger)
    }

    /// Starts a server with limits of its own (tests: a short request timeout, a small per-address limit).
    /// - Parameters:
    ///   - host: the address to bind; a non-loopback address requires `token`.
    ///   - port: the port (0 picks a free one).
    ///   - token: the bearer token every request must carry, or nil (loopback only).
    ///   - target: what the commands go to (a sender, a WHEP server).
    ///   - limits: connections, request timeout, head and body sizes.
    ///   - tls: serve HTTPS with this certificate and key, or nil for plain HTTP.
    ///   - logger: where the endpoint logs; nil: `Logger(label: "rtc-h264.control")`.
    /// - Throws: `ControlServerError.tokenRequired` for a non-loopback address without a token; `TLSServerError` for
    ///   a certificate or key that cannot be used; bind errors.
    package init(
        host: String, port: Int, token: String?, target: some ControlTarget, limits: HTTPEndpointLimits,
        tls: TLSServerConfiguration? = nil, logger: Logger? = nil
    ) async throws {
        let logger = logger ?? Logger(label: "rtc-h264.control")
        if let token, token.isEmpty || token.utf8.count > 1024 { throw ControlServerError.invalidToken }
        if let refused = LoopbackRule.hostNeedingToken(hasToken: token != nil, host: host) {
            throw ControlServerError.tokenRequired(refused)
        }
        let context: HTTPEndpointTLSContext? =
            try tls.map { configuration throws(TLSServerError) in try configuration.makeContext() }
        let metrics = PrometheusExposition()
        isHTTPS = context != nil
        channel = try await HTTPEndpointListener.bind(
            host: host, port: port, limits: limits, tls: context, errorReply: { Self.httpReply(.error($0, $1)) },
            route: { request in Self.route(request, token: token) },
            respond: { command in
                let reply = await Self.apply(command, to: target, metrics: metrics)
                Self.log(command, reply, to: logger)
                return Self.httpReply(reply)
            }, logger: logger)
        // The rule again on the address actually bound: a name that passed as loopback may resolve elsewhere.
        if let refused = LoopbackRule.hostNeedingToken(hasToken: token != nil, host: host, bound: channel.localAddress) {
            try? await channel.close()
            throw ControlServerError.tokenRequired(refused)
        }
        logger.info("control endpoint listening", metadata: [
            "address": "\(channel.localAddress?.ipAddress ?? host):\(channel.localAddress?.port ?? port)", "https": "\(isHTTPS)",
            "token": "\(token == nil ? "none" : "required")",
        ])
    }

    /// Logs a command carried out: a change at `info` (`notice` when the target refused it), a read at `debug`.
    static func log(_ command: ControlCommand, _ reply: ControlReply, to logger: Logger) {
        let change: Bool
        var metadata: Logger.Metadata = ["status": "\(reply.status)"]
        switch command {
        case .setBitrate(let bps): (change, metadata["bitrate_bps"]) = (true, "\(bps)")
        case .setFrameRate(let fps): (change, metadata["fps"]) = (true, "\(fps)")
        case .setDegradationPreference(let preference): (change, metadata["preference"]) = (true, "\(preference.rawValue)")
        case .requestKeyframe: change = true
        case .stats, .metrics: change = false
        }
        let level: Logger.Level = !change ? .debug : reply.status >= 400 ? .notice : .info
        if reply.status >= 400 { metadata["error"] = "\(reply.body.prefix(200))" }
        logger.log(level: level, "control command \(command.name)", metadata: metadata)
    }

    /// Starts a server over a sender (`init(host:port:token:target:)` with the sender as the target).
    /// - Parameters:
    ///   - host: the address to bind; a non-loopback address requires `token`.
    ///   - port: the port (0 picks a free one).
    ///   - token: the bearer token every request must carry, or nil (loopback only).
    ///   - sender: the sender the commands go to.
    /// - Throws: `ControlServerError.tokenRequired` for a non-loopback address without a token; bind errors.
    public convenience init(host: String, port: Int, token: String?, sender: H264Sender) async throws {
        try await self.init(host: host, port: port, token: token, target: sender, tls: nil)
    }

    /// Stops listening.
    public func close() async {
        try? await channel.close()
    }

    /// Carries out one command on a target and words the reply.
    /// - Parameters:
    ///   - command: the command.
    ///   - target: the sender or WHEP server.
    /// - Returns: the reply.
    public static func apply(_ command: ControlCommand, to target: some ControlTarget) async -> ControlReply {
        await apply(command, to: target, metrics: PrometheusExposition())
    }

    /// `apply(_:to:)` with the endpoint's own metric series (made once, updated on each scrape).
    static func apply(
        _ command: ControlCommand, to target: some ControlTarget, metrics: PrometheusExposition
    ) async -> ControlReply {
        do {
            switch command {
            case .setBitrate(let bps):
                let applied = try await target.applyBitrate(bps)
                return .ok(["\"targetBitrate\":\(applied.target)", "\"maxBitrate\":\(applied.ceiling)"])
            case .setFrameRate(let fps):
                try await target.applyFrameRate(fps)
                return .ok(["\"framesPerSecond\":\(fps)"])
            case .setDegradationPreference(let preference):
                try await target.applyDegradationPreference(preference)
                return .ok(["\"degradationPreference\":\(JSONString.quote(preference.rawValue))"])
            case .requestKeyframe:
                try await target.applyKeyframeRequest()
                return .ok()
            case .stats:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                guard let data = try? encoder.encode(await target.controlStatistics()) else {
                    return .error(500, "stats could not be encoded")
                }
                return ControlReply(status: 200, body: String(decoding: data, as: UTF8.self))
            case .metrics:
                var reply = ControlReply(status: 200, body: metrics.text(await target.controlMetrics()))
                reply.contentType = PrometheusExposition.contentType
                return reply
            }
        } catch SenderError.finished {
            return .error(409, "the sender has finished")
        } catch let error as ControlTargetError {
            return .error(409, "\(error)")
        } catch {
            return .error(400, "\(error)")
        }
    }

    /// Turns an HTTP request into a command, or into the error reply it deserves (`ControlRequestParser`).
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - path: the request path (query ignored).
    ///   - body: the request body.
    /// - Returns: the command, or the reply explaining why there is none.
    public static func command(method: String, path: String, body: [UInt8]) -> Result<ControlCommand, ControlReplyError> {
        ControlRequestParser.command(method: method, path: path, body: body)
    }
}

extension ControlServer {
    /// Checks one gathered request: the token first, then the body's size, then the command it asks for.
    static func route(_ request: HTTPEndpointRequest, token: String?) -> Result<ControlCommand, HTTPEndpointError> {
        if let token {
            guard HTTPBearerToken.matches(authorization: request.head.headers.first(name: "Authorization"), token: token) else {
                return .failure(HTTPEndpointError(httpReply(.error(401, "missing or wrong bearer token"))))
            }
        }
        if request.bodyTooLarge {
            return .failure(HTTPEndpointError(httpReply(.error(413, "body over \(maximumBodySize) bytes"))))
        }
        return command(method: request.head.method.rawValue, path: request.head.uri, body: request.body)
            .mapError { HTTPEndpointError(httpReply($0.reply)) }
    }

    /// A control reply on the wire: its body with a final newline (curl output ends its line).
    static func httpReply(_ reply: ControlReply) -> HTTPEndpointReply {
        let body = reply.body.hasSuffix("\n") ? reply.body : reply.body + "\n"
        return HTTPEndpointReply(status: reply.status, headers: [("Content-Type", reply.contentType)], body: Array(body.utf8))
    }
}

/// Why the control endpoint refused to start.
public enum ControlServerError: Error, Equatable, CustomStringConvertible {
    /// A non-loopback address without a token (the host, as `LoopbackRule.hostNeedingToken` names it).
    case tokenRequired(String)
    /// An empty or over-long token.
    case invalidToken

    public var description: String {
        switch self {
        case .tokenRequired(let host):
            return LoopbackRule.tokenRequiredMessage(
                endpoint: "the control endpoint", host: host, tokenOptions: "--control-token or --control-token-file")
        case .invalidToken:
            return "the control token must be 1-1024 bytes"
        }
    }
}
