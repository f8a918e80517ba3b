import SRTP

/// The SRTP keys of one flow, one per direction.
///
/// With SDES (RFC 4568 section 6.1) each side protects what it sends with the key it announced, so the key this end
/// protects with and the key it unprotects the peer's packets with are distinct; both may be the same key when the
/// two sides agreed on one (a single `a=crypto` line played by ffmpeg).
package struct TransportSecurity: Sendable {
    /// The crypto suite of both directions.
    package var suite: SRTPSuite
    /// The key this end protects its RTP and RTCP with.
    package var outboundKey: SRTPMasterKey
    /// The key the peer protects its RTP and RTCP with.
    package var inboundKey: SRTPMasterKey
    /// Let the outbound session protect a sequence number again: retransmissions on the media SSRC (no RTX).
    package var allowRepeatTransmission = false

    /// Creates the keys of a flow.
    /// - Parameters:
    ///   - suite: the crypto suite.
    ///   - outboundKey: the key this end sends with.
    ///   - inboundKey: the key the peer sends with.
    package init(suite: SRTPSuite, outboundKey: SRTPMasterKey, inboundKey: SRTPMasterKey) {
        self.suite = suite
        self.outboundKey = outboundKey
        self.inboundKey = inboundKey
    }
}
