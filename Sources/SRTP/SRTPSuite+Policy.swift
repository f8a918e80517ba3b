internal import CSRTP

extension SRTPSuite {
    /// Fills libsrtp's crypto policies for SRTP and SRTCP with this suite's parameters.
    ///
    /// - Parameters:
    ///   - rtp: The policy applied to RTP packets.
    ///   - rtcp: The policy applied to RTCP packets.
    func configure(rtp: inout srtp_crypto_policy_t, rtcp: inout srtp_crypto_policy_t) {
        switch self {
        case .aesCM128HMACSHA1_80:
            // srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80 is a C macro for the default policy.
            srtp_crypto_policy_set_rtp_default(&rtp)
            srtp_crypto_policy_set_rtp_default(&rtcp)
        case .aesCM128HMACSHA1_32:
            // RFC 4568 section 6.2.2: only SRTP uses the 32-bit tag, SRTCP keeps 80 bits.
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&rtp)
            srtp_crypto_policy_set_rtp_default(&rtcp)
        case .aes256CMHMACSHA1_80:
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtp)
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&rtcp)
        case .aeadAES256GCM:
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&rtp)
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&rtcp)
        }
    }
}
