import Testing
@testable import SDP

/// FlexFEC in SDES SDP (issue 24): written as libwebrtc writes it (flexfec-03, repair-window, FEC-FR group and the
/// FEC SSRC's cname) and read back; a bad FEC-FR group is a specific error; a flexfec-03 type not on the m= line, or
/// the H.264 type itself, is no FEC.
@Suite struct FlexFECSDPTests {
    @Test func writtenAsLibwebrtcAndReadBack() throws {
        var description = SessionDescription(
            connectionAddress: "127.0.0.1", port: 5004, profileLevelID: "42e01f", ssrc: 778, cname: "cam")
        description.rtx = SessionDescription.RTX(payloadType: 97, ssrc: 779)
        description.fec = SessionDescription.FEC(payloadType: 49, ssrc: 4242)
        let text = description.serialize()
        #expect(text.contains("m=video 5004 RTP/AVP 96 97 49\r\n"))
        #expect(text.contains("a=rtpmap:49 flexfec-03/90000\r\na=fmtp:49 repair-window=10000000\r\n"))
        #expect(text.contains("a=ssrc:778 cname:cam\r\na=ssrc-group:FEC-FR 778 4242\r\na=ssrc:4242 cname:cam\r\n"))
        let read = try SessionDescription(parsing: text)
        #expect(read.fec == SessionDescription.FEC(payloadType: 49, ssrc: 4242))
        #expect(read.ssrc == 778)
        #expect(read.cname == "cam")
    }

    @Test func aBadGroupIsASpecificError() {
        let text = SessionDescriptionParsingTests.sdp(
            media: "m=video 5004 RTP/AVP 96 49", "a=rtpmap:49 flexfec-03/90000", "a=ssrc-group:FEC-FR 1 x")
        #expect(throws: SessionDescriptionError.self) { try SessionDescription(parsing: text) }
        do {
            _ = try SessionDescription(parsing: text)
        } catch {
            #expect("\(error)".contains("a=ssrc-group:FEC-FR needs two 32-bit SSRCs"))
        }
    }

    @Test func onlyATypeOfTheMediaLineIsFEC() throws {
        let absent = try SessionDescription(parsing: SessionDescriptionParsingTests.sdp(
            "a=rtpmap:49 flexfec-03/90000"))
        #expect(absent.fec == nil)
        let present = try SessionDescription(parsing: SessionDescriptionParsingTests.sdp(
            media: "m=video 5004 RTP/AVP 96 49", "a=rtpmap:49 flexfec-03/90000"))
        #expect(present.fec == SessionDescription.FEC(payloadType: 49, ssrc: nil))
    }
}
