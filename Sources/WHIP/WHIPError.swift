import WebRTC

/// Why publishing to a WHIP endpoint (RFC 9725) failed. Descriptions name the status and quote a short excerpt of
/// the endpoint's reply; the bearer token never appears in them.
public enum WHIPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The endpoint URL (or a `Location`) is not an absolute `http://` URL we can use.
    case invalidURL(String)
    /// The URL's scheme is not `http` (`https` is not supported: see `WHIPConfiguration`).
    case unsupportedScheme(String)
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

    /// The error in words; peer-supplied text in it is an excerpt (`PeerText`: bounded, controls escaped).
    public var description: String {
        switch self {
        case .invalidURL(let reason): "invalid WHIP URL: \(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        case .unsupportedScheme(let scheme):
            "WHIP URL scheme '\(PeerText.excerpt(scheme, limit: 20))' is not supported: use http:// (for https, put a TLS-terminating proxy on this host)"
        case .connectionFailed(let url, let reason):
            "cannot reach the WHIP endpoint \(PeerText.excerpt(url)): \(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        case .timedOut(let url): "the WHIP endpoint \(PeerText.excerpt(url)) did not answer in time"
        case .authenticationFailed(let status, let excerpt):
            "the WHIP endpoint refused the credentials (HTTP \(status))\(excerpt.isEmpty ? "" : ": \(PeerText.excerpt(excerpt, limit: 2 * PeerText.maximumExcerptLength))"); "
                + "check --token"
        case .httpStatus(let status, let method, let excerpt):
            "the WHIP endpoint answered \(method) with HTTP \(status)\(excerpt.isEmpty ? "" : ": \(PeerText.excerpt(excerpt, limit: 2 * PeerText.maximumExcerptLength))")"
        case .tooManyRedirects(let count): "more than \(count) WHIP redirects in a row"
        case .badLocation(let reason): "the WHIP endpoint's Location is unusable: \(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        case .badAnswer(let reason): "the WHIP endpoint's answer is unusable: \(PeerText.excerpt(reason, limit: 3 * PeerText.maximumExcerptLength))"
        case .responseTooLarge(let limit): "the WHIP endpoint's reply exceeds \(limit) bytes"
        case .transportClosed(let reason): "the WebRTC transport to the WHIP endpoint closed: \(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        }
    }
}
