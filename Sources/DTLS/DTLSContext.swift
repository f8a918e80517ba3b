internal import COpenSSL
public import SRTP

/// The DTLS 1.2 configuration shared by every endpoint that uses one certificate: the one owner of an OpenSSL
/// `SSL_CTX`, freed in `deinit`.
///
/// It pins DTLS 1.2, loads the certificate and key, asks every peer for its certificate (checked against
/// `a=fingerprint` by each `DTLSEndpoint`), and offers the `use_srtp` extension (RFC 5764) with the given suites.
// @unchecked Sendable: the SSL_CTX is fully configured in init and never changed afterwards; OpenSSL documents
// SSL_new on a shared, no longer modified SSL_CTX as thread-safe, so endpoints on several threads may share it.
public final class DTLSContext: @unchecked Sendable {
    let context: OpaquePointer
    /// The certificate presented to peers.
    public let certificate: DTLSCertificate
    /// The SRTP suites offered, most preferred first.
    public let srtpSuites: [SRTPSuite]

    /// The suites offered by default: AEAD_AES_128_GCM then AES_CM_128_HMAC_SHA1_80 (what Chromium offers first, and
    /// the suite every WebRTC endpoint must support, RFC 8827 section 6.5).
    public static let defaultSRTPSuites: [SRTPSuite] = [.aeadAES128GCM, .aesCM128HMACSHA1_80]

    /// The DTLS 1.2 cipher suites offered: ECDHE with AEAD first (RFC 8827 section 6.5 requires
    /// TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256; RFC 9325 section 4.2 recommends the GCM and ChaCha20 suites), RSA
    /// certificates for peers that use them, and the CBC suites last for older SFUs.
    static let cipherList = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305",
        "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-RSA-CHACHA20-POLY1305",
        "ECDHE-ECDSA-AES128-SHA", "ECDHE-RSA-AES128-SHA",
    ].joined(separator: ":")

    /// Creates a context.
    /// - Parameters:
    ///   - certificate: The certificate and key to present.
    ///   - srtpSuites: The SRTP suites to offer in `use_srtp`, most preferred first; each needs a DTLS profile.
    /// - Throws: `DTLSError.invalidConfiguration` for an empty list or a suite without a DTLS profile;
    ///   `DTLSError.openSSL` naming the OpenSSL call that failed.
    public init(certificate: DTLSCertificate, srtpSuites: [SRTPSuite] = DTLSContext.defaultSRTPSuites) throws(DTLSError) {
        let profiles = srtpSuites.compactMap(\.dtlsProfileName)
        guard !srtpSuites.isEmpty, profiles.count == srtpSuites.count else {
            throw .invalidConfiguration("SRTP suites \(srtpSuites.map(\.sdpName)) need DTLS-SRTP profiles")
        }
        ERR_clear_error()
        guard let context = SSL_CTX_new(DTLS_method()) else { throw .openSSL(.drain("SSL_CTX_new")) }
        self.context = context
        self.certificate = certificate
        self.srtpSuites = srtpSuites
        // From here `deinit` frees the context if a later step throws.
        guard COpenSSL_CTX_pin_DTLS_1_2(context) == 1 else { throw .openSSL(.drain("SSL_CTX_set_min_proto_version")) }
        guard SSL_CTX_set_cipher_list(context, Self.cipherList) == 1 else {
            throw .openSSL(.drain("SSL_CTX_set_cipher_list"))
        }
        COpenSSL_CTX_disable_tickets(context)
        guard SSL_CTX_use_certificate(context, certificate.certificate) == 1 else {
            throw .openSSL(.drain("SSL_CTX_use_certificate"))
        }
        guard SSL_CTX_use_PrivateKey(context, certificate.privateKey.key) == 1 else {
            throw .openSSL(.drain("SSL_CTX_use_PrivateKey"))
        }
        guard SSL_CTX_check_private_key(context) == 1 else { throw .openSSL(.drain("SSL_CTX_check_private_key")) }
        // Returns 0 on success (sic).
        guard SSL_CTX_set_tlsext_use_srtp(context, profiles.joined(separator: ":")) == 0 else {
            throw .openSSL(.drain("SSL_CTX_set_tlsext_use_srtp"))
        }
    }

    deinit { SSL_CTX_free(context) }
}
