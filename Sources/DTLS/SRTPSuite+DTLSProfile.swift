public import SRTP

/// The DTLS-SRTP protection profiles this package negotiates, with their OpenSSL names and IANA ids
/// (RFC 5764 section 4.1.2, RFC 7714 section 14.2).
extension SRTPSuite {
    /// The `use_srtp` profile name OpenSSL uses for the suite, or `nil` when DTLS-SRTP defines none for it
    /// (AES-256-CM has no DTLS profile).
    public var dtlsProfileName: String? {
        switch self {
        case .aesCM128HMACSHA1_80: "SRTP_AES128_CM_SHA1_80"
        case .aesCM128HMACSHA1_32: "SRTP_AES128_CM_SHA1_32"
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        case .aeadAES256GCM: "SRTP_AEAD_AES_256_GCM"
        case .aes256CMHMACSHA1_80: nil
        }
    }

    /// The suite for a `use_srtp` profile id (SRTP_AES128_CM_HMAC_SHA1_80 = 0x0001, _32 = 0x0002,
    /// SRTP_AEAD_AES_128_GCM = 0x0007, SRTP_AEAD_AES_256_GCM = 0x0008).
    /// - Parameters:
    ///   - dtlsProfileID: The id from the negotiated profile.
    public init?(dtlsProfileID: UInt) {
        switch dtlsProfileID {
        case 0x0001: self = .aesCM128HMACSHA1_80
        case 0x0002: self = .aesCM128HMACSHA1_32
        case 0x0007: self = .aeadAES128GCM
        case 0x0008: self = .aeadAES256GCM
        default: return nil
        }
    }
}
