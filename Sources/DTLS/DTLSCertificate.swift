internal import COpenSSL

/// A self-signed X.509 certificate and its private key, made fresh for each process (RFC 8827 section 6.5: WebRTC
/// endpoints authenticate by the fingerprint in SDP, not by a CA). The one owner of an OpenSSL `X509`.
///
/// ```swift
/// let certificate = try DTLSCertificate.generate()
/// answer.fingerprint = certificate.fingerprint.sdpValue   // "sha-256 AB:CD:..."
/// ```
// @unchecked Sendable: the X509 is built and signed in generate() and never mutated afterwards; OpenSSL reference-counts
// it and SSL_CTX_use_certificate only reads it, so one certificate may serve every context on every thread.
public final class DTLSCertificate: @unchecked Sendable {
    let certificate: OpaquePointer
    /// The private key the certificate was signed with.
    public let privateKey: DTLSPrivateKey
    /// The SHA-256 fingerprint to put in `a=fingerprint`.
    public let fingerprint: DTLSFingerprint

    /// The subject and issuer common name.
    static let commonName = "rtc-h264"
    /// Validity starts a day in the past, so that a peer whose clock is behind still accepts it.
    static let notBeforeOffsetSeconds = -86_400
    /// Validity: 30 days, far longer than a process serves one certificate.
    static let validitySeconds = 30 * 86_400
    /// X.509 version 3 is encoded as 2 (RFC 5280 section 4.1.2.1).
    static let x509Version3 = 2

    private init(certificate: OpaquePointer, privateKey: DTLSPrivateKey) throws(DTLSError) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.fingerprint = try Self.fingerprint(of: certificate, hashFunction: "sha-256")
    }

    deinit { X509_free(certificate) }

    /// Generates an ECDSA P-256 key and a self-signed certificate for it, signed with SHA-256.
    /// - Parameters:
    ///   - generator: The source of the 63-bit serial number.
    /// - Returns: The certificate.
    /// - Throws: `DTLSError.openSSL` naming the OpenSSL call that failed.
    public static func generate(
        using generator: inout some RandomNumberGenerator
    ) throws(DTLSError) -> DTLSCertificate {
        let key = try DTLSPrivateKey()
        ERR_clear_error()
        guard let x509 = X509_new() else { throw .openSSL(.drain("X509_new")) }
        // Owned by `certificate` from here on, so every failure below frees it in deinit.
        func check(_ ok: Bool, _ function: String) throws(DTLSError) {
            if !ok { throw .openSSL(.drain(function)) }
        }
        do {
            try check(X509_set_version(x509, Int(x509Version3)) == 1, "X509_set_version")
            let serial = UInt64.random(in: 1...UInt64(Int64.max), using: &generator)
            try check(ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial) == 1, "ASN1_INTEGER_set_uint64")
            try check(X509_gmtime_adj(X509_getm_notBefore(x509), notBeforeOffsetSeconds) != nil, "X509_gmtime_adj")
            try check(X509_gmtime_adj(X509_getm_notAfter(x509), validitySeconds) != nil, "X509_gmtime_adj")
            let name = X509_get_subject_name(x509)
            try check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
                      "X509_NAME_add_entry_by_txt")
            try check(X509_set_issuer_name(x509, name) == 1, "X509_set_issuer_name")
            try check(X509_set_pubkey(x509, key.key) == 1, "X509_set_pubkey")
            try check(X509_sign(x509, key.key, EVP_sha256()) > 0, "X509_sign")
        } catch {
            X509_free(x509)
            throw error
        }
        return try DTLSCertificate(certificate: x509, privateKey: key)
    }

    /// Generates a certificate with a serial number from the system's secure generator.
    /// - Returns: The certificate.
    /// - Throws: `DTLSError.openSSL` naming the OpenSSL call that failed.
    public static func generate() throws(DTLSError) -> DTLSCertificate {
        var generator = SystemRandomNumberGenerator()
        return try generate(using: &generator)
    }

    /// The DER encoding of the certificate (public; for tests and diagnostics).
    public var derBytes: [UInt8] {
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_X509(certificate, &cursor)
        }
        return bytes
    }

    /// The fingerprint of an X509 with a named hash function.
    /// The corresponding C function is `X509_digest`.
    static func fingerprint(of x509: OpaquePointer, hashFunction: String) throws(DTLSError) -> DTLSFingerprint {
        guard let entry = DTLSFingerprint.hashFunctions[hashFunction] else {
            throw .unsupportedHashFunction(hashFunction)
        }
        guard let digest = EVP_get_digestbyname(entry.openSSLName) else {
            throw .unsupportedHashFunction(hashFunction)
        }
        var bytes = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        ERR_clear_error()
        guard X509_digest(x509, digest, &bytes, &length) == 1 else { throw .openSSL(.drain("X509_digest")) }
        return try DTLSFingerprint(hashFunction: hashFunction, digest: Array(bytes.prefix(Int(length))))
    }
}
