import COpenSSL
import SRTP
import Testing
@testable import DTLS

@Suite struct DTLSCertificateTests {
    @Test func fingerprintIsSHA256OfDER() throws {
        let certificate = try DTLSCertificate.generate()
        let der = certificate.derBytes
        #expect(der.count > 200)
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        #expect(EVP_Digest(der, der.count, &digest, &length, EVP_sha256(), nil) == 1)
        #expect(certificate.fingerprint.hashFunction == "sha-256")
        #expect(certificate.fingerprint.digest == digest)
        // Each process (each call) gets a fresh key and certificate.
        #expect(try DTLSCertificate.generate().fingerprint != certificate.fingerprint)
        #expect("\(certificate.privateKey)" == "<ECDSA P-256 private key>")
    }

    @Test func fingerprintSDPForm() throws {
        let text = "sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:3C:A5:87:1A:93:4A:9C:4F:EE:5E:2D:2C"
        let fingerprint = try DTLSFingerprint(sdpValue: text)
        #expect(fingerprint.digest.count == 32)
        #expect(fingerprint.digest.first == 0x4A)
        #expect(fingerprint.sdpValue == text)
        #expect(try DTLSFingerprint(sdpValue: "SHA-256 " + text.dropFirst(8).lowercased()) == fingerprint)
    }

    @Test func rejectsBadFingerprints() {
        let bad = [
            "", "sha-256", "sha-256 4A:AD", "md5 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B",
            "sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:3C:A5:87:1A:93:4A:9C:4F:EE:5E:2D:ZZ",
            "sha-256 4AAD:B9", "sha-256 4A::AD",
        ]
        for text in bad {
            #expect(throws: DTLSError.self, "\(text)") { try DTLSFingerprint(sdpValue: text) }
        }
    }

    @Test func srtpProfileMapping() {
        #expect(SRTPSuiteMapping.all.allSatisfy { SRTPSuite(dtlsProfileID: $0.id) == $0.suite })
        #expect(SRTPSuite(dtlsProfileID: 0x0005) == nil)
        #expect(SRTPSuite.aes256CMHMACSHA1_80.dtlsProfileName == nil)
    }
}
