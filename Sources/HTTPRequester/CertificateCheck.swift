#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if TLS
import NIOSSL
#endif

/// What the TLS verification found wrong with the endpoint's certificate chain, for one connection: filled by the
/// verification callback (on the connection's event loop) and read when the handshake fails, on the same loop.
final class CertificateCheck: @unchecked Sendable {
    /// Why BoringSSL rejected a certificate, as far as the certificate itself tells.
    enum Problem: Equatable {
        /// Past its notAfter (UTC text).
        case expired(notAfter: String)
        /// Before its notBefore (UTC text).
        case notYetValid(notBefore: String)
        /// Valid in time, so the chain does not end at a trusted CA (or a certificate is not fit for a server).
        case unknownIssuer
    }

    /// The first rejected certificate's problem.
    private(set) var problem: Problem?
    /// The clock (seconds since 1970); injected for tests.
    private let now: () -> Int

    init(now: @escaping () -> Int = { Int(time(nil)) }) { self.now = now }

    #if TLS
    /// Records the first certificate BoringSSL rejected.
    func record(_ certificate: NIOSSLCertificate) {
        guard problem == nil else { return }
        let seconds = now()
        if Int(certificate.notValidAfter) < seconds {
            problem = .expired(notAfter: Self.utc(Int(certificate.notValidAfter)))
        } else if Int(certificate.notValidBefore) > seconds {
            problem = .notYetValid(notBefore: Self.utc(Int(certificate.notValidBefore)))
        } else {
            problem = .unknownIssuer
        }
    }
    #endif

    /// `YYYY-MM-DD HH:MM:SS UTC`.
    static func utc(_ seconds: Int) -> String {
        var value = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&value, &parts) != nil else { return "\(seconds) s after 1970" }
        func two(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }
}
