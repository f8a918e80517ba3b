import DTLS
import H264
import STUN
import Testing
@testable import WebRTC

/// The real Chromium 156 offer: every H.264 format Debian's Chromium offers, and the answer our server gives.
@Suite struct Chromium156OfferTests {
    @Test func parsesRealOffer() throws {
        let offer = try JSEPSessionDescription(parsing: Chromium156Offer.sdp)
        #expect(offer.bundleGroup == ["0"])
        #expect(offer.media.count == 1)
        let formats = H264PayloadFormat.formats(in: offer.media[0])
        #expect(formats.map { "\($0.payloadType) \($0.profileLevelID) \($0.packetizationMode)" } == [
            "102 42001f 1", "104 42001f 0", "108 42e01f 1", "114 42e01f 0", "116 4d001f 1", "39 4d001f 0",
            "41 f4001f 1", "43 f4001f 0",
        ])
        #expect(formats.allSatisfy { $0.rtxPayloadType != nil && $0.feedback.contains("nack pli") })
        #expect(offer.media[0].candidates.isEmpty)  // trickle: the ICE-lite server does not need them
    }

    @Test(arguments: [("42e01f", 1, UInt8(108)), ("42e01f", 0, 114), ("4d001f", 1, 116), ("42001f", 1, 102)])
    func answersRealOffer(profile: String, mode: Int, expected: UInt8) throws {
        let offer = try JSEPSessionDescription(parsing: Chromium156Offer.sdp)
        let (answer, negotiated) = try VideoAnswerer.answer(
            offer, video: JSEPNegotiationTests.video(profile, mode: mode), transport: JSEPNegotiationTests.serverTransport)
        #expect(negotiated.format.payloadType == expected)
        #expect(negotiated.mid == "0")
        #expect(negotiated.dtlsRole == .server)
        #expect(negotiated.transportCCExtensionID != nil)
        #expect(answer.bundleGroup == ["0"])
        #expect(try JSEPSessionDescription(parsing: answer.sdp) == answer)
    }

    /// Chromium 156 offers flexfec-03 (PT 49) in its recvonly section: with a FEC SSRC the answer takes it as
    /// libwebrtc writes it, with the FEC-FR group Chromium needs to turn its FlexFEC receiver on; without one, no FEC.
    @Test func answersFlexFECWhenWeHaveAFECSSRC() throws {
        let offer = try JSEPSessionDescription(parsing: Chromium156Offer.sdp)
        #expect(H264PayloadFormat.flexFECPayloadType(in: offer.media[0]) == 49)
        var video = JSEPNegotiationTests.video("42e01f", mode: 1)
        video.fecSSRC = 4242
        let (answer, negotiated) = try VideoAnswerer.answer(offer, video: video, transport: JSEPNegotiationTests.serverTransport)
        #expect(negotiated.fecPayloadType == 49)
        let text = answer.sdp
        #expect(answer.media[0].formats.last == "49")
        #expect(text.contains("a=rtpmap:49 flexfec-03/90000\r\na=rtcp-fb:49 transport-cc\r\na=fmtp:49 repair-window=10000000\r\n"))
        #expect(text.contains("a=ssrc-group:FEC-FR \(video.ssrc) 4242\r\n"))
        #expect(text.contains("a=ssrc:4242 cname:\(video.cname)\r\n"))
        #expect(try JSEPSessionDescription(parsing: text) == answer)

        video.fecSSRC = nil
        let (plain, without) = try VideoAnswerer.answer(offer, video: video, transport: JSEPNegotiationTests.serverTransport)
        #expect(without.fecPayloadType == nil)
        #expect(!plain.sdp.contains("flexfec"))
        #expect(!plain.sdp.contains("FEC-FR"))
    }

    /// Debian's Chromium offers no High (64) format: a High stream cannot be answered, and says why.
    @Test func highIsNotOffered() throws {
        let offer = try JSEPSessionDescription(parsing: Chromium156Offer.sdp)
        #expect(throws: JSEPError.self) {
            try VideoAnswerer.answer(offer, video: JSEPNegotiationTests.video("64001f"),
                                     transport: JSEPNegotiationTests.serverTransport)
        }
    }
}
