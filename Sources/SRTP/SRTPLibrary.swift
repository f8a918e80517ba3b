internal import CSRTP
internal import CSRTPCrypto

/// Process-wide libsrtp state: `srtp_init` must run exactly once before any session is created.
enum SRTPLibrary {
    /// The status of the one `srtp_init()` call. Swift initializes globals lazily and thread-safely (`swift_once`),
    /// so the first session to need the library runs `srtp_init` and every later one reuses its result.
    ///
    /// First, when libsrtp2 uses NSS, one NSS context is opened and held for the life of the process: libsrtp2
    /// opens and closes one per crypto context, and NSS would otherwise unload and reload its softoken whenever the
    /// count drops to zero (14 times per process, 24 ms of CPU; see `CSRTP_holdNSSContext`).
    ///
    /// Then, once `srtp_init` succeeded, libsrtp2's AES-ICM, AES-GCM and HMAC-SHA1 are replaced by ones on OpenSSL's
    /// libcrypto (`CSRTPCrypto_installOpenSSL`, through libsrtp2's own `srtp_replace_cipher_type` and
    /// `srtp_replace_auth_type`): NSS set up a context per packet (14 allocations and about 5 us per AES-CM packet).
    private static let initialization: (status: UInt32, nssContext: Int32, openSSLCrypto: Int32) = {
        let nssContext = CSRTP_holdNSSContext()
        let status = srtp_init().rawValue
        let crypto = status == srtp_err_status_ok.rawValue ? CSRTPCrypto_installOpenSSL() : -1
        return (status, nssContext, crypto)
    }()

    /// Whether AES-ICM, AES-GCM and HMAC-SHA1 run on OpenSSL (each passed libsrtp2's self-test and replaced libsrtp2's own).
    static var usesOpenSSLCrypto: Bool { initialization.openSSLCrypto == 0 }

    /// What `CSRTP_holdNSSContext` answered at initialization: 1 held, 0 libsrtp2 does not use NSS, -1 NSS refused.
    static var nssContextHeld: Int32 { initialization.nssContext }

    /// Runs `srtp_init()` on first use; later calls return at once.
    ///
    /// libsrtp 2.5 answers a second `srtp_init()` in the same process with `srtp_err_status_bad_param` (its debug
    /// module is already registered). That status therefore means another component of the process initialized the
    /// library first, and is accepted: were the library really unusable, `srtp_create` would fail with its own status.
    ///
    /// - Throws: `SRTPError.library` with the status of `srtp_init` when it failed.
    static func initializeOnce() throws(SRTPError) {
        let status = SRTPStatus(rawValue: initialization.status)
        guard status == .ok || status == .badParam else { throw .library(status) }
    }

    /// The libsrtp version string, such as `libsrtp2 2.5.0`. The corresponding C function is
    /// `srtp_get_version_string`.
    static var versionString: String { String(cString: srtp_get_version_string()) }
}
