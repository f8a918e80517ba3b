import SRTP

/// The IANA DTLS-SRTP profile ids (RFC 5764 section 4.1.2, RFC 7714 section 14.2) and the suites they name.
enum SRTPSuiteMapping {
    static let all: [(id: UInt, suite: SRTPSuite)] = [
        (0x0001, .aesCM128HMACSHA1_80), (0x0002, .aesCM128HMACSHA1_32), (0x0007, .aeadAES128GCM),
        (0x0008, .aeadAES256GCM),
    ]
}
