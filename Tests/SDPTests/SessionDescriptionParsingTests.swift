import Testing
@testable import SDP

/// Bad SDP, line by line: each input gives one typed error whose text says which line and what is wrong (issue 11:
/// nothing read from `receive --sdp` may trap). Before this table, `m=video / RTP/AVP 96` trapped on
/// `split(...)[0]` of an empty array, and `a=framerate:1e300` parsed and then trapped in `serialize()` on `Int(1e300)`.
@Suite struct SessionDescriptionParsingTests {
    /// A valid plain-RTP description with `lines` inserted after the `m=` line (or replacing it when `media` is given).
    static func sdp(media: String = "m=video 5004 RTP/AVP 96", _ lines: String...) -> String {
        (["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=t", "c=IN IP4 127.0.0.1", "t=0 0", media, "a=rtpmap:96 H264/90000"]
            + lines).joined(separator: "\r\n") + "\r\n"
    }

    static let cases: [(String, String, String)] = [
        // Regression (issue 11; fuzz target sdp on the old parser in 3 s, Tests/Fuzz/Regressions/sdp/m-video-empty-port):
        // split(separator: "/")[0] of an empty array trapped.
        ("empty port", sdp(media: "m=video / RTP/AVP 96"), "SDP line 6: m=video port  is not 1...65535"),
        ("port 0", sdp(media: "m=video 0 RTP/AVP 96"), "SDP line 6: m=video port 0 is not 1...65535"),
        ("port 65536", sdp(media: "m=video 65536 RTP/AVP 96"), "SDP line 6: m=video port 65536 is not 1...65535"),
        ("negative port", sdp(media: "m=video -5 RTP/AVP 96"), "SDP line 6: m=video port -5 is not 1...65535"),
        ("plus sign", sdp(media: "m=video +5004 RTP/AVP 96"), "SDP line 6: m=video port +5004 is not 1...65535"),
        ("huge port", sdp(media: "m=video 99999999999999999999999 RTP/AVP 96"),
         "SDP line 6: m=video port 99999999999999999999999 is not 1...65535"),
        ("port count", sdp(media: "m=video 5004/x RTP/AVP 96"),
         "SDP line 6: m=video port count x is not a positive number"),
        ("missing fields", sdp(media: "m=video 5004 RTP/AVP"), "SDP line 6: m=video needs 'port proto fmt...'"),
        ("no fields", sdp(media: "m=video"), "SDP line 6: m=video needs 'port proto fmt...'"),
        ("protocol", sdp(media: "m=video 5004 UDP/TLS/RTP/SAVPF 96"),
         "SDP line 6: m=video protocol UDP/TLS/RTP/SAVPF is not one of RTP/AVP, RTP/AVPF, RTP/SAVP, RTP/SAVPF"),
        ("payload type 128", sdp(media: "m=video 5004 RTP/AVP 128"),
         "SDP line 6: m=video payload type 128 is not 0...127"),
        ("payload type word", sdp(media: "m=video 5004 RTP/AVP h264"),
         "SDP line 6: m=video payload type h264 is not 0...127"),
        ("RTCP port overflow", sdp(media: "m=video 65535 RTP/AVP 96"),
         "SDP line 6: m=video port 65535 leaves no port for RTCP (RTP port + 1); add a=rtcp-mux"),
        ("a=rtcp elsewhere", sdp("a=rtcp:6000"),
         "SDP line 8: a=rtcp port 6000 is not the RTP port + 1 (5005), the only layout supported"),
        ("a=rtcp junk", sdp("a=rtcp:port"), "SDP line 8: a=rtcp port port is not 1...65535"),
        ("bad line", "v=0\r\nbogus\r\n", "SDP line 2: expected <type>=<value>"),
        ("upper-case type", "v=0\r\nM=video 5004 RTP/AVP 96\r\n", "SDP line 2: expected <type>=<value>"),
        ("version", "v=1\r\n", "SDP line 1: unsupported SDP version v=1 (only v=0)"),
        ("NUL", "v=0\r\ns=a\u{0}b\r\n", "SDP line 2: control character 0x0 in the line"),
        // Regression (fuzz target sdp, Tests/Fuzz/Regressions/sdp/cr-inside-connection-address): carriage returns
        // inside a line were kept in the address, and the serialized SDP then read back differently.
        ("bare CR", "v=0\r\nc=IN IP4 127.0.0.1\r\r\n", "SDP line 2: control character 0xd in the line"),
        ("connection form", sdp("c=IN IP4"), "SDP line 8: c= needs 'IN IP4|IP6 address'"),
        ("connection type", sdp("c=IN IPX 1.2.3.4"), "SDP line 8: c= needs 'IN IP4|IP6 address'"),
        ("connection address", sdp("c=IN IP4 1.2.3.4;rm"),
         "SDP line 8: c= address 1.2.3.4;rm is not an IP address or host name"),
        ("rtpmap form", sdp("a=rtpmap:97"), "SDP line 8: a=rtpmap needs '<payload type> <encoding>/<clock rate>'"),
        ("rtpmap type", sdp("a=rtpmap:300 H264/90000"),
         "SDP line 8: a=rtpmap needs '<payload type> <encoding>/<clock rate>'"),
        ("rtpmap clock", sdp(media: "m=video 5004 RTP/AVP 97", "a=rtpmap:97 H264/900000"),
         "SDP line 8: a=rtpmap H264 must be H264/90000 (RFC 6184 section 8.2.1)"),
        ("fmtp form", sdp("a=fmtp:96"), "SDP line 8: a=fmtp needs '<payload type> <parameters>'"),
        ("mode 2", sdp("a=fmtp:96 packetization-mode=2"), "SDP line 8: packetization-mode 2 is not supported (0 or 1)"),
        ("mode word", sdp("a=fmtp:96 packetization-mode=one"),
         "SDP line 8: packetization-mode one is not supported (0 or 1)"),
        ("profile-level-id", sdp("a=fmtp:96 profile-level-id=42e0"),
         "SDP line 8: profile-level-id 42e0 is not six hex digits"),
        ("profile-level-id hex", sdp("a=fmtp:96 profile-level-id=42e0zz"),
         "SDP line 8: profile-level-id 42e0zz is not six hex digits"),
        ("sprop", sdp("a=fmtp:96 sprop-parameter-sets=Z0LAH9oBQBbo,!!"),
         "SDP line 8: sprop-parameter-sets entry '!!' is not base64 of a NAL unit"),
        ("sprop empty entry", sdp("a=fmtp:96 sprop-parameter-sets=Z0LAH9oBQBbo,"),
         "SDP line 8: sprop-parameter-sets entry '' is not base64 of a NAL unit"),
        ("crypto form", sdp(media: "m=video 5004 RTP/SAVP 96", "a=crypto:1 AES_CM_128_HMAC_SHA1_80"),
         "SDP line 8: a=crypto needs 'tag suite key-params'"),
        ("crypto tag", sdp(media: "m=video 5004 RTP/SAVP 96", "a=crypto:1234567890 AES_CM_128_HMAC_SHA1_80 inline:AAAA"),
         "SDP line 8: a=crypto tag 1234567890 is not 1 to 9 digits"),
        ("crypto negative tag", sdp(media: "m=video 5004 RTP/SAVP 96", "a=crypto:-1 AES_CM_128_HMAC_SHA1_80 inline:AAAA"),
         "SDP line 8: a=crypto tag -1 is not 1 to 9 digits"),
        ("crypto suite", sdp(media: "m=video 5004 RTP/SAVP 96", "a=crypto:1 AES-CM inline:AAAA"),
         "SDP line 8: a=crypto suite AES-CM is not a suite name (letters, digits, _)"),
        ("crypto key method", sdp(media: "m=video 5004 RTP/SAVP 96", "a=crypto:1 AES_CM_128_HMAC_SHA1_80 uri:x"),
         "SDP line 8: a=crypto key parameters must be 'inline:<key>' (RFC 4568 section 9.1)"),
        ("crypto empty key", sdp(media: "m=video 5004 RTP/SAVP 96", "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:"),
         "SDP line 8: a=crypto key parameters must be 'inline:<key>' (RFC 4568 section 9.1)"),
        ("no crypto", sdp(media: "m=video 5004 RTP/SAVP 96"), "SDP: missing a=crypto for RTP/SAVP"),
        ("ssrc", sdp("a=ssrc:4294967296 cname:x"), "SDP line 8: a=ssrc needs a 32-bit SSRC (0...4294967295)"),
        ("ssrc word", sdp("a=ssrc:abc cname:x"), "SDP line 8: a=ssrc needs a 32-bit SSRC (0...4294967295)"),
        ("cname 256", sdp("a=ssrc:1 cname:" + String(repeating: "c", count: 256)),
         "SDP line 8: a=ssrc cname must be 1...255 bytes (RFC 3550 section 6.5), not 256"),
        ("cname empty", sdp("a=ssrc:1 cname:"), "SDP line 8: a=ssrc cname must be 1...255 bytes (RFC 3550 section 6.5), not 0"),
        ("framerate huge", sdp("a=framerate:1e300"), "SDP line 8: a=framerate 1e300 is not a number above 0 and at most 1000"),
        ("framerate nan", sdp("a=framerate:nan"), "SDP line 8: a=framerate nan is not a number above 0 and at most 1000"),
        ("framerate inf", sdp("a=framerate:inf"), "SDP line 8: a=framerate inf is not a number above 0 and at most 1000"),
        ("framerate 0", sdp("a=framerate:0"), "SDP line 8: a=framerate 0 is not a number above 0 and at most 1000"),
        ("framerate negative", sdp("a=framerate:-30"),
         "SDP line 8: a=framerate -30 is not a number above 0 and at most 1000"),
        ("long line", sdp("a=tool:" + String(repeating: "x", count: 5000)),
         "SDP line 8: 5007 bytes is more than the 4096 accepted for one line"),
        ("huge", String(repeating: "a=x\r\n", count: 20_000), "SDP: 100000 bytes is more than the 65536 accepted"),
        ("no m=video", "v=0\r\nc=IN IP4 1.2.3.4\r\n", "SDP: missing m=video"),
        ("audio only", "v=0\r\nc=IN IP4 1.2.3.4\r\nm=audio 4000 RTP/AVP 0\r\n", "SDP: missing m=video"),
        ("no c=", "v=0\r\nm=video 5 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n", "SDP: missing c="),
        ("VP8 only", "v=0\r\nc=IN IP4 1.2.3.4\r\nm=video 5 RTP/AVP 97\r\na=rtpmap:97 VP8/90000\r\n",
         "SDP: no a=rtpmap with H264/90000 in the video section"),
        ("H264 not listed", "v=0\r\nc=IN IP4 1.2.3.4\r\nm=video 5 RTP/AVP 97\r\na=rtpmap:96 H264/90000\r\n",
         "SDP: no a=rtpmap with H264/90000 in the video section"),
        ("empty", "", "SDP: missing m=video"),
    ]

    @Test(arguments: cases.map(\.0))
    func badSDPIsASpecificError(name: String) throws {
        let (_, text, message) = try #require(Self.cases.first { $0.0 == name })
        do {
            let parsed = try SessionDescription(parsing: text)
            Issue.record("\(name): parsed \(parsed), expected \(message)")
        } catch {
            #expect(error.description == message, "\(name)")
        }
    }

    @Test func audioSectionConnectionDoesNotApplyToVideo() throws {
        let text = "v=0\r\nm=audio 4000 RTP/AVP 0\r\nc=IN IP4 10.0.0.1\r\nm=video 5004 RTP/AVP 96\r\n"
            + "c=IN IP4 10.0.0.2\r\na=rtpmap:96 H264/90000\r\n"
        #expect(try SessionDescription(parsing: text).connectionAddress == "10.0.0.2")
        let noVideoConnection = "v=0\r\nm=audio 4000 RTP/AVP 0\r\nc=IN IP4 10.0.0.1\r\nm=video 5004 RTP/AVP 96\r\n"
            + "a=rtpmap:96 H264/90000\r\n"
        #expect(throws: SessionDescriptionError.missingLine("c=")) { try SessionDescription(parsing: noVideoConnection) }
    }

    @Test func firstListedH264PayloadTypeAndItsParameters() throws {
        let text = Self.sdp(
            media: "m=video 5004 RTP/AVPF 102 96", "a=rtpmap:102 h264/90000",
            "a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=64001F",
            "a=fmtp:96 packetization-mode=1", "a=ssrc:10 msid:a b", "a=ssrc:10 cname:peer", "a=ssrc:11 cname:rtx",
            "a=rtcp:5005", "a=framerate:29.97")
        let parsed = try SessionDescription(parsing: text)
        #expect(parsed.payloadType == 96)  // the first H264 rtpmap whose type the m= line lists
        #expect(parsed.packetizationMode == 1)
        #expect(parsed.profileLevelID == "42e01f")
        #expect(parsed.ssrc == 10 && parsed.cname == "peer")
        #expect(parsed.frameRate == 29.97)
    }

    /// The transport-wide sequence number's `a=extmap` (RFC 8285 section 5, a direction allowed) is read and written
    /// back; other extensions are ignored; a bad ID is a clear error.
    @Test func transportWideCCExtmapRoundTrips() throws {
        let uri = SessionDescription.transportWideCCURI
        let parsed = try SessionDescription(parsing: Self.sdp(
            "a=fmtp:96 packetization-mode=1;profile-level-id=42e01f", "a=extmap:2 urn:ietf:params:rtp-hdrext:toffset",
            "a=extmap:5/sendonly \(uri)", "a=rtcp-fb:96 transport-cc"))
        #expect(parsed.transportWideCCExtensionID == 5)
        #expect(parsed.feedback == ["transport-cc"])
        #expect(parsed.serialize().contains("a=extmap:5 \(uri)\r\n"))
        #expect(try SessionDescription(parsing: parsed.serialize()).transportWideCCExtensionID == 5)
        #expect(try SessionDescription(parsing: Self.sdp("a=fmtp:96 packetization-mode=1;profile-level-id=42e01f"))
            .transportWideCCExtensionID == nil)
        for bad in ["0", "256", "x", ""] {
            #expect(throws: SessionDescriptionError.self) {
                try SessionDescription(parsing: Self.sdp("a=extmap:\(bad) \(uri)"))
            }
        }
    }

    @Test func frameRatesOfAnySizeSerialize() {
        // Regression (issue 11): format() converted with Int(value) whenever the value was whole, trapping on 1e300.
        #expect(SessionDescription.format(30) == "30")
        #expect(SessionDescription.format(29.97) == "29.97")
        #expect(SessionDescription.format(1e300) == "1e+300")
        #expect(SessionDescription.format(.infinity) == "inf")
        #expect(SessionDescription.format(-.nan).hasSuffix("nan"))
    }

    @Test func aCNAMEOf255BytesIsAccepted() throws {
        let cname = String(repeating: "c", count: 255)
        #expect(try SessionDescription(parsing: Self.sdp("a=ssrc:1 cname:" + cname)).cname == cname)
    }
}

/// `validate()`: what a sender configures is held to the parser's rules (issue 11: the library validates as much as
/// the CLI does).
@Suite struct SessionDescriptionValidationTests {
    static func description(_ change: (inout SessionDescription) -> Void) -> SessionDescription {
        var d = SessionDescription(
            connectionAddress: "127.0.0.1", port: 5004, profileLevelID: "42e01f",
            crypto: .init(suite: "AES_CM_128_HMAC_SHA1_80", keyParameters: "inline:AAAA"), ssrc: 1, cname: "me",
            frameRate: 30)
        change(&d)
        return d
    }

    @Test func aSenderDescriptionValidates() throws {
        try Self.description { _ in }.validate()
        try Self.description { $0.ssrc = nil; $0.cname = nil; $0.crypto = nil; $0.rtcpMux = false }.validate()
    }

    static let cases: [(String, SessionDescription, String)] = [
        ("port", description { $0.port = 70_000 }, "SDP line 6: m=video port 70000 is not 1...65535"),
        ("port 0", description { $0.port = 0 }, "SDP line 6: m=video port 0 is not 1...65535"),
        ("payload type", description { $0.payloadType = 200 }, "SDP line 6: m=video payload type 200 is not 0...127"),
        ("mode", description { $0.packetizationMode = 2 }, "SDP line 8: packetization-mode 2 is not supported (0 or 1)"),
        ("profile", description { $0.profileLevelID = "42e01" }, "SDP line 8: profile-level-id 42e01 is not six hex digits"),
        ("profile case", description { $0.profileLevelID = "42E01F" }, "SDP: the profile-level-id would not read back as configured"),
        ("cname", description { $0.cname = String(repeating: "c", count: 256) },
         "SDP line 12: a=ssrc cname must be 1...255 bytes (RFC 3550 section 6.5), not 256"),
        ("frame rate", description { $0.frameRate = .nan }, "SDP line 10: a=framerate nan is not a number above 0 and at most 1000"),
        ("session name", description { $0.sessionName = "a\r\nm=audio" },
         "SDP: the session name would not read back as configured (it holds a control character)"),
        ("cname control", description { $0.cname = "x\ny" },
         "SDP: the cname would not read back as configured (it holds a control character)"),
        ("address", description { $0.connectionAddress = "" }, "SDP line 4: c= needs 'IN IP4|IP6 address'"),
        ("empty parameter set", description { $0.parameterSets = [[]] },
         "SDP: the sprop-parameter-sets would not read back as configured"),
        ("mux-less 65535", description { $0.port = 65_535; $0.rtcpMux = false },
         "SDP line 9: a=rtcp port 65536 is not 1...65535"),
    ]

    @Test(arguments: cases.map(\.0))
    func invalidConfigurationIsASpecificError(name: String) throws {
        let (_, description, message) = try #require(Self.cases.first { $0.0 == name })
        do {
            try description.validate()
            Issue.record("\(name): validated, expected \(message)")
        } catch {
            #expect(error.description == message, "\(name)")
        }
    }
}
