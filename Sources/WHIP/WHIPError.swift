import HTTPEndpoint
import WebRTC

/// Why publishing to a WHIP endpoint (RFC 9725) failed. Descriptions name the status and quote a short excerpt of
/// the endpoint's reply; the bearer token never appears in them.
public enum WHIPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The endpoint URL (or a `Location`) is not an absolute `http://` or `https://` URL we can use.
    case invalidURL(String)
    /// The URL's scheme is neither `http` nor `https`.
    case unsupportedScheme(String)
    /// A bearer token would go in clear (`http://`) to a host that is not loopback: use `https://`. Checked before
    /// any connection, and again for every redirect the token would follow.
    case tokenRequiresHTTPS(url: String)
    /// The CA file (`WHIPConfiguration.caFile`, `--ca-file`) cannot be read or holds no PEM certificate.
    case invalidCAFile(path: String, reason: String)
    /// The endpoint's TLS certificate has expired (its notAfter, UTC, is given).
    case certificateExpired(url: String, notAfter: String)
    /// The endpoint's TLS certificate does not name the host of the URL (no matching DNS name or IP address).
    case certificateHostMismatch(url: String, host: String)
    /// The endpoint's TLS certificate chain is not trusted: an unknown issuer (a self-signed certificate or a CA
    /// that neither the system's trust store nor `caFile` holds), or a certificate not valid yet.
    case certificateUntrusted(url: String, reason: String)
    /// The TLS handshake failed for another reason (no common protocol version or cipher, a TLS alert, not TLS).
    case tlsHandshakeFailed(url: String, reason: String)
    /// The URL (or a `turns:` server) needs TLS, which this build left out: it was built without the package's
    /// `TLS` trait (`--disable-default-traits`).
    case tlsNotInThisBuild(url: String)
    /// The endpoint could not be reached (resolution, connection refused, reset).
    case connectionFailed(url: String, reason: String)
    /// The endpoint did not answer within the request timeout.
    case timedOut(url: String)
    /// The endpoint refused our credentials: 401 Unauthorized or 403 Forbidden.
    case authenticationFailed(status: Int, excerpt: String)
    /// Any other status we cannot use (4xx, 5xx, an unexpected 1xx-3xx).
    case httpStatus(status: Int, method: String, excerpt: String)
    /// More 307/308 redirects in a row than allowed.
    case tooManyRedirects(Int)
    /// A redirect or a 201 without a usable `Location` header.
    case badLocation(String)
    /// The 201 reply's body is not an SDP answer we can use (content type, size, syntax, or negotiation).
    case badAnswer(String)
    /// The reply was larger than the client accepts.
    case responseTooLarge(limit: Int)
    /// ICE or DTLS ended the session (consent expired, no working pair, handshake failure or timeout).
    case transportClosed(String)
    /// A configured STUN or TURN server (`WHIPConfiguration.iceServers`, `--ice-server`) cannot be used: an
    /// unsupported kind, a missing credential, a host name that does not resolve. Never holds a credential.
    case iceServer(uri: String, reason: String)

    /// The error in words; peer-supplied text in it is an excerpt (`PeerText`: bounded, controls escaped).
    public var description: String { description(endpoint: "WHIP") }

    /// The error in words for an endpoint of another protocol on the same HTTP exchange (`"WHEP"` for a player).
    /// - Parameter name: the protocol's name.
    public func description(endpoint name: String) -> String {
        switch self {
        case .invalidURL(let reason): "invalid \(name) URL: \(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        case .unsupportedScheme(let scheme):
            "\(name) URL scheme '\(PeerText.excerpt(scheme, limit: 20))' is not supported: only http:// and https:// are"
        case .tokenRequiresHTTPS(let url):
            "refusing to send the bearer token in clear to \(PeerText.excerpt(url)): use an https:// URL (plain http:// "
                + "carries a token only to a loopback host)"
        case .invalidCAFile(let path, let reason):
            "--ca-file \(PeerText.excerpt(path)): \(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        case .certificateExpired(let url, let notAfter):
            "the TLS certificate of the \(name) endpoint \(PeerText.excerpt(url)) has expired (not valid after "
                + "\(PeerText.excerpt(notAfter, limit: 40)))"
        case .certificateHostMismatch(let url, let host):
            "the TLS certificate of the \(name) endpoint \(PeerText.excerpt(url)) does not match the host name "
                + "'\(PeerText.excerpt(host))' (host name mismatch)"
        case .certificateUntrusted(let url, let reason):
            "the TLS certificate of the \(name) endpoint \(PeerText.excerpt(url)) is not trusted: "
                + "\(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        case .tlsHandshakeFailed(let url, let reason):
            "the TLS handshake with the \(name) endpoint \(PeerText.excerpt(url)) failed: "
                + "\(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        case .tlsNotInThisBuild(let url): "\(PeerText.excerpt(url)): \(TLSAvailability.missingMessage)"
        case .connectionFailed(let url, let reason):
            "cannot reach the \(name) endpoint \(PeerText.excerpt(url)): \(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        case .timedOut(let url): "the \(name) endpoint \(PeerText.excerpt(url)) did not answer in time"
        case .authenticationFailed(let status, let excerpt):
            "the \(name) endpoint refused the credentials (HTTP \(status))\(excerpt.isEmpty ? "" : ": \(PeerText.excerpt(excerpt, limit: 2 * PeerText.maximumExcerptLength))"); "
                + "check --token"
        case .httpStatus(let status, let method, let excerpt):
            "the \(name) endpoint answered \(method) with HTTP \(status)\(excerpt.isEmpty ? "" : ": \(PeerText.excerpt(excerpt, limit: 2 * PeerText.maximumExcerptLength))")"
        case .tooManyRedirects(let count): "more than \(count) \(name) redirects in a row"
        case .badLocation(let reason): "the \(name) endpoint's Location is unusable: \(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        case .badAnswer(let reason): "the \(name) endpoint's answer is unusable: \(PeerText.excerpt(reason, limit: 3 * PeerText.maximumExcerptLength))"
        case .responseTooLarge(let limit): "the \(name) endpoint's reply exceeds \(limit) bytes"
        case .transportClosed(let reason): "the WebRTC transport to the \(name) endpoint closed: \(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        case .iceServer(let uri, let reason): "ICE server \(PeerText.excerpt(uri)): \(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        }
    }
}
