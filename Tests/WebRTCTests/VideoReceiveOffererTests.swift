import DTLS
import H264
import STUN
import Testing
@testable import WebRTC

/// The WHEP client's recvonly offer, and its reading of answers: ours (`VideoAnswerer`) and hostile ones.
@Suite struct VideoReceiveOffererTests {
    static let offer = VideoReceiveOfferer.offer(
        video: VideoReceiveConfiguration(), transport: VideoOffererTests.clientTransport, origin: "- 7 1 IN IP4 0.0.0.0")

    @Test func offerIsRecvonlyActpassWithBothProfilesRTXAndFlexFEC() throws {
        let sdp = Self.offer.sdp
        #expect(sdp.hasPrefix("v=0\r\no=- 7 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n"))
        #expect(sdp.contains("m=video 40000 UDP/TLS/RTP/SAVPF 96 97 98 99 49\r\nc=IN IP4 10.0.0.2\r\n"))
        #expect(sdp.contains("a=recvonly\r\n"))
        #expect(!sdp.contains("a=sendonly") && !sdp.contains("a=ssrc"))
        #expect(sdp.contains("a=setup:actpass\r\n"))
        #expect(sdp.contains("a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r\n"))
        #expect(sdp.contains("a=fmtp:98 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=64001f\r\n"))
        #expect(sdp.contains("a=fmtp:97 apt=96\r\n") && sdp.contains("a=fmtp:99 apt=98\r\n"))
        #expect(sdp.contains("a=rtpmap:49 flexfec-03/90000\r\n"))
        #expect(sdp.contains("a=rtcp-fb:96 nack pli\r\n") && sdp.contains("a=rtcp-fb:98 transport-cc\r\n"))
        #expect(!sdp.contains("goog-remb"))
        #expect(sdp.contains("a=extmap:6 \(VideoSendConfiguration.dependencyDescriptorURI)\r\n"))
        #expect(sdp.contains("a=candidate:2 1 udp 2130706175 172.16.0.2 40001 typ host\r\n"))
        #expect(try JSEPSessionDescription(parsing: sdp) == Self.offer)
        // Without transport-wide feedback neither the extension nor the feedback is offered.
        var plain = VideoReceiveConfiguration()
        plain.transportWideCC = false
        plain.fecPayloadType = nil
        let text = VideoReceiveOfferer.offer(video: plain, transport: VideoOffererTests.clientTransport).sdp
        #expect(!text.contains("transport-cc") && !text.contains("flexfec"))
    }

    /// Our WHEP server's answer (`VideoAnswerer`) to our offer, and what the player reads from it.
    static func servedAnswer(_ video: VideoSendConfiguration) throws -> (answer: String, served: NegotiatedVideo, read: NegotiatedVideo) {
        let (answer, served) = try VideoAnswerer.answer(
            try JSEPSessionDescription(parsing: offer.sdp), video: video, transport: JSEPNegotiationTests.serverTransport)
        let read = try VideoReceiveOfferer.accept(
            try JSEPSessionDescription(parsing: answer.sdp), video: VideoReceiveConfiguration())
        return (answer.sdp, served, read)
    }

    /// Our own WHEP server's answer, Constrained Baseline: PT 96 with RTX 97, the feedback, transport-cc and the
    /// extensions; DTLS client because the answerer is passive.
    @Test func readsOurServersAnswer() throws {
        var video = JSEPNegotiationTests.video()
        video.absoluteCaptureTime = true
        video.dependencyDescriptor = true
        let (_, served, negotiated) = try Self.servedAnswer(video)
        #expect(negotiated.format.payloadType == 96)
        #expect(negotiated.rtxPayloadType == 97)
        #expect(negotiated.fecPayloadType == nil)
        #expect(negotiated.feedback == ["nack", "nack pli", "ccm fir", "transport-cc"])
        #expect(negotiated.transportCCExtensionID == 3)
        #expect(negotiated.absoluteCaptureTimeExtensionID == 4)
        #expect(negotiated.dependencyDescriptorExtensionID == 6)
        #expect(negotiated.playoutDelayExtensionID == nil)
        #expect(negotiated.dtlsRole == .client)
        #expect(negotiated.remoteICELite)
        #expect(negotiated.remoteCandidates.count == 1)
        #expect(served.format.payloadType == 96)
    }

    /// A High profile server picks PT 98 (RTX 99); with a FEC SSRC it answers FlexFEC 49, which we then read.
    @Test func readsHighProfileAndFlexFEC() throws {
        var video = JSEPNegotiationTests.video("64001f")
        video.fecSSRC = 0x5555_6666
        let (answer, _, negotiated) = try Self.servedAnswer(video)
        #expect(negotiated.format.payloadType == 98)
        #expect(negotiated.rtxPayloadType == 99)
        #expect(negotiated.fecPayloadType == 49)
        // An offer without FlexFEC reads no FEC even when the answer lists it.
        var noFEC = VideoReceiveConfiguration()
        noFEC.fecPayloadType = nil
        #expect(try VideoReceiveOfferer.accept(try JSEPSessionDescription(parsing: answer), video: noFEC).fecPayloadType == nil)
    }

    /// An answer as a third-party SFU writes it (payload types and attributes of its own choosing).
    static func answer(direction: String = "sendonly", formats: String = "96 97", setup: String = "passive",
                       fmtp96: String = "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
                       extra: String = "", mux: Bool = true, port: Int = 20000) -> String {
        """
        v=0\r
        o=- 1700000000 1 IN IP4 203.0.113.9\r
        s=-\r
        t=0 0\r
        a=group:BUNDLE 0\r
        m=video \(port) UDP/TLS/RTP/SAVPF \(formats)\r
        c=IN IP4 203.0.113.9\r
        a=mid:0\r
        a=\(direction)\r
        a=ice-ufrag:sfu1\r
        a=ice-pwd:sfupassword0123456789abc\r
        a=fingerprint:sha-256 \(JSEPNegotiationTests.serverFingerprint.sdpValue.dropFirst(8))\r
        a=setup:\(setup)\r
        \(mux ? "a=rtcp-mux\r\n" : "")a=rtpmap:96 H264/90000\r
        a=rtcp-fb:96 nack\r
        a=rtcp-fb:96 nack pli\r
        a=rtcp-fb:96 goog-remb\r
        a=fmtp:96 \(fmtp96)\r
        a=rtpmap:97 rtx/90000\r
        a=fmtp:97 apt=96\r
        a=rtpmap:100 H264/90000\r
        a=fmtp:100 packetization-mode=1;profile-level-id=42e01f\r
        \(extra)a=candidate:1 1 udp 2130706431 203.0.113.9 20000 typ host\r

        """
    }

    @Test func readsAThirdPartyAnswer() throws {
        let negotiated = try VideoReceiveOfferer.accept(
            try JSEPSessionDescription(parsing: Self.answer(extra: "a=extmap:3 \(VideoSendConfiguration.transportCCURI)\r\n")),
            video: VideoReceiveConfiguration())
        #expect(negotiated.format.payloadType == 96)
        #expect(negotiated.rtxPayloadType == 97)
        // goog-remb was not offered, transport-cc was not answered as feedback: neither is used.
        #expect(negotiated.feedback == ["nack", "nack pli"])
        #expect(negotiated.transportCCExtensionID == nil)
        #expect(negotiated.dtlsRole == .client)
        // setup:active makes us the DTLS server; sendrecv is accepted.
        let active = try VideoReceiveOfferer.accept(
            try JSEPSessionDescription(parsing: Self.answer(direction: "sendrecv", setup: "active")),
            video: VideoReceiveConfiguration())
        #expect(active.dtlsRole == .server)
    }

    /// Each unusable answer is a specific error, never a guess.
    @Test func refusesUnusableAnswers() throws {
        let video = VideoReceiveConfiguration()
        func accept(_ text: String) throws(JSEPError) -> NegotiatedVideo {
            let parsed: JSEPSessionDescription
            do { parsed = try JSEPSessionDescription(parsing: text) } catch { throw error }
            return try VideoReceiveOfferer.accept(parsed, video: video)
        }
        #expect(throws: JSEPError.unsupported("sending a stream to us (a=recvonly)")) { try accept(Self.answer(direction: "recvonly")) }
        #expect(throws: JSEPError.unsupported("sending a stream to us (a=inactive)")) { try accept(Self.answer(direction: "inactive")) }
        #expect(throws: JSEPError.unsupported("rtcp-mux")) { try accept(Self.answer(mux: false)) }
        #expect(throws: JSEPError.incompatibleSetup("actpass")) { try accept(Self.answer(setup: "actpass")) }
        #expect(throws: JSEPError.noVideoSection) { try accept(Self.answer(port: 0)) }
        // Only a payload type we did not offer (100), or ours in another profile or mode.
        #expect(throws: JSEPError.noCompatibleH264(offered: ["100 42e01f mode 1"])) { try accept(Self.answer(formats: "100")) }
        #expect(throws: JSEPError.noCompatibleH264(offered: ["96 640c1f mode 1"])) {
            try accept(Self.answer(formats: "96", fmtp96: "packetization-mode=1;profile-level-id=640c1f"))
        }
        #expect(throws: JSEPError.noCompatibleH264(offered: ["96 42e01f mode 0"])) {
            try accept(Self.answer(formats: "96", fmtp96: "packetization-mode=0;profile-level-id=42e01f"))
        }
        // An extension id given to two URIs is not used (either could be meant).
        let colliding = try accept(Self.answer(
            extra: "a=extmap:4 \(VideoSendConfiguration.absoluteCaptureTimeURI)\r\na=extmap:4 urn:example:other\r\n"))
        #expect(colliding.absoluteCaptureTimeExtensionID == nil)
    }
}
