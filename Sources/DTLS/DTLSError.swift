/// An error from creating a certificate or context, or from a DTLS handshake.
public enum DTLSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An OpenSSL call failed.
    case openSSL(OpenSSLFailure)
    /// The peer's certificate does not hash to the `a=fingerprint` it announced: the handshake was refused
    /// (RFC 8122 section 5, RFC 8827 section 6.5). `received` is the certificate's actual fingerprint.
    case fingerprintMismatch(expected: DTLSFingerprint, received: DTLSFingerprint?)
    /// The peer sent no certificate.
    case noPeerCertificate
    /// The handshake completed without a `use_srtp` profile both sides support.
    case noSRTPProfile
    /// The negotiated SRTP protection profile is not one this package maps to an `SRTPSuite`.
    case unsupportedSRTPProfile(id: UInt)
    /// An `a=fingerprint` value could not be parsed.
    case invalidFingerprint(String)
    /// The fingerprint's hash function is not one OpenSSL knows.
    case unsupportedHashFunction(String)
    /// A configuration value is out of range.
    case invalidConfiguration(String)
    /// The operation needs another state (e.g. data before the handshake, or a closed endpoint).
    case invalidState(String)

    public var description: String {
        switch self {
        case .openSSL(let failure): "DTLS: \(failure)"
        case .fingerprintMismatch(let expected, let received):
            "DTLS peer certificate fingerprint \(received?.sdpValue ?? "(none)") does not match a=fingerprint "
                + expected.sdpValue
        case .noPeerCertificate: "DTLS peer sent no certificate"
        case .noSRTPProfile: "DTLS handshake negotiated no SRTP protection profile (use_srtp)"
        case .unsupportedSRTPProfile(let id): "DTLS negotiated SRTP protection profile 0x\(String(id, radix: 16))"
        case .invalidFingerprint(let text): "invalid a=fingerprint value: \(text)"
        case .unsupportedHashFunction(let name): "unsupported fingerprint hash function \(name)"
        case .invalidConfiguration(let reason): "invalid DTLS configuration: \(reason)"
        case .invalidState(let reason): "DTLS: \(reason)"
        }
    }
}
