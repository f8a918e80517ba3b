import HTTPEndpoint

/// Why one HTTP exchange (`HTTPExchange.perform`) or its TLS set-up (`TLSClientContext`) failed. Descriptions name the
/// URL; the callers (the WHIP client, the control client) map these to errors of their own wording.
package enum HTTPExchangeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The CA file cannot be read or holds no PEM certificate.
    case invalidCAFile(path: String, reason: String)
    /// The endpoint's TLS certificate has expired (its notAfter, UTC, is given).
    case certificateExpired(url: String, notAfter: String)
    /// The endpoint's TLS certificate does not name the host of the URL (no matching DNS name or IP address).
    case certificateHostMismatch(url: String, host: String)
    /// The endpoint's TLS certificate chain is not trusted: an unknown issuer, or a certificate not valid yet.
    case certificateUntrusted(url: String, reason: String)
    /// The TLS handshake failed for another reason (no common protocol version or cipher, a TLS alert, not TLS), or
    /// TLS could not be set up at all (the URL is then `-`).
    case tlsHandshakeFailed(url: String, reason: String)
    /// The URL or server needs TLS, which this build left out (built without the `TLS` trait).
    case tlsNotInThisBuild(url: String)
    /// The endpoint could not be reached (resolution, connection refused, reset) or its reply is not HTTP.
    case connectionFailed(url: String, reason: String)
    /// The connection closed before a complete reply.
    case noReply(url: String)
    /// The endpoint did not answer within the timeout.
    case timedOut(url: String)
    /// The reply was larger than the client accepts.
    case responseTooLarge(limit: Int)

    /// The error in words; text from the peer in it is bounded (`HTTPURL.printable`).
    package var description: String {
        switch self {
        case .invalidCAFile(let path, let reason):
            "CA file \(HTTPURL.printable(path)): \(HTTPURL.printable(reason))"
        case .certificateExpired(let url, let notAfter):
            "the TLS certificate of \(url) has expired (not valid after \(HTTPURL.printable(notAfter)))"
        case .certificateHostMismatch(let url, let host):
            "the TLS certificate of \(url) does not match the host name '\(host)' (host name mismatch)"
        case .certificateUntrusted(let url, let reason):
            "the TLS certificate of \(url) is not trusted: \(HTTPURL.printable(reason))"
        case .tlsHandshakeFailed(let url, let reason): "the TLS handshake with \(url) failed: \(HTTPURL.printable(reason))"
        case .tlsNotInThisBuild(let url): "\(url): \(TLSAvailability.missingMessage)"
        case .connectionFailed(let url, let reason): "cannot reach \(url): \(HTTPURL.printable(reason))"
        case .noReply(let url): "\(url) closed the connection without a complete reply"
        case .timedOut(let url): "\(url) did not answer in time"
        case .responseTooLarge(let limit): "the reply exceeds \(limit) bytes"
        }
    }
}
