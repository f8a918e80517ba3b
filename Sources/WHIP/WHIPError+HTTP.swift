import HTTPRequester

extension WHIPError {
    /// The WHIP error for a failed HTTP exchange (the shared client's errors, worded for the WHIP endpoint).
    /// - Parameter error: what `HTTPExchange.perform` or `TLSClientContext` threw.
    init(_ error: HTTPExchangeError) {
        switch error {
        case .invalidCAFile(let path, let reason): self = .invalidCAFile(path: path, reason: reason)
        case .certificateExpired(let url, let notAfter): self = .certificateExpired(url: url, notAfter: notAfter)
        case .certificateHostMismatch(let url, let host): self = .certificateHostMismatch(url: url, host: host)
        case .certificateUntrusted(let url, let reason): self = .certificateUntrusted(url: url, reason: reason)
        case .tlsHandshakeFailed(let url, let reason): self = .tlsHandshakeFailed(url: url, reason: reason)
        case .tlsNotInThisBuild(let url): self = .tlsNotInThisBuild(url: url)
        case .connectionFailed(let url, let reason): self = .connectionFailed(url: url, reason: reason)
        case .noReply(let url): self = .connectionFailed(url: url, reason: "the connection closed before a complete reply")
        case .timedOut(let url): self = .timedOut(url: url)
        case .responseTooLarge(let limit): self = .responseTooLarge(limit: limit)
        }
    }

    /// The WHIP error for a URL that cannot be used: the endpoint's (`invalidURL`, `unsupportedScheme`) or a
    /// `Location` resolved against it (`badLocation`, `unsupportedScheme`).
    /// - Parameter error: what `HTTPURL(parsing:)` or `HTTPURL.resolving(_:)` threw.
    init(_ error: HTTPURLError) {
        switch error {
        case .invalid(let reason): self = .invalidURL(reason)
        case .unsupportedScheme(let scheme): self = .unsupportedScheme(scheme)
        case .unusableReference(let reason): self = .badLocation(reason)
        }
    }
}
