/// An SRTP crypto suite, named as in SDP security descriptions.
///
/// The raw value is the SDP name used in `a=crypto` lines: RFC 4568 section 6.2 for the AES-CM suites, RFC 6188
/// section 7 for `AES_256_CM_HMAC_SHA1_80`, and RFC 7714 section 14.2 for the AEAD suites. The lengths below are
/// what the packetizer needs to leave room for the SRTP trailer at the end of every packet buffer.
public enum SRTPSuite: String, CaseIterable, Sendable, Hashable {
    /// AES-128 in counter mode with an 80-bit HMAC-SHA1 tag: the default suite (RFC 3711 section 5).
    case aesCM128HMACSHA1_80 = "AES_CM_128_HMAC_SHA1_80"
    /// AES-128 in counter mode with a 32-bit HMAC-SHA1 tag on SRTP (SRTCP keeps the 80-bit tag, RFC 4568 6.2.2).
    case aesCM128HMACSHA1_32 = "AES_CM_128_HMAC_SHA1_32"
    /// AES-256 in counter mode with an 80-bit HMAC-SHA1 tag (RFC 6188 section 7).
    case aes256CMHMACSHA1_80 = "AES_256_CM_HMAC_SHA1_80"
    /// AES-128 in Galois/counter mode with a 128-bit tag (RFC 7714 section 14.2).
    case aeadAES128GCM = "AEAD_AES_128_GCM"
    /// AES-256 in Galois/counter mode with a 128-bit tag (RFC 7714 section 14.2).
    case aeadAES256GCM = "AEAD_AES_256_GCM"

    /// The suite used when none is negotiated: `AES_CM_128_HMAC_SHA1_80`, mandatory to implement (RFC 4568 6.2).
    public static let `default`: SRTPSuite = .aesCM128HMACSHA1_80

    /// Creates the suite with the given SDP name.
    ///
    /// - Parameters:
    ///   - sdpName: A crypto-suite name from an `a=crypto` line, such as `AES_CM_128_HMAC_SHA1_80` (case-sensitive).
    /// - Returns: `nil` when the name is not one of the suites this package supports.
    public init?(sdpName: String) {
        self.init(rawValue: sdpName)
    }

    /// The SDP name of the suite, as written in `a=crypto` lines.
    public var sdpName: String { rawValue }

    /// Whether the suite is an AEAD (AES-GCM, RFC 7714) suite rather than AES-CM with HMAC-SHA1.
    public var isAEAD: Bool {
        switch self {
        case .aeadAES128GCM, .aeadAES256GCM: true
        case .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32, .aes256CMHMACSHA1_80: false
        }
    }

    /// The length of the master key in bytes (16 for AES-128, 32 for AES-256).
    public var masterKeyLength: Int {
        switch self {
        case .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32, .aeadAES128GCM: Self.aes128KeyLength
        case .aes256CMHMACSHA1_80, .aeadAES256GCM: Self.aes256KeyLength
        }
    }

    /// The length of the master salt in bytes: 14 for AES-CM (RFC 3711 section 8.2), 12 for AEAD (RFC 7714 section 12).
    public var masterSaltLength: Int {
        isAEAD ? Self.aeadSaltLength : Self.counterModeSaltLength
    }

    /// The length of the concatenated master key and salt, as carried in an SDES `inline:` key (30, 46, 28 or 44).
    public var keyAndSaltLength: Int { masterKeyLength + masterSaltLength }

    /// The length of the authentication tag appended to each SRTP packet.
    public var rtpAuthTagLength: Int {
        switch self {
        case .aesCM128HMACSHA1_80, .aes256CMHMACSHA1_80: Self.hmacSHA1Tag80Length
        case .aesCM128HMACSHA1_32: Self.hmacSHA1Tag32Length
        case .aeadAES128GCM, .aeadAES256GCM: Self.gcmTagLength
        }
    }

    /// The length of the authentication tag appended to each SRTCP packet.
    ///
    /// Always 10 bytes for the HMAC-SHA1 suites, including `_32`: RFC 4568 section 6.2.2 keeps SRTCP at 80 bits.
    public var rtcpAuthTagLength: Int {
        isAEAD ? Self.gcmTagLength : Self.hmacSHA1Tag80Length
    }

    /// The number of bytes protecting an RTP packet adds to its end (the authentication tag; no MKI is used).
    public var rtpTrailerLength: Int { rtpAuthTagLength }

    /// The number of bytes protecting an RTCP packet adds to its end: the 4-byte E flag + SRTCP index
    /// (RFC 3711 section 3.4) and the authentication tag.
    public var rtcpTrailerLength: Int { Self.srtcpIndexLength + rtcpAuthTagLength }

    /// The most bytes any supported suite adds to an RTP packet: reserve this much capacity after each packet.
    public static let maxRTPTrailer = gcmTagLength
    /// The most bytes any supported suite adds to an RTCP packet: reserve this much capacity after each packet.
    public static let maxRTCPTrailer = srtcpIndexLength + gcmTagLength

    /// AES-128 key length in bytes (FIPS 197).
    static let aes128KeyLength = 16
    /// AES-256 key length in bytes (FIPS 197).
    static let aes256KeyLength = 32
    /// Master salt length for AES counter mode: 112 bits (RFC 3711 section 8.2).
    static let counterModeSaltLength = 14
    /// Master salt length for the AEAD suites: 96 bits (RFC 7714 section 12).
    static let aeadSaltLength = 12
    /// HMAC-SHA1 tag truncated to 80 bits (RFC 3711 section 5.2).
    static let hmacSHA1Tag80Length = 10
    /// HMAC-SHA1 tag truncated to 32 bits (RFC 4568 section 6.2.2).
    static let hmacSHA1Tag32Length = 4
    /// AES-GCM authentication tag of 128 bits (RFC 7714 section 7).
    static let gcmTagLength = 16
    /// The SRTCP trailer word: the E flag and the 31-bit SRTCP index (RFC 3711 section 3.4).
    static let srtcpIndexLength = 4
}
