#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
#if TLS
import NIOSSL

/// The TLS side of the HTTP clients' `https://` exchanges: one swift-nio-ssl context per client (trust roots loaded
/// once), and a handler per connection. Never part of a public API.
///
/// Policy, with no way to loosen it: TLS 1.2 or later; the certificate chain verified against the system's trust
/// store (NIOSSL's default trust roots: the distribution's CA bundle) plus the CA file; the host name verified
/// against the certificate (a DNS name is also sent as SNI; an IP literal is matched against the certificate's IP
/// addresses and not sent, as RFC 6066 section 3 forbids literals in SNI).
package struct TLSClientContext: Sendable {
    /// The oldest TLS version spoken: 1.2 (RFC 8996 deprecates 1.0 and 1.1; RFC 9325 section 3.1.1).
    static let minimumVersion = TLSVersion.tlsv12

    let context: NIOSSLContext

    /// Loads the trust roots.
    /// - Parameters:
    ///   - caFile: A PEM file of extra trust anchors, or nil.
    /// - Throws: `HTTPExchangeError.invalidCAFile` when the file cannot be read or holds no certificate,
    ///   `.tlsHandshakeFailed` when the TLS library cannot be set up.
    package init(caFile: String?) throws(HTTPExchangeError) {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = Self.minimumVersion
        configuration.certificateVerification = .fullVerification
        configuration.trustRoots = .default
        if let caFile {
            let certificates: [NIOSSLCertificate]
            do {
                try Self.checkReadable(caFile)
                certificates = try NIOSSLCertificate.fromPEMFile(caFile)
            } catch let error as HTTPExchangeError {
                throw error
            } catch {
                throw .invalidCAFile(path: caFile, reason: "not a PEM certificate file (\(error))")
            }
            guard !certificates.isEmpty else { throw .invalidCAFile(path: caFile, reason: "holds no PEM certificate") }
            configuration.additionalTrustRoots = [.certificates(certificates)]
        }
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw .tlsHandshakeFailed(url: "-", reason: "cannot set up TLS: \(error)")
        }
    }

    /// A client handler for one connection to `url`, recording why a certificate failed in `check`.
    /// - Parameters:
    ///   - url: The URL being requested (its host is verified).
    ///   - check: Where the verification records the first certificate it rejects.
    /// - Returns: The handler to put first in the pipeline.
    /// - Throws: NIOSSL's errors for a host name that cannot be sent as SNI.
    func makeHandler(for url: HTTPURL, check: CertificateCheck) throws -> NIOSSLClientHandler {
        // An IP literal goes without SNI; NIOSSL then matches the certificate against the peer's address.
        let serverName = IPv4Address.isLiteral(url.host) || url.host.contains(":") ? nil : url.host
        return try (RecordingVerification.self as any CertificateRecordingHandler.Type).handler(
            context: context, serverHostname: serverName, check: check)
    }

    /// A client handler for one TLS connection that is not HTTP (TURN over TLS, `turns:`), under the same policy, and
    /// the function that names what went wrong when the connection fails (expired, unknown issuer, name mismatch).
    /// - Parameters:
    ///   - host: The server's host name or IP literal, verified against its certificate.
    ///   - name: How errors name the server (its URI).
    /// - Returns: The handler to put first in the pipeline, and the explanation of an error it raised (nil when the
    ///   error is not TLS's).
    /// - Throws: NIOSSL's errors for a host name that cannot be sent as SNI.
    package func makeStreamHandler(
        host: String, name: String
    ) throws -> (handler: NIOSSLClientHandler, explain: (any Error) -> String?) {
        let check = CertificateCheck()
        let serverName = IPv4Address.isLiteral(host) || host.contains(":") ? nil : host
        let handler = try (RecordingVerification.self as any CertificateRecordingHandler.Type).handler(
            context: context, serverHostname: serverName, check: check)
        return (handler, { HTTPExchange.tlsError($0, url: name, host: host, check: check)?.description })
    }

    /// Throws `invalidCAFile` with the system's reason when `path` cannot be opened for reading.
    static func checkReadable(_ path: String) throws(HTTPExchangeError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw .invalidCAFile(path: path, reason: "cannot read it (\(String(cString: strerror(errno))))")
        }
        close(descriptor)
    }
}

/// Makes the client handler whose per-certificate callback records why BoringSSL rejected a certificate.
private protocol CertificateRecordingHandler {
    static func handler(
        context: NIOSSLContext, serverHostname: String?, check: CertificateCheck
    ) throws -> NIOSSLClientHandler
}

/// The per-certificate callback is the one hook that shows which certificate BoringSSL rejected while leaving the
/// verification itself to BoringSSL: it keeps BoringSSL's verdict and only records why (expired, not yet valid,
/// unknown issuer). NIOSSL marks it deprecated in favour of callbacks that replace the verification, which we do not
/// want; the deprecated call is reached through `CertificateRecordingHandler`, so the build stays free of warnings
/// while this is the one place that knows.
private enum RecordingVerification: CertificateRecordingHandler {
    @available(*, deprecated, message: "uses NIOSSL's per-certificate verification callback on purpose")
    static func handler(
        context: NIOSSLContext, serverHostname: String?, check: CertificateCheck
    ) throws -> NIOSSLClientHandler {
        try NIOSSLClientHandler(context: context, serverHostname: serverHostname) { verdict, certificate in
            if case .failed = verdict { check.record(certificate) }
            return verdict
        }
    }
}
#else

/// The TLS side of the HTTP clients in a build without the `TLS` trait: it can be made (an `http://` exchange needs
/// none), and every use of it is `HTTPExchangeError.tlsNotInThisBuild`.
package struct TLSClientContext: Sendable {
    /// Makes the context; a CA file is not read, since nothing here could use it.
    /// - Parameter caFile: A PEM file of extra trust anchors, or nil.
    package init(caFile: String?) throws(HTTPExchangeError) {}

    /// Throws `tlsNotInThisBuild` for `url`.
    func makeHandler(for url: HTTPURL, check: CertificateCheck) throws(HTTPExchangeError) -> any ChannelHandler {
        throw .tlsNotInThisBuild(url: url.description)
    }

    /// Throws `tlsNotInThisBuild` for the server `name`.
    package func makeStreamHandler(
        host: String, name: String
    ) throws -> (handler: any ChannelHandler, explain: (any Error) -> String?) {
        throw HTTPExchangeError.tlsNotInThisBuild(url: name)
    }
}
#endif
