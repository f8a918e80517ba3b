import DTLS
import Foundation
import H264
import RTP
import SRTP
import STUN
import Testing
@testable import WebRTC

/// Our ICE-lite + DTLS-SRTP + JSEP answer against aiortc, an independent WebRTC stack (aioice, pyOpenSSL, pylibsrtp,
/// PyAV), over real UDP: aiortc offers as a WHEP viewer, we answer, packetize an x264 stream with our RFC 6184
/// packetizer, protect it with the DTLS-derived keys, and aiortc decodes the frames.
///
/// Opt-in: set RTC_H264_AIORTC_PYTHON to a Python that has aiortc (`python3 -m venv v && v/bin/pip install aiortc`).
@Suite(.serialized) struct AiortcInteropTests {
    static let python = ProcessInfo.processInfo.environment["RTC_H264_AIORTC_PYTHON"]

    /// WHEP: aiortc offers as a viewer; we answer as an ICE-lite server and send.
    @Test(.enabled(if: python != nil, "set RTC_H264_AIORTC_PYTHON to a Python with aiortc"), .timeLimit(.minutes(1)))
    func aiortcViewerDecodesOurStream() throws {
        let stream = try InteropHarness.makeStream()
        var (viewer, input, lines) = try InteropHarness.launch("aiortc_whep_client.py", python: try #require(Self.python))
        defer { if viewer.isRunning { viewer.terminate() } }
        let offer = try JSEPSessionDescription(parsing: try InteropHarness.receive("offer", from: &lines))

        // One socket on an external interface (aioice leaves loopback out), ICE-lite, DTLS server.
        let socket = try UDPTestSocket(ip: try #require(UDPTestSocket.firstExternalIPv4()))
        let answered = try InteropHarness.answerAsLite(
            offer, ssrc: 0x5eed_0001, feedback: ["nack", "nack pli"], socket: socket,
            certificate: try DTLSCertificate.generate(), input: input)
        let (transport, negotiated) = (answered.transport, answered.negotiated)
        let outcome = try InteropHarness.drive(answered, socket: socket, stream: stream, lines: &lines)
        InteropHarness.expectDecoded(outcome)
        if case .lite(let agent) = transport.agent {
            #expect(agent.statistics.integrityFailures == 0)
            #expect(agent.statistics.requestsAnswered >= 1)
        }
        print("aiortc WHEP interop: \(outcome.report), PT \(negotiated.format.payloadType) \(negotiated.format.profileLevelID), "
              + "DTLS \(negotiated.dtlsRole), suite \(transport.keys?.suite.sdpName ?? "-"), SRTCP decrypted "
              + "\(outcome.rtcpDecrypted), connected \(outcome.connectedAt.map { "\($0)" } ?? "-") after the answer")
    }

    /// WHIP: we offer sendonly with full ICE; aiortc answers as the endpoint and decodes what we publish.
    @Test(.enabled(if: python != nil, "set RTC_H264_AIORTC_PYTHON to a Python with aiortc"), .timeLimit(.minutes(1)))
    func aiortcEndpointDecodesWhatWePublish() throws {
        let stream = try InteropHarness.makeStream()
        var (endpoint, input, lines) = try InteropHarness.launch("aiortc_whip_endpoint.py", python: try #require(Self.python))
        defer { if endpoint.isRunning { endpoint.terminate() } }

        let socket = try UDPTestSocket(ip: try #require(UDPTestSocket.firstExternalIPv4()))
        let certificate = try DTLSCertificate.generate()
        let credentials = ICECredentials.random()
        var video = VideoSendConfiguration(profileLevelID: try ProfileLevelID(string: "42e01f"), packetizationMode: 1,
                                           ssrc: 0x5eed_0002, cname: "interop")
        video.feedback = ["nack", "nack pli"]
        let offer = VideoOfferer.offer(
            video: video,
            transport: LocalTransportDescription(credentials: credentials, candidates: [.host(socket.address)],
                                                 iceLite: false, fingerprint: certificate.fingerprint))
        let clock = InteropHarness.Clock()
        try InteropHarness.send(["offer": offer.sdp], to: input)
        let answer = try JSEPSessionDescription(parsing: try InteropHarness.receive("answer", from: &lines))
        let negotiated = try VideoOfferer.accept(answer, video: video)
        var agent = ICEFullAgent(
            local: credentials, remote: negotiated.remoteCredentials,
            localCandidates: [.init(address: socket.address,
                                    priority: ICECandidate.priority(kind: .host, localPreference: 65535))],
            now: clock.now())
        for candidate in negotiated.remoteCandidates { agent.addRemoteCandidate(candidate) }
        #expect(!agent.pairs.isEmpty)
        let transport = PeerTransport(
            agent: .full(agent),
            dtls: try DTLSEndpoint(context: try DTLSContext(certificate: certificate), role: negotiated.dtlsRole,
                                   remoteFingerprint: negotiated.remoteFingerprint))
        let outcome = try InteropHarness.drive(transport, socket: socket, clock: clock, payloadType: negotiated.format.payloadType,
                                     ssrc: video.ssrc, stream: stream, lines: &lines)
        InteropHarness.expectDecoded(outcome)
        if case .full(let agent) = transport.agent {
            #expect(agent.statistics.integrityFailures == 0)
            #expect(agent.role == .controlling)
            print("aiortc WHIP interop: \(outcome.report), PT \(negotiated.format.payloadType), DTLS \(negotiated.dtlsRole), "
                  + "suite \(transport.keys?.suite.sdpName ?? "-"), checks sent \(agent.statistics.requestsSent), "
                  + "answered \(agent.statistics.requestsAnswered), SRTCP decrypted \(outcome.rtcpDecrypted), "
                  + "connected \(outcome.connectedAt.map { "\($0)" } ?? "-") after the answer")
        }
    }
}

