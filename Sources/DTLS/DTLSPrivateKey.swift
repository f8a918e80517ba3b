internal import COpenSSL

/// An ECDSA P-256 private key: the one owner of an OpenSSL `EVP_PKEY`, freed in `deinit`. Never printed or exported.
// @unchecked Sendable: the key is generated in init and never mutated afterwards; OpenSSL allows concurrent read-only
// use of an EVP_PKEY (signing in several SSL handshakes at once takes its own per-operation contexts).
public final class DTLSPrivateKey: @unchecked Sendable, CustomStringConvertible {
    let key: OpaquePointer

    /// The curve: NIST P-256 (secp256r1), what browsers generate for WebRTC (RFC 8827 section 6.5 allows ECDSA).
    static let curveName = "P-256"

    /// Generates a fresh key.
    /// - Throws: `DTLSError.openSSL` with `EVP_EC_gen`'s failure. The corresponding C function is `EVP_EC_gen`.
    public init() throws(DTLSError) {
        ERR_clear_error()
        guard let key = COpenSSL_EC_generate(Self.curveName) else { throw .openSSL(.drain("EVP_EC_gen")) }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// `<private key>`: the key is never printed.
    public var description: String { "<ECDSA P-256 private key>" }
}
