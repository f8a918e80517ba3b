import DTLS

/// A certificate's fingerprint for offers that never reach DTLS.
enum DTLSTestCertificate {
    static func fingerprint() throws -> DTLSFingerprint { try DTLSCertificate.generate().fingerprint }
}
