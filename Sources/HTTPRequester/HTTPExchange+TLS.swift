#if TLS
import NIOSSL
#endif

extension HTTPExchange {
    /// BoringSSL's reason when the chain did not verify (`SSL_R_CERTIFICATE_VERIFY_FAILED`); BoringSSL's error stack
    /// carries no more (the X.509 verify result stays in its store context), so `CertificateCheck` tells why.
    static let certificateVerifyFailed = "CERTIFICATE_VERIFY_FAILED"

    /// The `HTTPExchangeError` for an error swift-nio-ssl raised on a connection, or nil when it is not a TLS error.
    /// - Parameters:
    ///   - error: What the pipeline caught.
    ///   - url: The URL requested.
    ///   - check: What the verification recorded about the certificate it rejected.
    static func tlsError(_ error: any Error, url: HTTPURL, check: CertificateCheck) -> HTTPExchangeError? {
        tlsError(error, url: url.description, host: url.host, check: check)
    }

    /// The `HTTPExchangeError` for a TLS error on a connection to `url` (any URI: `turns:` too) whose certificate must
    /// name `host`, or nil when it is not a TLS error.
    static func tlsError(_ error: any Error, url: String, host: String, check: CertificateCheck) -> HTTPExchangeError? {
        #if TLS
        if let extra = error as? NIOSSLExtraError {
            if extra == .failedToValidateHostname || extra == .serverHostnameImpossibleToMatch {
                return .certificateHostMismatch(url: url, host: host)
            }
            return .tlsHandshakeFailed(url: url, reason: String(describing: extra))
        }
        if let ssl = error as? NIOSSLError {
            switch check.problem {
            case .expired(let notAfter)?:
                return .certificateExpired(url: url, notAfter: notAfter)
            case .notYetValid(let notBefore)?:
                return .certificateUntrusted(url: url, reason: "it is not valid before \(notBefore)")
            case .unknownIssuer?:
                return .certificateUntrusted(url: url, reason: unknownIssuer)
            case nil:
                break
            }
            let text = String(describing: ssl)
            if text.contains(certificateVerifyFailed) {
                return .certificateUntrusted(url: url, reason: "certificate verification failed (\(text))")
            }
            switch ssl {
            case .uncleanShutdown:
                return .tlsHandshakeFailed(url: url, reason: "the endpoint closed the connection without TLS close_notify")
            default:
                return .tlsHandshakeFailed(url: url, reason: text)
            }
        }
        if let boring = error as? BoringSSLError {
            return .tlsHandshakeFailed(url: url, reason: String(describing: boring))
        }
        #endif
        return nil
    }

    /// The reason given for a chain that does not end at a trusted CA.
    static let unknownIssuer =
        "unknown issuer: the certificate is self-signed or its CA is in neither the system's trust store nor "
        + "--ca-file (certificate verification failed)"
}
