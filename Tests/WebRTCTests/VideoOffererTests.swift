import DTLS
import H264
import STUN
import Testing
@testable import WebRTC

@Suite struct VideoOffererTests {
    static let clientTransport = LocalTransportDescription(
        credentials: try! ICECredentials(ufrag: "clnt", password: "clientpassword0123456789"),
        candidates: [.host(TransportAddress(ipString: "10.0.0.2", port: 40000)!, foundation: "1"),
                     .host(TransportAddress(ipString: "172.16.0.2", port: 40001)!, foundation: "2", localPreference: 65534)],
        iceLite: false, fingerprint: JSEPNegotiationTests.serverFingerprint)

    @Test func offerIsSendonlyActpassWithOurFormat() throws {
        let video = JSEPNegotiationTests.video()
        let offer = VideoOfferer.offer(video: video, transport: Self.clientTransport, origin: "- 5 1 IN IP4 0.0.0.0")
        let sdp = offer.sdp
        #expect(sdp.hasPrefix("v=0\r\no=- 5 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n"))
        #expect(!sdp.contains("a=ice-lite"))
        #expect(sdp.contains("m=video 40000 UDP/TLS/RTP/SAVPF 96 97\r\nc=IN IP4 10.0.0.2\r\n"))
        #expect(sdp.contains("a=setup:actpass\r\n"))
        #expect(sdp.contains("a=sendonly\r\n"))
        #expect(sdp.contains("a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r\n"))
        #expect(sdp.contains("a=rtcp-fb:96 transport-cc\r\n"))
        #expect(sdp.contains("a=extmap:3 \(VideoSendConfiguration.transportCCURI)\r\n"))
        #expect(sdp.contains("a=candidate:2 1 udp 2130706175 172.16.0.2 40001 typ host\r\n"))
        // Our own parser reads our offer back.
        let parsed = try JSEPSessionDescription(parsing: sdp)
        #expect(parsed == offer)
        #expect(H264PayloadFormat.formats(in: parsed.media[0]).first?.rtxPayloadType == 97)
    }

    /// With a FEC SSRC the WHIP offer lists flexfec-03 (PT 49) with its FEC-FR group; an answer that keeps PT 49
    /// negotiates FlexFEC, one that leaves it out (most SFUs) does not.
    @Test func offersFlexFECAndReadsWhetherTheAnswerKeptIt() throws {
        var video = JSEPNegotiationTests.video()
        video.fecSSRC = 4242
        let offer = VideoOfferer.offer(video: video, transport: Self.clientTransport)
        let sdp = offer.sdp
        #expect(sdp.contains("m=video 40000 UDP/TLS/RTP/SAVPF 96 97 49\r\n"))
        #expect(sdp.contains("a=rtpmap:49 flexfec-03/90000\r\n"))
        #expect(sdp.contains("a=fmtp:49 repair-window=10000000\r\n"))
        #expect(sdp.contains("a=ssrc-group:FEC-FR \(video.ssrc) 4242\r\n"))
        #expect(try JSEPSessionDescription(parsing: sdp) == offer)

        let kept = try JSEPSessionDescription(parsing: Self.sfuAnswer(formats: "96 97 49", extra: "a=rtpmap:49 flexfec-03/90000\r\n"))
        #expect(try VideoOfferer.accept(kept, video: video).fecPayloadType == 49)
        let dropped = try JSEPSessionDescription(parsing: Self.sfuAnswer(formats: "96 97", extra: ""))
        #expect(try VideoOfferer.accept(dropped, video: video).fecPayloadType == nil)
        video.fecSSRC = nil
        #expect(!VideoOfferer.offer(video: video, transport: Self.clientTransport).sdp.contains("flexfec"))
        #expect(try VideoOfferer.accept(kept, video: video).fecPayloadType == nil)
    }

    /// A minimal SFU answer with the given m= formats and extra attribute lines.
    static func sfuAnswer(formats: String, extra: String) -> String {
        """
        v=0\r
        o=- 1700000000 1 IN IP4 203.0.113.9\r
        s=-\r
        t=0 0\r
        a=ice-lite\r
        a=group:BUNDLE 0\r
        m=video 20000 UDP/TLS/RTP/SAVPF \(formats)\r
        c=IN IP4 203.0.113.9\r
        a=mid:0\r
        a=recvonly\r
        a=ice-ufrag:sfu1\r
        a=ice-pwd:sfupassword0123456789abc\r
        a=fingerprint:sha-256 \(JSEPNegotiationTests.serverFingerprint.sdpValue.dropFirst(8))\r
        a=setup:passive\r
        a=rtcp-mux\r
        a=rtpmap:96 H264/90000\r
        a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r
        a=rtpmap:97 rtx/90000\r
        a=fmtp:97 apt=96\r
        \(extra)a=candidate:1 1 udp 2130706431 203.0.113.9 20000 typ host\r

        """
    }

    /// An answer as an SFU behind WHIP writes it (ICE-lite, setup:passive, one candidate): accepted.
    @Test func acceptsSFUAnswer() throws {
        let video = JSEPNegotiationTests.video()
        let answer = """
            v=0\r
            o=- 1700000000 1 IN IP4 203.0.113.9\r
            s=-\r
            t=0 0\r
            a=ice-lite\r
            a=group:BUNDLE 0\r
            m=video 20000 UDP/TLS/RTP/SAVPF 96 97\r
            c=IN IP4 203.0.113.9\r
            a=mid:0\r
            a=recvonly\r
            a=ice-ufrag:sfu1\r
            a=ice-pwd:sfupassword0123456789abc\r
            a=fingerprint:sha-256 \(JSEPNegotiationTests.serverFingerprint.sdpValue.dropFirst(8))\r
            a=setup:passive\r
            a=extmap:3 \(VideoSendConfiguration.transportCCURI)\r
            a=rtcp-mux\r
            a=rtpmap:96 H264/90000\r
            a=rtcp-fb:96 nack\r
            a=rtcp-fb:96 nack pli\r
            a=rtcp-fb:96 transport-cc\r
            a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r
            a=rtpmap:97 rtx/90000\r
            a=fmtp:97 apt=96\r
            a=candidate:1 1 udp 2130706431 203.0.113.9 20000 typ host\r
            a=end-of-candidates\r

            """
        let negotiated = try VideoOfferer.accept(try JSEPSessionDescription(parsing: answer), video: video)
        #expect(negotiated.dtlsRole == .client)  // the SFU is passive, so we start the handshake
        #expect(negotiated.remoteICELite)
        #expect(negotiated.format.payloadType == 96)
        #expect(negotiated.rtxPayloadType == 97)
        #expect(negotiated.feedback == ["nack", "nack pli", "transport-cc"])
        #expect(negotiated.transportCCExtensionID == 3)
        #expect(!negotiated.rtcpReducedSize)
        #expect(negotiated.remoteCandidates.first?.transportAddress == TransportAddress(ipString: "203.0.113.9", port: 20000))
        #expect(negotiated.remoteCredentials.ufrag == "sfu1")

        let active = answer.replacingOccurrences(of: "a=setup:passive", with: "a=setup:active")
        #expect(try VideoOfferer.accept(try JSEPSessionDescription(parsing: active), video: video).dtlsRole == .server)
        let bad: [(String, JSEPError)] = [
            (answer.replacingOccurrences(of: "a=setup:passive", with: "a=setup:actpass"), .incompatibleSetup("actpass")),
            (answer.replacingOccurrences(of: "m=video 20000", with: "m=video 0"), .noVideoSection),
            (answer.replacingOccurrences(of: "a=recvonly", with: "a=sendonly"), .unsupported("receiving our stream (a=sendonly)")),
            (answer.replacingOccurrences(of: "packetization-mode=1", with: "packetization-mode=0"),
             .noCompatibleH264(offered: ["96 42e01f mode 0"])),
        ]
        for (text, expected) in bad {
            #expect(throws: expected) { try VideoOfferer.accept(try JSEPSessionDescription(parsing: text), video: video) }
        }
    }
}
