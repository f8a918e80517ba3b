import NIOCore

/// What one small HTTP endpoint (WHEP, the control endpoint) lets its clients hold: connections at once, in all and
/// per client address; the time to send a whole request; the size of a request head and of a body. Past a connection
/// limit a new connection gets `503` with `Retry-After` and is closed; a request not complete within
/// `requestTimeout` (from its first byte, or from the accept) has its connection closed, however it trickles; a head
/// over `maximumHeadSize` gets `431` and is closed (issue 20, item 3).
package struct HTTPEndpointLimits: Sendable, Equatable {
    /// The most connections at once, from every client (capped further at three quarters of the process's
    /// descriptor limit when the listener starts: `descriptorReserveDivisor`).
    package var maximumConnections: Int
    /// The most connections at once from one client address.
    package var maximumConnectionsPerAddress: Int
    /// How long a client may take to send one whole request (head and body), from its first byte or, for a new
    /// connection, from the accept. Independent of `idleTimeout`: a drip of one byte every few seconds is never idle.
    package var requestTimeout: TimeAmount
    /// How long a connection may see no traffic at all before it is closed (a response being computed counts as
    /// none: keep it above the slowest reply).
    package var idleTimeout: TimeAmount
    /// The largest request head (request line and header lines, up to the empty line) accepted.
    package var maximumHeadSize: Int
    /// The largest request body accepted; a larger one reaches `route` as `bodyTooLarge` (413).
    package var maximumBodySize: Int

    /// Creates limits.
    /// - Parameters:
    ///   - maximumConnections: connections at once, in all.
    ///   - maximumConnectionsPerAddress: connections at once from one address.
    ///   - requestTimeout: the time to send one whole request.
    ///   - idleTimeout: the time without traffic after which a connection is closed.
    ///   - maximumHeadSize: the largest request head.
    ///   - maximumBodySize: the largest body.
    package init(
        maximumConnections: Int, maximumConnectionsPerAddress: Int, requestTimeout: TimeAmount = defaultRequestTimeout,
        idleTimeout: TimeAmount, maximumHeadSize: Int = defaultMaximumHeadSize, maximumBodySize: Int
    ) {
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.maximumHeadSize = maximumHeadSize
        self.maximumBodySize = maximumBodySize
    }

    /// 10 s for a whole request: a browser or curl sends a head of a few hundred bytes and an offer of 5-10 KiB in
    /// one round trip; 10 s leaves room for a slow mobile link while a 1 byte / 5 s drip holds a slot for 10 s at
    /// most (the idle timeout never fires on it). Apache's mod_reqtimeout defaults to 20-40 s for the header, nginx's
    /// client_header_timeout to 60 s: ours are API endpoints, not file uploads.
    package static let defaultRequestTimeout = TimeAmount.seconds(10)

    /// 16 KiB for a request head: ours need a request line, `Host`, `Authorization` (a token of at most 1 KiB),
    /// `Content-Type`, `Content-Length` and what browsers add (cookies do not apply: no cookie is set) - 1-2 KiB.
    /// nginx's large_client_header_buffers default is 4 x 8 KiB; NIO's default (80 KiB per message) let each
    /// unfinished head pin about 360 KB.
    package static let defaultMaximumHeadSize = 16 * 1024

    /// The part of the process's descriptor limit (`RLIMIT_NOFILE`) kept from HTTP connections: a quarter, so that the
    /// runtime (about 20), the viewers' UDP sockets and refused connections being closed keep theirs, and the
    /// connection limit answers 503 before `accept` fails with `EMFILE`. At `ulimit -n 256` HTTP gets 192 (four
    /// addresses at the per-address limit of 32 hold 128, and a fifth client is still served); at 1,024 the limit
    /// of 256 applies as it is.
    package static let descriptorReserveDivisor = 4

    /// The seconds a refused client is told to wait (`Retry-After`), as for a full viewer table.
    package static let retryAfterSeconds = 5

    /// How long the listener stops accepting after `accept` failed (`EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`):
    /// without a pause the level-triggered listening socket is reported readable again at once and the event loop
    /// spins on a failing `accept` (issue 20, item 3: a whole core at 256 descriptors). 100 ms: 10 retries a
    /// second cost nothing, and a descriptor freed is used within 0.1 s.
    package static let acceptBackoff = TimeAmount.milliseconds(100)
}
