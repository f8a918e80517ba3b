import DTLS
import Foundation
import H264
import RTP
import SRTP
import STUN
import Testing
@testable import WebRTC

/// Our ICE-lite + DTLS-SRTP + JSEP answer against headless Chromium (libwebrtc: full ICE, BoringSSL DTLS, its SDP),
/// over real UDP: a page offers recvonly video, we answer, send an x264 stream, and the page's getStats() reports the
/// frames it decoded.
///
/// Opt-in: set RTC_H264_CHROMIUM=1 (needs /usr/bin/chromium and python3).
@Suite(.serialized) struct ChromiumInteropTests {
    static let enabled = ProcessInfo.processInfo.environment["RTC_H264_CHROMIUM"] == "1"

    /// Both DTLS roles (we answer passive: Chromium's BoringSSL is the client; active: ours is) and both SRTP
    /// profiles.
    @Test(.enabled(if: enabled, "set RTC_H264_CHROMIUM=1 to run against /usr/bin/chromium"), .timeLimit(.minutes(2)),
          arguments: [(DTLSSetup.passive, SRTPSuite.aeadAES128GCM), (.active, .aeadAES128GCM),
                      (.passive, .aesCM128HMACSHA1_80), (.active, .aesCM128HMACSHA1_80)])
    func chromiumViewerDecodesOurStream(setup: DTLSSetup, suite: SRTPSuite) throws {
        let stream = try InteropHarness.makeStream()
        var (viewer, input, lines) = try InteropHarness.launch("chromium_whep_viewer.py", python: "/usr/bin/python3")
        defer { if viewer.isRunning { viewer.terminate() } }
        let offer = try JSEPSessionDescription(parsing: try InteropHarness.receive("offer", from: &lines))

        let socket = try UDPTestSocket(ip: try #require(UDPTestSocket.firstExternalIPv4()))
        let certificate = try DTLSCertificate.generate()
        let answered = try InteropHarness.answerAsLite(
            offer, ssrc: 0x5eed_0003, socket: socket, certificate: certificate,
            context: try DTLSContext(certificate: certificate, srtpSuites: [suite]), setup: setup, input: input)
        let (transport, negotiated) = (answered.transport, answered.negotiated)
        let outcome = try InteropHarness.drive(answered, socket: socket, stream: stream, lines: &lines)
        InteropHarness.expectDecoded(outcome)
        #expect(outcome.report["dtls"] as? String == "connected")
        #expect(outcome.report["srtp"] as? String == "SRTP_" + (suite == .aeadAES128GCM ? "AEAD_AES_128_GCM" : "AES128_CM_HMAC_SHA1_80"))
        #expect(outcome.report["dtlsRole"] as? String == (setup == .passive ? "client" : "server"))
        if case .lite(let agent) = transport.agent {
            #expect(agent.statistics.integrityFailures == 0)
            #expect(agent.statistics.malformed == 0)
        }
        print("Chromium WHEP interop: \(outcome.report), PT \(negotiated.format.payloadType) "
              + "\(negotiated.format.profileLevelID), feedback \(negotiated.feedback), DTLS \(negotiated.dtlsRole), "
              + "SRTCP decrypted \(outcome.rtcpDecrypted), connected "
              + "\(outcome.connectedAt.map { "\($0)" } ?? "-") after the answer")
    }

    /// Twenty joins in a row, each a new RTCPeerConnection answered on a new socket: the time from the page's offer
    /// to its first decoded frame (the issue's join-latency target: p50 <= 500 ms, p99 <= 1 s on loopback).
    @Test(.enabled(if: enabled, "set RTC_H264_CHROMIUM=1 to run against /usr/bin/chromium"), .timeLimit(.minutes(2)))
    func joinLatencyOverTwentyJoins() throws {
        let joins = 20
        let stream = try InteropHarness.makeStream()
        var (viewer, input, lines) = try InteropHarness.launch(
            "chromium_whep_viewer.py", python: "/usr/bin/python3", frames: 3, extra: ["--joins", "\(joins)"])
        defer { if viewer.isRunning { viewer.terminate() } }
        let certificate = try DTLSCertificate.generate()
        let context = try DTLSContext(certificate: certificate)
        let ip = try #require(UDPTestSocket.firstExternalIPv4())
        var latencies: [Double] = []
        for _ in 0..<joins {
            let offer = try JSEPSessionDescription(parsing: try InteropHarness.receive("offer", from: &lines))
            let socket = try UDPTestSocket(ip: ip)
            let answered = try InteropHarness.answerAsLite(
                offer, ssrc: UInt32.random(in: 1...UInt32.max), socket: socket, certificate: certificate,
                context: context, input: input)
            let transport = answered.transport
            let outcome = try InteropHarness.drive(answered, socket: socket, stream: stream, lines: &lines)
            transport.close()
            while let transmit = transport.pollTransmit() { socket.send(transmit.bytes, to: transmit.destination) }
            #expect((outcome.report["frames"] as? Int ?? 0) >= 3)
            if let latency = outcome.report["joinToFirstFrameMs"] as? Double { latencies.append(latency) }
        }
        #expect(latencies.count == joins)
        let sorted = latencies.sorted()
        let p50 = sorted[sorted.count / 2]
        let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        // The issue's figures (p50 <= 500 ms, p99 <= 1 s) are the benchmark's (Tests/Benchmarks/run-whep.sh), not a
        // timed assertion here: this test checks that twenty joins in a row each decode.
        print("Chromium join latency over \(joins) joins (offer to first decoded frame): p50 \(p50) ms, "
              + "p99 \(p99) ms, min \(sorted.first ?? 0) ms, max \(sorted.last ?? 0) ms")
    }

    /// Forty seconds after the stream ends, the viewer is still connected: Chromium's consent checks (RFC 7675) keep
    /// passing our integrity check, so the 30 s consent timeout never fires. Run by CI with the others (about 45 s).
    @Test(.enabled(if: enabled, "set RTC_H264_CHROMIUM=1 to run against /usr/bin/chromium"), .timeLimit(.minutes(2)))
    func consentHoldsForFortySeconds() throws {
        let stream = try InteropHarness.makeStream()
        // The page waits for more frames than we send, so it reports at its 40 s timeout.
        var (viewer, input, lines) = try InteropHarness.launch(
            "chromium_whep_viewer.py", python: "/usr/bin/python3", frames: 10_000, timeoutSeconds: 40)
        defer { if viewer.isRunning { viewer.terminate() } }
        let offer = try JSEPSessionDescription(parsing: try InteropHarness.receive("offer", from: &lines))
        let socket = try UDPTestSocket(ip: try #require(UDPTestSocket.firstExternalIPv4()))
        let answered = try InteropHarness.answerAsLite(
            offer, ssrc: 0x5eed_0004, socket: socket, certificate: try DTLSCertificate.generate(), input: input)
        let (transport, clock) = (answered.transport, answered.clock)
        let outcome = try InteropHarness.drive(answered, socket: socket, stream: stream, lines: &lines)
        #expect(outcome.report["ice"] as? String == "connected")
        #expect((outcome.report["frames"] as? Int ?? 0) >= InteropHarness.frameCount - 2)
        guard case .lite(let agent) = transport.agent else { return }
        #expect(agent.state != .closed)  // consent never expired (the page closes its side with close_notify)
        #expect(agent.statistics.integrityFailures == 0)
        #expect(agent.statistics.requestsAnswered >= 8)  // a check every 2.5-5 s over 40 s
        print("Chromium consent over \(clock.now()): \(agent.statistics.requestsAnswered) checks answered, "
              + "\(outcome.rtcpDecrypted) SRTCP packets decrypted, state \(agent.state)")
    }
}
