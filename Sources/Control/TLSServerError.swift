import HTTPEndpoint

/// Why an HTTPS endpoint (`TLSServerConfiguration`) cannot start. The key's contents never appear.
public enum TLSServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The certificate chain file cannot be read or holds no PEM certificate.
    case certificateUnreadable(path: String, reason: String)
    /// The private key file cannot be read or is not an unencrypted PEM private key.
    case privateKeyUnreadable(path: String, reason: String)
    /// The private key does not belong to the chain's first certificate.
    case keyMismatch(certificatePath: String, privateKeyPath: String)
    /// The TLS library refused the configuration for another reason.
    case setupFailed(String)
    /// This build has no TLS: it was built without the `TLS` trait (`--disable-default-traits`).
    case notInThisBuild

    /// The error in words.
    public var description: String {
        switch self {
        case .certificateUnreadable(let path, let reason): "--tls-cert \(path): \(reason)"
        case .privateKeyUnreadable(let path, let reason): "--tls-key \(path): \(reason)"
        case .keyMismatch(let certificatePath, let privateKeyPath):
            "--tls-key \(privateKeyPath) is not the private key of the certificate in --tls-cert \(certificatePath) (key mismatch)"
        case .setupFailed(let reason): "cannot set up TLS: \(reason.prefix(300))"
        case .notInThisBuild: TLSAvailability.missingMessage
        }
    }
}
