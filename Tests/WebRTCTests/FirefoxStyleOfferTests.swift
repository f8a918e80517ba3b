import DTLS
import H264
import STUN
import Testing
@testable import WebRTC

/// Firefox writes the fingerprint at session level, the ICE credentials per m-section, LF-only line ends are
/// accepted too, and its H.264 formats are 126 (mode 1) and 97 (mode 0).
@Suite struct FirefoxStyleOfferTests {
    static let offer = """
        v=0
        o=mozilla...THIS_IS_SDPARTA-99.0 4206528126513557178 0 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=fingerprint:sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:3C:A5:87:1A:93:4A:9C:4F:EE:5E:2D:2C
        a=group:BUNDLE 0
        a=ice-options:trickle
        a=msid-semantic:WMS *
        m=video 9 UDP/TLS/RTP/SAVPF 120 124 121 125 126 127 97 98
        c=IN IP4 0.0.0.0
        a=recvonly
        a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:5 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=fmtp:126 profile-level-id=42e01f;level-asymmetry-allowed=1;packetization-mode=1
        a=fmtp:97 profile-level-id=42e01f;level-asymmetry-allowed=1
        a=fmtp:120 max-fs=12288;max-fr=60
        a=fmtp:124 apt=120
        a=fmtp:121 max-fs=12288;max-fr=60
        a=fmtp:125 apt=121
        a=fmtp:127 apt=126
        a=fmtp:98 apt=97
        a=ice-pwd:6c3fc2f5f1a9a0ac3a2dd6ab1f9c6e1c
        a=ice-ufrag:9b7c2a4d
        a=mid:0
        a=rtcp-fb:120 nack
        a=rtcp-fb:120 nack pli
        a=rtcp-fb:120 ccm fir
        a=rtcp-fb:120 goog-remb
        a=rtcp-fb:120 transport-cc
        a=rtcp-fb:126 nack
        a=rtcp-fb:126 nack pli
        a=rtcp-fb:126 ccm fir
        a=rtcp-fb:126 goog-remb
        a=rtcp-fb:126 transport-cc
        a=rtcp-fb:97 nack
        a=rtcp-fb:97 nack pli
        a=rtcp-fb:97 ccm fir
        a=rtcp-fb:97 goog-remb
        a=rtcp-fb:97 transport-cc
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:120 VP8/90000
        a=rtpmap:124 rtx/90000
        a=rtpmap:121 VP9/90000
        a=rtpmap:125 rtx/90000
        a=rtpmap:126 H264/90000
        a=rtpmap:127 rtx/90000
        a=rtpmap:97 H264/90000
        a=rtpmap:98 rtx/90000
        a=setup:actpass

        """

    @Test(arguments: [(1, UInt8(126), UInt8(127)), (0, 97, 98)])
    func answersFirefoxOffer(mode: Int, payloadType: UInt8, rtx: UInt8) throws {
        let offer = try JSEPSessionDescription(parsing: Self.offer)
        let (answer, negotiated) = try VideoAnswerer.answer(
            offer, video: JSEPNegotiationTests.video(mode: mode), transport: JSEPNegotiationTests.serverTransport)
        #expect(negotiated.format.payloadType == payloadType)
        #expect(negotiated.rtxPayloadType == rtx)
        #expect(negotiated.transportCCExtensionID == 5)
        #expect(negotiated.remoteFingerprint.digest.first == 0x4A)
        #expect(negotiated.remoteCredentials.ufrag == "9b7c2a4d")
        #expect(answer.media[0].attribute("extmap") == "5 \(VideoSendConfiguration.transportCCURI)")
        #expect(answer.sdp.contains("a=fmtp:\(payloadType) level-asymmetry-allowed=1;packetization-mode=\(mode);profile-level-id=42e01f\r\n"))
    }
}
