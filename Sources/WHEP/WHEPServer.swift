public import Codec
public import Control
import DTLS
public import Logging
import H264
import HTTPEndpoint
import HTTPRequester
import NIOCore
import NIOHTTP1
import NIOPosix
import RTP
import SRTP
import STUN
import Synchronization
public import Sender
import Transport
public import Video
public import WebRTC
import WebRTCTransport

/// A WHEP endpoint (WebRTC-HTTP Egress Protocol) that browsers play directly: one H.264 encoder shared by every
/// viewer, each viewer with its own ICE agent, DTLS-SRTP context and UDP socket. The agent is ICE-lite with the one host
/// candidate; with `iceServers` (a server behind a NAT or a firewall) it is a full agent (controlled) whose answer
/// also carries its server-reflexive and relayed candidates (TURN over UDP, TCP or TLS), gathered before the answer.
///
/// ```swift
/// var options = WHEPServer.Options(host: "127.0.0.1", port: 8080)
/// options.maximumViewers = 8
/// let server = try await WHEPServer(configuration: configuration, options: options)
/// try server.send(frame, captureTime: .now)         // frames in, as with H264Sender
/// for await event in server.events { print(event) }  // viewers joined and left
/// await server.finish()
/// ```
///
/// | method and path | reply |
/// |---|---|
/// | `GET /` (or `HEAD /`) | a viewer page: open it in a browser to watch |
/// | `POST /whep`, `Content-Type: application/sdp` | 201 + `Location: /whep/<id>` + `ETag` + the SDP answer; 400 with the SDP error for an offer we cannot answer, 415 for another content type, 413 over 64 KiB, 503 when the viewer limit is reached |
/// | `DELETE /whep/<id>` | 200, the viewer torn down and its socket closed; 404 for an unknown id |
/// | `OPTIONS` | 204 with CORS headers and `Accept-Post: application/sdp` |
/// | `PATCH /whep/<id>`, `Content-Type: application/trickle-ice-sdpfrag` | trickled candidates (`If-Match` with the `ETag`): 204; an ICE restart (`If-Match: "*"`, new credentials): 200 with ours and a new `ETag`; 412 for a stale `ETag`, 428 without `If-Match`, 429 for a restart storm |
///
/// Policies: a viewer's PLI/FIR reaches the one encoder through one keyframe throttle; NACKs are answered from that
/// viewer's own history (its own SSRC and sequence numbers); the encoder's bitrate follows the weakest viewer (the
/// lowest of the viewers' REMB-, TMMBR- and loss-limited targets, never above the operator's bitrate: the configured
/// one until `setBitrate(_:)`). A joining viewer gets an IDR and its first packet is that IDR's. A viewer that does
/// not finish ICE and DTLS within `connectTimeout`, stops answering consent checks (RFC 7675), fails DTLS, or is
/// DELETEd, is torn down.
///
/// Security: the endpoint binds to loopback unless told otherwise, and then refuses to start without a bearer token
/// (`Bearer` in any case, the token compared in constant time, never printed); bodies over 64 KiB get 413, heads over
/// 16 KiB 431; a slot is reserved before a socket is opened, so offers beyond the viewer limit open nothing. HTTP
/// connections are limited in all and per client address (`maximumConnections`, `maximumConnectionsPerAddress`:
/// 503 beyond), each request must be complete within `requestTimeout`, and every reply carries
/// `X-Content-Type-Options: nosniff`.
public final class WHEPServer: Sendable {
    /// Where and how to serve.
    public struct Options: Sendable {
        /// The address to bind the HTTP endpoint and the viewers' sockets to (an IP literal); a non-loopback address
        /// requires `token`.
        public var host: String
        /// The HTTP port (0: any free port).
        public var port: Int
        /// The bearer token POST/DELETE must carry, or nil (loopback only).
        public var token: String?
        /// The most viewers at once (connected or connecting).
        public var maximumViewers: Int = 8
        /// The `Access-Control-Allow-Origin` value.
        public var allowedOrigin: String = "*"
        /// The IP written in the answer's candidate (default: `host`; required when `host` is a wildcard).
        public var advertisedHost: String?
        /// How long a viewer may take from its answer to ICE + DTLS done.
        public var connectTimeout: Duration = .seconds(15)
        /// How long a connected viewer may send no consent check before it is torn down (RFC 7675: 30 s).
        public var consentTimeout: Duration = .seconds(30)
        /// The DTLS-SRTP profiles offered, in order.
        public var srtpSuites: [SRTPSuiteName] = [.aeadAES128GCM, .aesCM128HMACSHA1_80]
        /// The most HTTP connections at once, from every client; one more is answered 503 (with `Retry-After`) and
        /// closed. 256: a browser opens at most 6 connections to a host (HTTP/1.1 per-host limit of Chromium and
        /// Firefox), so 256 serve 40 browsers at once for a few seconds each while staying far below the common
        /// descriptor limit of 1,024 (the listener caps it further at three quarters of the process's limit).
        public var maximumConnections: Int = 256
        /// The most HTTP connections at once from one client address. 32: five browsers behind one NAT, each at its
        /// 6-connection limit; a single host dripping bytes holds no more than this.
        public var maximumConnectionsPerAddress: Int = 32
        /// How long a client may take to send one whole HTTP request (head and offer), from its first byte or from
        /// the accept; the connection is closed after it, however the bytes trickle (the 30 s idle timeout never
        /// fires on a drip). 10 s: a browser sends an offer in one round trip.
        public var requestTimeout: Duration = .seconds(10)
        /// Serve HTTPS (TLS 1.2+) with this certificate chain and key, or nil for plain HTTP. The viewer page's
        /// URL is then `https://`; the page itself uses relative URLs, so it POSTs its offer over the same origin.
        public var tls: TLSServerConfiguration?
        /// STUN and TURN servers for a server that viewers cannot reach directly (behind a NAT or a firewall): with
        /// any, each viewer's socket gathers from them before its offer is answered (`iceGatheringTimeout` at most),
        /// the answer carries the server-reflexive and relayed candidates beside the host one, and the viewer gets a
        /// full ICE agent (controlled: it checks the viewer's candidates too, which opens a NAT's mapping) instead
        /// of ICE-lite. Each viewer holds its own TURN allocation, released when it leaves. IPv4 only. Host names
        /// are resolved once, when the server starts.
        public var iceServers: [ICEServer] = []
        /// How long a viewer's gathering may take (0.1-10 s); a server that has not answered by then is left out of
        /// that answer. 3 s.
        public var iceGatheringTimeout: Duration = .seconds(3)
        /// A PEM file of CA certificates trusted besides the system's for `turns:` servers (their certificate and
        /// host name are always verified), or nil.
        public var iceServerCAFile: String?

        /// The largest viewer limit accepted.
        public static let maximumViewerLimit = 1000
        /// The largest connection limit accepted (a descriptor each).
        public static let maximumConnectionLimit = 65_536
        /// The request timeouts accepted: from 100 ms (tests) to 300 s.
        public static let requestTimeouts: ClosedRange<Duration> = .milliseconds(100) ... .seconds(300)

        /// Creates options.
        /// - Parameters:
        ///   - host: the address to bind (IP literal).
        ///   - port: the HTTP port.
        ///   - token: the bearer token, or nil.
        public init(host: String = "127.0.0.1", port: Int = 8080, token: String? = nil) {
            self.host = host
            self.port = port
            self.token = token
        }
    }

    /// The DTLS-SRTP profiles (RFC 5764, RFC 7714).
    public enum SRTPSuiteName: String, Sendable, CaseIterable {
        /// SRTP_AEAD_AES_128_GCM.
        case aeadAES128GCM
        /// SRTP_AES128_CM_SHA1_80.
        case aesCM128HMACSHA1_80
    }

    /// The options in force.
    public let options: Options
    /// Viewers joining and leaving. Newest kept when not read.
    public let events: AsyncStream<WHEPEvent>

    /// The shared encoder (a `FramePumpTarget` for the command-line tool).
    package let encoder: FanOutEncoder
    private let channel: Channel
    let table: ViewerTable
    private let context: DTLSContext
    private let advertisedIP: IPAddress
    /// The ICE servers, resolved, and how a `turns:` connection is verified (nil without ICE servers).
    private let gathering: ViewerGathering?
    private let eventsContinuation: AsyncStream<WHEPEvent>.Continuation
    private let logger: Logger

    /// The HTTP port the server listens on.
    public var localPort: Int { channel.localAddress?.port ?? 0 }

    /// The viewer page's URL (`https://` with `Options.tls`).
    public var url: String {
        let host = options.host.contains(":") ? "[\(options.host)]" : options.host
        return "\(options.tls == nil ? "http" : "https")://\(host):\(localPort)/"
    }

    /// Validates the options, creates the shared encoder (its own thread), a fresh ECDSA P-256 certificate, and
    /// starts listening.
    /// - Parameters:
    ///   - configuration: the stream: encoder settings, MTU, NACK, RTX, pacing, congestion control, CNAME (peer and
    ///     SRTP key fields are unused: every viewer has its own address and DTLS-derived keys).
    ///   - options: where and how to serve.
    ///   - logger: where the server logs (swift-log): listening and finishing, viewers joining and leaving (with the
    ///     first 8 hex digits of their id, never the whole id, a token or a key) at `info`, refused requests and
    ///     offers at `notice`, DTLS and stream failures at `warning`, each viewer's rate decisions at `debug`. Nil
    ///     logs to `Logger(label: "rtc-h264.whep")`, the process's logging system.
    /// - Throws: `WHEPServerError` for bad options, `TLSServerError` for a certificate or key that cannot be used,
    ///   `SenderError` for a bad configuration, DTLS, encoder and bind errors (nothing is left running then).
    public init(configuration: SenderConfiguration, options: Options, logger: Logger? = nil) async throws {
        let logger = logger ?? Logger(label: "rtc-h264.whep")
        self.logger = logger
        if let token = options.token {
            guard !token.isEmpty, token.utf8.count <= 1024, token.unicodeScalars.allSatisfy({ (0x21...0x7e).contains($0.value) })
            else { throw WHEPServerError.invalidToken }
        }
        if let refused = LoopbackRule.hostNeedingToken(hasToken: options.token != nil, host: options.host) {
            throw WHEPServerError.tokenRequired(refused)
        }
        guard (1...Options.maximumViewerLimit).contains(options.maximumViewers) else {
            throw WHEPServerError.invalidViewerLimit(options.maximumViewers)
        }
        guard (0...65535).contains(options.port) else { throw WHEPServerError.invalidPort(options.port) }
        guard (1...Options.maximumConnectionLimit).contains(options.maximumConnections),
              (1...options.maximumConnections).contains(options.maximumConnectionsPerAddress)
        else {
            throw WHEPServerError.invalidConnectionLimit(
                total: options.maximumConnections, perAddress: options.maximumConnectionsPerAddress)
        }
        guard Options.requestTimeouts.contains(options.requestTimeout) else {
            throw WHEPServerError.invalidRequestTimeout
        }
        guard options.connectTimeout >= .seconds(1), options.connectTimeout <= .seconds(300),
              options.consentTimeout >= .seconds(1), options.consentTimeout <= .seconds(300)
        else {
            throw WHEPServerError.invalidConnectTimeout
        }
        let bindHost = options.host == "localhost" ? "127.0.0.1" : options.host
        guard let bindIP = IPAddress(bindHost.trimmingCharacters(in: "[]")) else {
            throw WHEPServerError.invalidAddress("the WHEP host must be an IP literal (e.g. 127.0.0.1 or ::1), got \(options.host.prefix(100))")
        }
        let advertised = options.advertisedHost.map { IPAddress($0.trimmingCharacters(in: "[]")) } ?? bindIP
        guard let advertised else {
            throw WHEPServerError.invalidAddress("the advertised host must be an IP literal, got \(options.advertisedHost?.prefix(100) ?? "")")
        }
        guard advertised != IPAddress("0.0.0.0"), advertised != IPAddress("::") else {
            throw WHEPServerError.invalidAddress("bound to \(options.host): give the address browsers reach the viewers' sockets at (--advertise)")
        }
        // Read before anything starts: a bad certificate or key leaves nothing running.
        let tlsContext: HTTPEndpointTLSContext? = try options.tls.map { tls throws(TLSServerError) in try tls.makeContext() }
        gathering = try await ViewerGathering.resolve(
            options.iceServers, caFile: options.iceServerCAFile, timeout: options.iceGatheringTimeout,
            bound: bindIP, advertised: advertised)
        var options = options
        options.host = bindHost.trimmingCharacters(in: "[]")
        let suites = options.srtpSuites.map { $0 == .aeadAES128GCM ? SRTPSuite.aeadAES128GCM : .aesCM128HMACSHA1_80 }
        context = try DTLSContext(certificate: try DTLSCertificate.generate(), srtpSuites: suites)
        encoder = try await FanOutEncoder(configuration: configuration)
        let table = ViewerTable(limit: options.maximumViewers)
        self.table = table
        // A failed stream ends every session at once (ICE consent would keep them alive for ever) and refuses new
        // ones; `send` then throws the error.
        encoder.onFatal { error in
            for handle in table.close() {
                handle.loop.execute { handle.session.value.end(.streamFailed("\(error)")) }
            }
        }
        self.options = options
        advertisedIP = advertised
        (events, eventsContinuation) = AsyncStream.makeStream(of: WHEPEvent.self, bufferingPolicy: .bufferingNewest(256))
        let token = options.token, origin = options.allowedOrigin
        let box = ServerReference()
        do {
            channel = try await HTTPEndpointListener.bind(
                host: options.host, port: options.port, limits: Self.httpLimits(options), tls: tlsContext,
                extraHeaders: Self.corsHeaders(allowing: origin), errorReply: { WHEPReply.error($0, $1).http },
                route: { request in
                    WHEPRequest.parse(
                        method: request.head.method.rawValue, uri: request.head.uri,
                        contentType: request.head.headers.first(name: "Content-Type"),
                        authorization: request.head.headers.first(name: "Authorization"), token: token,
                        ifMatch: request.head.headers.first(name: "If-Match"), body: request.body, bodyTooLarge: request.bodyTooLarge)
                    .mapError { HTTPEndpointError($0.reply.http) }
                },
                respond: { request in
                    guard let server = box.server.withLock({ $0 }) else {
                        return WHEPReply.error(503, "the server is starting").http
                    }
                    return await server.respond(to: request).http
                }, logger: logger)
        } catch {
            await encoder.finish()
            throw error
        }
        box.server.withLock { $0 = self }
        logger.info("WHEP server listening", metadata: [
            "url": "\(url)", "max_viewers": "\(options.maximumViewers)", "advertised": "\(advertised)",
            "token": "\(options.token == nil ? "none" : "required")",
            "ice_servers": "\(options.iceServers.map(\.uri).joined(separator: " "))",
        ])
    }

    /// The headers every reply carries: CORS for players on other origins, and no caching.
    static func corsHeaders(allowing origin: String) -> [(name: String, value: String)] {
        [("Access-Control-Allow-Origin", origin), ("Access-Control-Expose-Headers", "Location, ETag, Accept-Post, Accept-Patch")]
            + (origin != "*" ? [("Vary", "Origin")] : []) + [("Cache-Control", "no-store")]
    }

    /// How long an HTTP connection may stay idle before it is closed.
    static let idleTimeout = TimeAmount.seconds(30)

    /// The HTTP endpoint's limits from the options (issue 20, item 3).
    static func httpLimits(_ options: Options) -> HTTPEndpointLimits {
        HTTPEndpointLimits(
            maximumConnections: options.maximumConnections,
            maximumConnectionsPerAddress: options.maximumConnectionsPerAddress,
            requestTimeout: TimeAmount(options.requestTimeout), idleTimeout: idleTimeout,
            maximumBodySize: WHEPRequest.maximumBodySize)
    }

    // MARK: Frames

    /// The frame rate the encoder plans for.
    public var frameRate: Double { encoder.frameRate }

    /// Pushes a borrowed I420 picture; it is copied before this returns (newest wins when the encoder is busy).
    /// - Parameters:
    ///   - view: the picture.
    ///   - captureTime: when it was captured, on `ContinuousClock`.
    /// - Throws: `SenderError.finished` once the server has finished.
    public func send(_ view: I420FrameView, captureTime: ContinuousClock.Instant = .now) throws {
        try encoder.send(view, captureTime: captureTime)
    }

    /// Pushes an owned frame in I420, NV12 or BGRA (converted to I420 with libyuv on the caller's thread).
    /// - Parameters:
    ///   - frame: the frame.
    ///   - captureTime: when it was captured, on `ContinuousClock`.
    /// - Throws: `VideoError` for a frame that cannot be converted, `SenderError.finished`.
    public func send(_ frame: VideoFrame, captureTime: ContinuousClock.Instant = .now) throws {
        try encoder.send(frame, captureTime: captureTime)
    }

    /// Pushes a frame written straight into the encoder's reused buffer.
    /// - Parameters:
    ///   - captureTime: when it was captured.
    ///   - fill: writes the picture.
    /// - Throws: what `fill` throws, `SenderError.finished`.
    public func send(captureTime: ContinuousClock.Instant = .now, fill: (inout I420Frame) throws -> Void) throws {
        try encoder.send(captureTime: captureTime, fill: fill)
    }

    /// Waits until the encoder has taken the last frame pushed.
    public func waitForEncoder() async { await encoder.waitForEncoder() }

    // MARK: Viewers

    /// Viewers connected or connecting.
    public var viewerCount: Int { table.count }

    /// Frames encoded so far (each sent to every viewer past its first keyframe).
    public var framesEncoded: Int { encoder.frameCounts.encoded }

    /// The bitrate the shared encoder follows now (the weakest viewer's, at most the operator's), in bit/s.
    public var appliedBitrate: Int { encoder.appliedRates.target }

    /// The ceiling the shared encoder follows now (at least `appliedBitrate`), in bit/s.
    public var appliedMaxBitrate: Int { encoder.appliedRates.ceiling }

    /// The operator's bitrate: the configured one until `setBitrate(_:)`, in bit/s. No viewer's estimate raises the
    /// encoder above it.
    public var operatorBitrate: Int { encoder.operatorRates.target }

    /// Every viewer's statistics now.
    public func viewers() async -> [WHEPViewerStatistics] {
        var result: [WHEPViewerStatistics] = []
        for handle in table.all {
            if let stats = try? await handle.loop.submit({ handle.session.value.statistics() }).get() {
                result.append(stats)
            }
        }
        return result.sorted { $0.id < $1.id }
    }

    /// The server's statistics now: the shared encoder's rates and frames, and every viewer's.
    public func statistics() async -> WHEPServerStatistics {
        let viewers = await viewers()
        let frames = encoder.frameCounts
        return WHEPServerStatistics(
            viewers: viewers.count, framesEncoded: frames.encoded, framesDropped: frames.dropped,
            framesPerSecond: frameRate, operatorBitrate: operatorBitrate, appliedBitrate: appliedBitrate,
            appliedMaxBitrate: appliedMaxBitrate, viewerStats: viewers)
    }

    // MARK: Control

    /// Sets the operator's bitrate: a ceiling over every viewer. The shared encoder follows the lower of it and the
    /// weakest viewer's estimate (REMB, TMMBR, loss, delay), so no viewer raises it above this value; raising it lets
    /// the encoder rise as far as the weakest viewer allows. The ceiling follows at 1.5x; viewers joining later start
    /// from it.
    /// - Parameter bitsPerSecond: the bitrate in bit/s (from the configured minimum bitrate to the level's maximum).
    /// - Returns: the target the shared encoder applies now, in bit/s.
    /// - Throws: `SenderError.invalidRate` for a value that is not positive or above the level's limit (nothing
    ///   changed), `SenderError.finished` once the server has finished.
    @discardableResult
    public func setBitrate(_ bitsPerSecond: Int) async throws -> Int {
        try await encoder.setOperatorBitrate(bitsPerSecond).target
    }

    /// Asks the shared encoder for a keyframe: every viewer gets it (within the keyframe throttle's window, like a
    /// viewer's PLI).
    /// - Throws: `SenderError.finished` once the server has finished.
    public func forceKeyframe() throws {
        try encoder.requestKeyframe()
    }

    /// Changes the frame rate the shared encoder's rate control plans for (and `frameRate`, which producers pace at).
    /// - Parameter framesPerSecond: within `EncoderConfiguration.supportedFrameRates`.
    /// - Throws: `SenderError.invalidRate` (nothing changed), `SenderError.finished`.
    public func setFrameRate(_ framesPerSecond: Double) async throws {
        try await encoder.setFrameRate(framesPerSecond)
    }

    /// Changes what the shared encoder gives up first when the bitrate is short (as `H264Sender`'s; an IDR for
    /// every viewer only if the size in use is one the new preference does not allow).
    /// - Parameter preference: the new preference.
    /// - Throws: `SenderError.finished`; `SenderError.invalidConfiguration` when the encoder does not adapt its size.
    public func setDegradationPreference(_ preference: DegradationPreference) async throws {
        try await encoder.setDegradationPreference(preference)
    }

    /// Ends every viewer (BYE, close_notify, sockets closed), stops listening and stops the encoder. Idempotent.
    public func finish() async {
        for handle in table.close() {
            try? await handle.loop.submit { handle.session.value.end(.serverFinished) }.get()
        }
        try? await channel.close()
        await encoder.finish()
        eventsContinuation.finish()
        logger.info("WHEP server finished", metadata: ["frames_encoded": "\(framesEncoded)"])
    }

    // MARK: Requests

    /// Answers one routed request.
    func respond(to request: WHEPRequest) async -> WHEPReply {
        switch request {
        case .page:
            return WHEPReply(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: ViewerPage.html)
        case .options:
            return WHEPReply(status: 204, headers: [
                ("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS"),
                ("Access-Control-Allow-Headers", "Authorization, Content-Type, If-Match"),
                ("Access-Control-Max-Age", "600"),
                ("Accept-Post", "application/sdp"),
                ("Accept-Patch", TrickleICEFragment.mediaType),
            ])
        case .delete(let id):
            guard let handle = table.session(id) else { return .error(404, "no WHEP session \(id.prefix(64))") }
            try? await handle.loop.submit { handle.session.value.end(.deleted) }.get()
            return WHEPReply(status: 200)
        case .patch(let id, let fragment, let ifMatch):
            guard let handle = table.session(id) else { return .error(404, "no WHEP session \(id.prefix(64))") }
            let reply = try? await handle.loop.submit { handle.session.value.patch(fragment, ifMatch: ifMatch) }.get()
            return reply ?? .error(404, "no WHEP session \(id.prefix(64))")
        case .offer(let text):
            return await answer(text)
        }
    }

    /// A viewer's offer: reserve a slot, open its socket, answer, start ICE and DTLS.
    private func answer(_ text: String) async -> WHEPReply {
        guard table.reserve() else {
            logger.notice("offer refused: viewer limit reached", metadata: ["viewers": "\(table.limit)"])
            var reply = WHEPReply.error(503, "viewer limit reached: \(table.limit) viewers are watching; try again later")
            reply.headers.append(("Retry-After", "5"))
            return reply
        }
        let offer: JSEPSessionDescription
        do {
            offer = try JSEPSessionDescription(parsing: text)
        } catch {
            table.release()
            logger.notice("offer refused: bad SDP", metadata: ["error": "\("\(error)".prefix(200))"])
            return .error(400, "bad offer: \(error)")
        }
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        var transportConfiguration = TransportConfiguration(
            localHost: options.host, localPort: 0, peer: nil, rtcpMux: true, security: nil)
        transportConfiguration.holdMediaUntilSecured = true
        let transport: NIOLoopBound<UDPTransport>
        do {
            transport = try await UDPTransport.bind(configuration: transportConfiguration, eventLoop: loop)
        } catch {
            table.release()
            logger.warning("cannot open a UDP socket for a viewer", metadata: ["error": "\(error)"])
            return .error(503, "cannot open a UDP socket for the viewer: \(error)")
        }
        let setup = Setup(
            encoder: encoder, table: table, context: context, advertisedIP: advertisedIP, events: eventsContinuation,
            connectTimeout: options.connectTimeout, consentTimeout: options.consentTimeout, logger: logger)
        // The offer is read and answered here, off the event loops (other viewers' media runs on them); only the
        // session's start runs on its loop.
        let port = (try? await loop.submit { transport.value.localPort }.get()) ?? 0
        let refuse = { (error: RefusedOffer) -> WHEPReply in
            loop.execute { transport.value.close() }
            self.table.release()
            self.logger.notice("offer refused", metadata: [
                "status": "\(error.reply.status)", "reason": "\(error.reply.body.prefix(200))",
            ])
            return error.reply
        }
        // An offer we cannot answer is refused before anything is gathered (no allocation for it).
        var negotiation: Negotiation
        switch setup.negotiate(offer: offer, port: port, gathered: gathering == nil ? nil : []) {
        case .success(let value): negotiation = value
        case .failure(let error): return refuse(error)
        }
        // Behind a NAT or a firewall: the viewer's server-reflexive and relayed candidates, then the answer again
        // with them.
        var gathered: ViewerGathering.Result?
        if let gathering {
            do {
                gathered = try await gathering.gather(on: transport, port: port, logger: logger)
            } catch {
                loop.execute { transport.value.close() }
                table.release()
                logger.warning("cannot gather a viewer's candidates", metadata: ["error": "\(error)"])
                return .error(503, "cannot gather the viewer's candidates: \(error)")
            }
            switch setup.negotiate(offer: offer, port: port, gathered: gathered?.gatherer.candidates) {
            case .success(let value): negotiation = value
            case .failure(let error):
                await gathered?.release()
                return refuse(error)
            }
        }
        let (answered, handOff) = (negotiation, gathered)
        do {
            return try await loop.submit {
                setup.start(answered, transport: transport.value,
                            gathered: handOff.map { ($0.gatherer, $0.local, $0.streams.value) })
            }.get()
        } catch {
            // The loop is shutting down: nothing started on it.
            await gathered?.release()
            try? await loop.submit { transport.value.close() }.get()
            table.release()
            return .error(500, "the viewer could not be set up")
        }
    }

    /// A negotiated viewer, before its session starts.
    private struct Negotiation: Sendable {
        let id: String
        let ssrc: SSRC
        let rtxSSRC: SSRC
        /// The FlexFEC SSRC written in the answer, nil when none was.
        let fecSSRC: SSRC?
        let credentials: ICECredentials
        /// Our candidates in the answer: the host one, then any gathered.
        let candidates: [ICECandidate]
        let answer: JSEPSessionDescription
        let negotiated: NegotiatedVideo
    }

    /// An offer refused, with its reply.
    private struct RefusedOffer: Error {
        let reply: WHEPReply
    }

    /// What a viewer's set-up needs, on its loop.
    private struct Setup: Sendable {
        let encoder: FanOutEncoder
        let table: ViewerTable
        let context: DTLSContext
        let advertisedIP: IPAddress
        let events: AsyncStream<WHEPEvent>.Continuation
        let connectTimeout: Duration
        let consentTimeout: Duration
        let logger: Logger

        /// Draws the viewer's id, SSRCs and ICE credentials and answers its offer. Pure but for randomness: runs off
        /// the event loops.
        /// - Parameters:
        ///   - gathered: the viewer's gathered candidates for a full agent (possibly none), or nil for ICE-lite.
        func negotiate(offer: JSEPSessionDescription, port: Int, gathered: [ICECandidate]?) -> Result<Negotiation, RefusedOffer> {
            var rng = SystemRandomNumberGenerator()
            let id = (0..<16).map { _ in String(UInt8.random(in: 0...255, using: &rng), radix: 16).leftPadded(2) }.joined()
            let configuration = encoder.configuration
            let identity = StreamIdentity.draw(rtx: true, fec: configuration.fec != nil, using: &rng)
            let ssrc = identity.ssrc
            let rtxSSRC = identity.rtxSSRC ?? ssrc
            let credentials = ICECredentials.random()
            var video = VideoSendConfiguration(
                profileLevelID: configuration.encoder.profileLevelID,
                packetizationMode: configuration.packetizationMode == .singleNALUnit ? 0 : 1, ssrc: ssrc.rawValue,
                rtxSSRC: configuration.nack && configuration.rtx != nil ? rtxSSRC.rawValue : nil,
                cname: configuration.cname)
            video.feedback = configuration.answeredFeedback
            // FlexFEC when the server protects (`serve --fec`) and the browser offers flexfec-03 (Chromium does).
            video.fecSSRC = identity.fecSSRC?.rawValue
            // Delay-based congestion control per viewer when the browser offers transport-cc (Chromium does).
            video.transportWideCC = configuration.congestionControl
            // The capture time whenever the browser offers it; the playout delay when one is configured.
            video.absoluteCaptureTime = true
            video.playoutDelay = configuration.playoutDelay != nil
            // The dependency descriptor with temporal layers, when the viewer offers it.
            video.dependencyDescriptor = configuration.encoder.temporalLayers > 1
            let candidates = [Self.candidate(ip: advertisedIP, port: port)] + (gathered ?? [])
            let local = LocalTransportDescription(
                credentials: credentials, candidates: candidates, iceLite: gathered == nil,
                fingerprint: context.certificate.fingerprint)
            do {
                let (answer, negotiated) = try VideoAnswerer.answer(
                    offer, video: video, transport: local, origin: "- \(UInt64.random(in: 1...(1 << 62), using: &rng)) 1 IN IP4 0.0.0.0")
                return .success(Negotiation(id: id, ssrc: ssrc, rtxSSRC: rtxSSRC,
                                            fecSSRC: negotiated.fecPayloadType != nil ? identity.fecSSRC : nil,
                                            credentials: credentials,
                                            candidates: candidates, answer: answer, negotiated: negotiated))
            } catch {
                return .failure(RefusedOffer(reply: .error(400, "cannot answer the offer: \(error)")))
            }
        }

        /// Our one host candidate for a viewer's socket.
        static func candidate(ip: IPAddress, port: Int) -> ICECandidate {
            .host(TransportAddress(ip: ip, port: UInt16(clamping: port)))
        }

        /// Starts a negotiated viewer's session (ICE, DTLS) on its transport's loop: ICE-lite, or with `gathered`
        /// (the gatherer, the socket's local address, the TURN connections) a full agent, controlled.
        func start(
            _ negotiation: Negotiation, transport: UDPTransport,
            gathered: (gatherer: ICEGatherer, local: TransportAddress, streams: TURNStreams)?
        ) -> WHEPReply {
            let (id, ssrc, rtxSSRC, credentials) = (negotiation.id, negotiation.ssrc, negotiation.rtxSSRC, negotiation.credentials)
            let (answer, negotiated) = (negotiation.answer, negotiation.negotiated)
            let fail = { (reply: WHEPReply) -> WHEPReply in
                if let gathered { ViewerGathering.release(gathered.gatherer, streams: gathered.streams, over: transport) }
                transport.close()
                table.release()
                return reply
            }
            let now = WebRTCLink.monotonicNow()
            let agent: PeerTransport.Agent
            // What a full agent checks from: the host candidate from the socket's own address (the advertised one
            // may be a NAT's), the relayed ones as gathered.
            let locals = gathered.map { gathered in
                ICEFullAgent.LocalCandidate.checked(from: negotiation.candidates).enumerated().map { index, candidate in
                    index == 0 ? ICEFullAgent.LocalCandidate(address: gathered.local, priority: candidate.priority) : candidate
                }
            } ?? []
            if gathered != nil {
                var configuration = ICEFullAgent.Configuration()
                configuration.consentTimeout = consentTimeout
                // Controlled, as the answerer; controlling facing an ICE-lite viewer (RFC 8445 section 6.1.1).
                var full = ICEFullAgent(local: credentials, remote: negotiated.remoteCredentials, localCandidates: locals,
                                        role: negotiated.remoteICELite ? .controlling : .controlled,
                                        configuration: configuration, now: now)
                // (The agent pairs each with our candidates of its family only, as it does trickled ones.)
                for candidate in negotiated.remoteCandidates { full.addRemoteCandidate(candidate) }
                agent = .full(full)
            } else {
                var configuration = ICELiteAgent.Configuration()
                configuration.consentTimeout = consentTimeout
                agent = .lite(ICELiteAgent(local: credentials, remote: negotiated.remoteCredentials,
                                           configuration: configuration, now: now))
            }
            let peer: PeerTransport
            do {
                peer = PeerTransport(
                    agent: agent,
                    dtls: try DTLSEndpoint(context: context, role: negotiated.dtlsRole,
                                           remoteFingerprint: negotiated.remoteFingerprint),
                    gatherer: gathered?.gatherer)
            } catch {
                return fail(.error(500, "DTLS set-up failed: \(error)"))
            }
            let session = ViewerSession(
                id: id, transport: transport, negotiated: negotiated, ssrc: ssrc, rtxSSRC: rtxSSRC,
                fecSSRC: negotiation.fecSSRC, credentials: credentials, candidates: negotiation.candidates,
                checkedCandidates: locals,
                encoder: encoder, table: table, events: events, logger: logger)
            guard table.install(id, ViewerTable.Handle(loop: transport.eventLoop,
                                                       session: NIOLoopBound(session, eventLoop: transport.eventLoop)))
            else {
                if let gathered { ViewerGathering.release(gathered.gatherer, streams: gathered.streams, over: transport) }
                transport.close()
                return .error(503, "the server is finishing")
            }
            session.start(peer: peer, local: gathered?.local, streams: gathered?.streams, connectTimeout: connectTimeout)
            logger.debug("offer answered", metadata: ["viewer": "\(ViewerSession.logID(id))"])
            return WHEPReply(status: 201, headers: [
                ("Content-Type", "application/sdp"),
                ("Location", "\(WHEPRequest.endpointPath)/\(id)"),
                ("ETag", session.etag),
                ("Accept-Patch", TrickleICEFragment.mediaType),
            ], body: answer.sdp)
        }
    }
}
