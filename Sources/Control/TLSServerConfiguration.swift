#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPEndpoint
#if TLS
import NIOSSL
#endif

/// HTTPS for an endpoint (the control endpoint, a WHEP server): a PEM certificate chain and its private key.
///
/// The files are read when the server starts (`ControlServer`, `WHEPServer`); one that cannot be read, is not PEM,
/// or a key that does not belong to the certificate is a `TLSServerError` then, before anything listens. TLS 1.2
/// or later is spoken (RFC 8996; RFC 9325 section 3.1.1); clients are not asked for certificates.
public struct TLSServerConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The PEM file of the certificate chain: the server's certificate first, then any intermediates.
    public var certificateChainPath: String
    /// The PEM file of the certificate's private key (unencrypted).
    public var privateKeyPath: String

    /// Creates a configuration (nothing is read yet).
    /// - Parameters:
    ///   - certificateChainPath: the PEM certificate chain (`--tls-cert`).
    ///   - privateKeyPath: the PEM private key (`--tls-key`).
    public init(certificateChainPath: String, privateKeyPath: String) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
    }

    /// The paths (a key's path is no secret; its contents are never printed).
    public var description: String {
        "TLSServerConfiguration(certificateChain: \(certificateChainPath), privateKey: \(privateKeyPath))"
    }

    /// Reads the files and makes the server context.
    /// - Returns: swift-nio-ssl's context for `HTTPEndpointListener`.
    /// - Throws: `TLSServerError` naming the file and the cause; `.notInThisBuild` in a build without the TLS trait.
    package func makeContext() throws(TLSServerError) -> HTTPEndpointTLSContext {
        #if TLS
        let chain: [NIOSSLCertificate]
        do {
            try Self.checkReadable(certificateChainPath) { .certificateUnreadable(path: certificateChainPath, reason: $0) }
            chain = try NIOSSLCertificate.fromPEMFile(certificateChainPath)
        } catch let error as TLSServerError {
            throw error
        } catch {
            throw .certificateUnreadable(path: certificateChainPath, reason: "not a PEM certificate file")
        }
        guard !chain.isEmpty else { throw .certificateUnreadable(path: certificateChainPath, reason: "holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do {
            try Self.checkReadable(privateKeyPath) { .privateKeyUnreadable(path: privateKeyPath, reason: $0) }
            key = try NIOSSLPrivateKey(file: privateKeyPath, format: .pem)
        } catch let error as TLSServerError {
            throw error
        } catch {
            throw .privateKeyUnreadable(path: privateKeyPath, reason: "not an unencrypted PEM private key")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        // TLS 1.2 or later (RFC 8996; RFC 9325 section 3.1.1).
        configuration.minimumTLSVersion = .tlsv12
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch NIOSSLError.failedToLoadPrivateKey {
            // BoringSSL's SSL_CTX_use_PrivateKey refuses a key whose public half is not the leaf certificate's.
            throw .keyMismatch(certificatePath: certificateChainPath, privateKeyPath: privateKeyPath)
        } catch {
            throw .setupFailed("\(error)")
        }
        #else
        throw .notInThisBuild
        #endif
    }

    /// Throws `failure(reason)` with the system's reason when `path` cannot be opened for reading.
    static func checkReadable(_ path: String, failure: (String) -> TLSServerError) throws(TLSServerError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw failure("cannot read it (\(String(cString: strerror(errno))))") }
        close(descriptor)
    }
}
