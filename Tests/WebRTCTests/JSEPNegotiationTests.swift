import DTLS
import H264
import STUN
import Testing
@testable import WebRTC

@Suite struct JSEPNegotiationTests {
    static let serverFingerprint = try! DTLSFingerprint(
        sdpValue: "sha-256 01:02:03:04:05:06:07:08:09:0A:0B:0C:0D:0E:0F:10:11:12:13:14:15:16:17:18:19:1A:1B:1C:1D:1E:1F:20")
    static let serverCredentials = try! ICECredentials(ufrag: "srvr", password: "serverpassword0123456789")
    static let serverTransport = LocalTransportDescription(
        credentials: serverCredentials,
        candidates: [.host(TransportAddress(ipString: "192.0.2.10", port: 8443)!)],
        iceLite: true, fingerprint: serverFingerprint)

    static func video(_ profile: String = "42e01f", mode: Int = 1, rtx: Bool = true) -> VideoSendConfiguration {
        var configuration = VideoSendConfiguration(
            profileLevelID: try! ProfileLevelID(string: profile), packetizationMode: mode, ssrc: 0x1111_2222,
            rtxSSRC: rtx ? 0x3333_4444 : nil, cname: "cname0")
        configuration.transportWideCC = true
        return configuration
    }

    @Test func parsesChromiumOffer() throws {
        let offer = try JSEPSessionDescription(parsing: ChromiumOffer.sdp)
        #expect(offer.origin == "- 4215775240449105457 2 IN IP4 127.0.0.1")
        #expect(offer.bundleGroup == ["0", "1"])
        #expect(offer.media.map(\.kind) == ["audio", "video"])
        let video = offer.media[1]
        #expect(video.mid == "1")
        #expect(video.direction == "recvonly")
        #expect(video.formats.count == 25)
        #expect(video.has("rtcp-rsize"))
        let formats = H264PayloadFormat.formats(in: video)
        #expect(formats.map(\.payloadType) == [102, 104, 106, 108, 127, 39, 123])
        #expect(formats.map { "\($0.profileLevelID)" } == ["42001f", "42001f", "42e01f", "42e01f", "4d001f", "4d001f", "f4001f"])
        #expect(formats.map(\.packetizationMode) == [1, 0, 1, 0, 1, 0, 1])
        #expect(formats.map(\.rtxPayloadType) == [103, 105, 107, 109, 125, 40, 122])
        #expect(formats[2].feedback == ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"])
        #expect(video.headerExtensions.first { $0.uri == VideoSendConfiguration.transportCCURI }?.id == 3)
        let candidates = video.candidates
        #expect(candidates.count == 3)
        #expect(candidates[0].transportAddress == TransportAddress(ipString: "192.168.1.23", port: 51623))
        #expect(candidates[1].address.hasSuffix(".local"))
        #expect(candidates[1].transportAddress == nil)
        #expect(candidates[2].kind == .srflx)
        #expect(candidates[2].relatedAddress == "192.168.1.23")
        #expect(candidates[2].relatedPort == 51623)
        #expect(candidates[0].extensions.map(\.name) == ["generation", "network-id"])
        #expect(candidates[2].sdpValue
            == "842163049 1 udp 1686052607 203.0.113.5 51623 typ srflx raddr 192.168.1.23 rport 51623 generation 0 network-id 1")
    }

    /// The whole answer, byte for byte: what a browser receives from the WHEP endpoint.
    @Test func answersChromiumOfferByteExact() throws {
        let offer = try JSEPSessionDescription(parsing: ChromiumOffer.sdp)
        let (answer, negotiated) = try VideoAnswerer.answer(
            offer, video: Self.video(), transport: Self.serverTransport, origin: "- 77 1 IN IP4 0.0.0.0")
        let expected = """
            v=0\r
            o=- 77 1 IN IP4 0.0.0.0\r
            s=-\r
            t=0 0\r
            a=ice-lite\r
            a=group:BUNDLE 1\r
            a=msid-semantic: WMS rtc-h264\r
            m=audio 0 UDP/TLS/RTP/SAVPF 111\r
            c=IN IP4 0.0.0.0\r
            a=mid:0\r
            a=inactive\r
            m=video 8443 UDP/TLS/RTP/SAVPF 106 107\r
            c=IN IP4 192.0.2.10\r
            a=mid:1\r
            a=ice-ufrag:srvr\r
            a=ice-pwd:serverpassword0123456789\r
            a=fingerprint:sha-256 01:02:03:04:05:06:07:08:09:0A:0B:0C:0D:0E:0F:10:11:12:13:14:15:16:17:18:19:1A:1B:1C:1D:1E:1F:20\r
            a=setup:passive\r
            a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r
            a=sendonly\r
            a=msid:rtc-h264 video0\r
            a=rtcp-mux\r
            a=rtcp-rsize\r
            a=rtpmap:106 H264/90000\r
            a=rtcp-fb:106 nack\r
            a=rtcp-fb:106 nack pli\r
            a=rtcp-fb:106 ccm fir\r
            a=rtcp-fb:106 goog-remb\r
            a=rtcp-fb:106 transport-cc\r
            a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r
            a=rtpmap:107 rtx/90000\r
            a=fmtp:107 apt=106\r
            a=ssrc-group:FID 286335522 858997828\r
            a=ssrc:286335522 cname:cname0\r
            a=ssrc:286335522 msid:rtc-h264 video0\r
            a=ssrc:858997828 cname:cname0\r
            a=ssrc:858997828 msid:rtc-h264 video0\r
            a=candidate:1 1 udp 2130706431 192.0.2.10 8443 typ host\r
            a=end-of-candidates\r

            """
        #expect(answer.sdp == expected)
        #expect(negotiated.mid == "1")
        #expect(negotiated.format.payloadType == 106)
        #expect(negotiated.rtxPayloadType == 107)
        #expect(negotiated.feedback == ["nack", "nack pli", "ccm fir", "goog-remb", "transport-cc"])
        #expect(negotiated.transportCCExtensionID == 3)
        #expect(negotiated.rtcpReducedSize)
        #expect(negotiated.remoteCredentials == (try ICECredentials(ufrag: "EsAw", password: "bP+XJMM09aR8AiX1jdukzR6Y")))
        #expect(!negotiated.remoteICELite)
        #expect(negotiated.remoteFingerprint == (try DTLSFingerprint(sdpValue: ChromiumOffer.fingerprint)))
        #expect(negotiated.dtlsRole == .server)
        #expect(negotiated.remoteCandidates.count == 3)
        // The answer reads back as what was written.
        let reparsed = try JSEPSessionDescription(parsing: answer.sdp)
        #expect(reparsed == answer)
    }

    /// Each of our profiles and modes picks the matching Chromium payload type.
    @Test(arguments: [
        ("42e01f", 1, UInt8(106)), ("42e01f", 0, 108), ("4d001f", 1, 127), ("4d001f", 0, 39), ("f4001f", 1, 123),
        ("42001f", 1, 102), ("42c01f", 1, 106),
    ])
    func matchesProfileAndPacketizationMode(profile: String, mode: Int, expected: UInt8) throws {
        let offer = try JSEPSessionDescription(parsing: ChromiumOffer.sdp)
        let (_, negotiated) = try VideoAnswerer.answer(offer, video: Self.video(profile, mode: mode),
                                                       transport: Self.serverTransport)
        #expect(negotiated.format.payloadType == expected)
        #expect(negotiated.format.packetizationMode == mode)
    }

    @Test func refusesProfileNobodyOffered() throws {
        let offer = try JSEPSessionDescription(parsing: ChromiumOffer.sdp)
        do {
            _ = try VideoAnswerer.answer(offer, video: Self.video("64001f"), transport: Self.serverTransport)
            Issue.record("High was answered although not offered")
        } catch {
            guard case .noCompatibleH264(let offered) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(offered.count == 7)
            #expect(offered.first == "102 42001f mode 1")
        }
    }

    /// A Baseline-only offer still carries our Constrained Baseline stream, unless that is switched off.
    @Test func acceptsBaselineForConstrainedBaseline() throws {
        let baselineOnly = ChromiumOffer.sdp.replacingOccurrences(of: "profile-level-id=42e01f", with: "profile-level-id=4d0015")
        let offer = try JSEPSessionDescription(parsing: baselineOnly)
        let (answer, negotiated) = try VideoAnswerer.answer(offer, video: Self.video(), transport: Self.serverTransport)
        #expect(negotiated.format.payloadType == 102)
        #expect(answer.sdp.contains("a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f"))
        var strict = Self.video()
        strict.acceptBaselineForConstrainedBaseline = false
        #expect(throws: JSEPError.self) { try VideoAnswerer.answer(offer, video: strict, transport: Self.serverTransport) }
    }

    @Test func answersWithoutRTXAndTransportCC() throws {
        let offer = try JSEPSessionDescription(parsing: ChromiumOffer.sdp)
        var video = Self.video(rtx: false)
        video.transportWideCC = false
        let (answer, negotiated) = try VideoAnswerer.answer(offer, video: video, transport: Self.serverTransport)
        #expect(negotiated.rtxPayloadType == nil)
        #expect(negotiated.transportCCExtensionID == nil)
        #expect(!answer.sdp.contains("rtx/90000"))
        #expect(!answer.sdp.contains("transport-cc"))
        #expect(!answer.sdp.contains("ssrc-group"))
        #expect(answer.media[1].formats == ["106"])
    }

    @Test func levelIsCappedWithoutAsymmetry() throws {
        let lowLevel = ChromiumOffer.sdp.replacingOccurrences(
            of: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
            with: "packetization-mode=1;profile-level-id=42e015")
        let (answer, negotiated) = try VideoAnswerer.answer(
            try JSEPSessionDescription(parsing: lowLevel), video: Self.video(), transport: Self.serverTransport)
        #expect("\(negotiated.format.profileLevelID)" == "42e015")
        #expect(answer.sdp.contains("a=fmtp:106 level-asymmetry-allowed=0;packetization-mode=1;profile-level-id=42e015"))
    }

    @Test func setupNegotiation() throws {
        for (offered, ourRole, written) in [("actpass", DTLSRole.server, "passive"), ("active", .server, "passive"),
                                            ("passive", .client, "active")] {
            let text = ChromiumOffer.sdp.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:\(offered)")
            let (answer, negotiated) = try VideoAnswerer.answer(
                try JSEPSessionDescription(parsing: text), video: Self.video(), transport: Self.serverTransport)
            #expect(negotiated.dtlsRole == ourRole)
            #expect(answer.media[1].attribute("setup") == written)
        }
        var preferActive = Self.serverTransport
        preferActive.preferredSetup = .active
        let (_, negotiated) = try VideoAnswerer.answer(try JSEPSessionDescription(parsing: ChromiumOffer.sdp),
                                                       video: Self.video(), transport: preferActive)
        #expect(negotiated.dtlsRole == .client)
        let hold = ChromiumOffer.sdp.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:holdconn")
        #expect(throws: JSEPError.incompatibleSetup("holdconn")) {
            try VideoAnswerer.answer(try JSEPSessionDescription(parsing: hold), video: Self.video(),
                                     transport: Self.serverTransport)
        }
    }

    /// Offers we cannot answer, each with its error.
    @Test func refusesUnusableOffers() throws {
        func answer(_ text: String) throws(JSEPError) {
            _ = try VideoAnswerer.answer(try JSEPSessionDescription(parsing: text), video: Self.video(),
                                         transport: Self.serverTransport)
        }
        let sdp = ChromiumOffer.sdp
        let cases: [(String, String, JSEPError)] = [
            ("no rtcp-mux", sdp.replacingOccurrences(of: "a=rtcp-mux\r\n", with: ""), .unsupported("rtcp-mux")),
            ("no video", sdp.replacingOccurrences(of: "m=video 9", with: "m=text 9"), .noVideoSection),
            ("video sendonly", sdp.replacingOccurrences(of: "a=recvonly", with: "a=sendonly"), .noVideoSection),
            ("no ufrag", sdp.replacingOccurrences(of: "a=ice-ufrag:EsAw\r\n", with: ""), .missing("a=ice-ufrag")),
            ("no fingerprint", sdp.replacingOccurrences(of: "a=fingerprint:\(ChromiumOffer.fingerprint)\r\n", with: ""),
             .missing("a=fingerprint")),
            ("RTP/AVP", sdp.replacingOccurrences(of: "m=video 9 UDP/TLS/RTP/SAVPF", with: "m=video 9 RTP/AVP"),
             .unsupported("RTP/AVP (need SAVPF)")),
        ]
        for (name, text, expected) in cases {
            #expect(throws: expected, "\(name)") { try answer(text) }
        }
    }

    @Test func rejectsMalformedDescriptions() {
        let cases: [(String, String)] = [
            ("empty", ""),
            ("no version", "o=- 1 1 IN IP4 0.0.0.0\r\n"),
            ("bad version", "v=1\r\no=- 1 1 IN IP4 0.0.0.0\r\n"),
            ("not a line", "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nhello\r\n"),
            ("bad m= port", "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=video x UDP/TLS/RTP/SAVPF 96\r\n"),
            ("short m=", "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=video 9 UDP/TLS/RTP/SAVPF\r\n"),
            ("no origin", "v=0\r\ns=-\r\n"),
            ("huge", "v=0\r\n" + String(repeating: "a=x\r\n", count: 60_000)),
        ]
        for (name, text) in cases {
            #expect(throws: JSEPError.self, "\(name)") { try JSEPSessionDescription(parsing: text) }
        }
    }

    @Test func candidatesRoundTripAndRejectGarbage() throws {
        let host = ICECandidate.host(TransportAddress(ipString: "2001:db8::1", port: 9)!, foundation: "7", localPreference: 1)
        #expect(host.priority == 126 << 24 | 1 << 8 | 255)
        #expect(try ICECandidate(parsing: host.description) == host)
        for bad in ["", "1 1 udp", "1 1 udp x 1.2.3.4 9 typ host", "1 1 udp 1 1.2.3.4 70000 typ host",
                    "1 1 udp 1 1.2.3.4 9 type host", "1 1 udp 1 1.2.3.4 9 typ weird", "1 0 udp 1 1.2.3.4 9 typ host",
                    "1 1 udp 1 1.2.3.4 9 typ host generation"] {
            #expect(throws: JSEPError.self, "\(bad)") { try ICECandidate(parsing: bad) }
        }
    }
}
