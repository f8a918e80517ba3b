import Testing
@testable import SDP

@Suite struct SessionDescriptionTests {
    let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1F, 0xDA, 0x01, 0x40, 0x16, 0xE8]
    let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    @Test func serializesSRTPDescriptionExactly() {
        let sdp = SessionDescription(
            connectionAddress: "127.0.0.1", port: 5004, rtcpMux: true, payloadType: 96, profileLevelID: "42e01f",
            packetizationMode: 1, parameterSets: [sps, pps],
            crypto: .init(suite: "AES_CM_128_HMAC_SHA1_80", keyParameters: "inline:AAAA"),
            ssrc: 305_419_896, cname: "me", frameRate: 30)
        let expected = [
            "v=0",
            "o=- 305419896 1 IN IP4 127.0.0.1",
            "s=rtc-h264",
            "c=IN IP4 127.0.0.1",
            "t=0 0",
            "m=video 5004 RTP/SAVP 96",
            "a=rtpmap:96 H264/90000",
            "a=fmtp:96 packetization-mode=1;profile-level-id=42e01f;sprop-parameter-sets=Z0LAH9oBQBbo,aM48gA==",
            "a=rtcp-mux",
            "a=framerate:30",
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:AAAA",
            "a=ssrc:305419896 cname:me",
            "a=recvonly",
        ].joined(separator: "\r\n") + "\r\n"
        #expect(sdp.serialize() == expected)
    }

    @Test func plainRTPWithoutMuxUsesAVPAndRTCPPortPlusOne() {
        let sdp = SessionDescription(connectionAddress: "::1", port: 6000, rtcpMux: false, profileLevelID: "64001f")
        let text = sdp.serialize()
        #expect(text.contains("c=IN IP6 ::1\r\n"))
        #expect(text.contains("m=video 6000 RTP/AVP 96\r\n"))
        #expect(text.contains("a=rtcp:6001\r\n"))
        #expect(!text.contains("a=crypto"))
    }

    @Test func roundTrips() throws {
        let sdp = SessionDescription(
            connectionAddress: "127.0.0.1", port: 5004, payloadType: 102, profileLevelID: "64001f",
            packetizationMode: 0, parameterSets: [sps, pps],
            crypto: .init(suite: "AEAD_AES_128_GCM", keyParameters: "inline:abcd"), ssrc: 7, cname: "x", frameRate: 25)
        let parsed = try SessionDescription(parsing: sdp.serialize())
        #expect(parsed == sdp)
    }

    @Test func parsesAForeignSDPWithLFEndings() throws {
        let text = """
            v=0
            o=- 0 0 IN IP4 127.0.0.1
            s=No Name
            c=IN IP4 127.0.0.1
            t=0 0
            m=audio 4000 RTP/AVP 0
            a=rtpmap:0 PCMU/8000
            m=video 5006 RTP/AVP 97 96
            a=rtpmap:97 VP8/90000
            a=rtpmap:96 H264/90000
            a=fmtp:96 packetization-mode=1; profile-level-id=42e01f

            """
        let parsed = try SessionDescription(parsing: text)
        #expect(parsed.port == 5006)
        #expect(parsed.payloadType == 96)
        #expect(parsed.packetizationMode == 1)
        #expect(parsed.crypto == nil)
        #expect(parsed.rtcpMux == false)
    }

    @Test(arguments: [
        ("v=0\r\nc=IN IP4 1.2.3.4\r\n", SessionDescriptionError.missingLine("m=video")),
        ("v=0\r\nm=video 5 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n", SessionDescriptionError.missingLine("c=")),
        ("v=0\r\nc=IN IP4 1.2.3.4\r\nm=video 5 RTP/AVP 97\r\na=rtpmap:97 VP8/90000\r\n",
         SessionDescriptionError.noH264PayloadType),
        ("v=0\r\nc=IN IP4 1.2.3.4\r\nm=video x RTP/AVP 96\r\n",
         SessionDescriptionError.malformedLine(lineNumber: 3, reason: "m=video port x is not 1...65535")),
        ("v=0\r\nbogus\r\n", SessionDescriptionError.malformedLine(lineNumber: 2, reason: "expected <type>=<value>")),
        ("v=0\r\nc=IN IP4 1.2.3.4\r\nm=video 5 RTP/SAVP 96\r\na=rtpmap:96 H264/90000\r\n",
         SessionDescriptionError.missingLine("a=crypto for RTP/SAVP")),
    ])
    func badSDPIsASpecificError(text: String, error: SessionDescriptionError) {
        #expect(throws: error) { try SessionDescription(parsing: text) }
    }
}
