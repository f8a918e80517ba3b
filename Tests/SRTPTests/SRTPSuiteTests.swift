import Testing
@testable import SRTP

@Suite struct SRTPSuiteTests {
    /// SDP name, key, salt, key+salt, SRTP tag, SRTCP tag, SRTP trailer, SRTCP trailer.
    static let table: [(SRTPSuite, String, Int, Int, Int, Int, Int, Int, Int)] = [
        (.aesCM128HMACSHA1_80, "AES_CM_128_HMAC_SHA1_80", 16, 14, 30, 10, 10, 10, 14),
        (.aesCM128HMACSHA1_32, "AES_CM_128_HMAC_SHA1_32", 16, 14, 30, 4, 10, 4, 14),
        (.aes256CMHMACSHA1_80, "AES_256_CM_HMAC_SHA1_80", 32, 14, 46, 10, 10, 10, 14),
        (.aeadAES128GCM, "AEAD_AES_128_GCM", 16, 12, 28, 16, 16, 16, 20),
        (.aeadAES256GCM, "AEAD_AES_256_GCM", 32, 12, 44, 16, 16, 16, 20),
    ]

    @Test func lengthsMatchTheRFCs() {
        #expect(Self.table.count == SRTPSuite.allCases.count)
        for (suite, name, key, salt, keyAndSalt, rtpTag, rtcpTag, rtpTrailer, rtcpTrailer) in Self.table {
            #expect(suite.sdpName == name)
            #expect(SRTPSuite(sdpName: name) == suite)
            #expect(suite.masterKeyLength == key)
            #expect(suite.masterSaltLength == salt)
            #expect(suite.keyAndSaltLength == keyAndSalt)
            #expect(suite.rtpAuthTagLength == rtpTag)
            #expect(suite.rtcpAuthTagLength == rtcpTag)
            #expect(suite.rtpTrailerLength == rtpTrailer)
            #expect(suite.rtcpTrailerLength == rtcpTrailer)
            #expect(suite.rtpTrailerLength <= SRTPSuite.maxRTPTrailer)
            #expect(suite.rtcpTrailerLength <= SRTPSuite.maxRTCPTrailer)
        }
        #expect(SRTPSuite.maxRTPTrailer == 16)
        #expect(SRTPSuite.maxRTCPTrailer == 20)
        #expect(SRTPSuite.default == .aesCM128HMACSHA1_80)
        #expect(SRTPSuite(sdpName: "aes_cm_128_hmac_sha1_80") == nil)
        #expect(SRTPSuite(sdpName: "F8_128_HMAC_SHA1_80") == nil)
    }
}
