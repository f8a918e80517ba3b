import Codec
import DTLS
import Sender
import Testing
@testable import WHIP

/// The publisher's failure paths against a real HTTP server on loopback: whatever goes wrong after the 201, the
/// session is DELETEd again and the error says why. (Publishing for real: whip-aiortc.sh, whip-janus.sh.)
@Suite struct WHIPPublisherTests {
    static func answer(candidate: String?, fingerprint: String) -> String {
        var lines = [
            "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0",
            "m=video 9 UDP/TLS/RTP/SAVPF 96", "c=IN IP4 0.0.0.0", "a=mid:0", "a=recvonly", "a=rtcp-mux",
            "a=rtcp-rsize", "a=ice-ufrag:wxyz", "a=ice-pwd:abcdefghijklmnopqrstuvwx",
            "a=fingerprint:\(fingerprint)", "a=setup:passive", "a=rtpmap:96 H264/90000",
            "a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
            "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli",
        ]
        if let candidate { lines.append("a=candidate:\(candidate)") }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func server(answer: String) async throws -> ScriptedHTTPServer {
        try await ScriptedHTTPServer { request in
            request.method == "POST"
                ? .init(status: 201, headers: [("Content-Type", "application/sdp"), ("Location", "/session/1")], body: answer)
                : .init(status: 200)
        }
    }

    static var configuration: SenderConfiguration {
        SenderConfiguration(publishing: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 500_000))
    }

    @Test func aPeerThatNeverAnswersChecksTimesOutAndTheSessionIsDeleted() async throws {
        // Port 9 (discard) on loopback: nothing answers our ICE checks.
        let fingerprint = try DTLSCertificate.generate().fingerprint.sdpValue
        let server = try await Self.server(answer: Self.answer(candidate: "1 1 udp 2130706431 127.0.0.1 9 typ host",
                                                               fingerprint: fingerprint))
        var whip = WHIPConfiguration(url: server.base + "/whip", token: "t0ken")
        whip.connectTimeout = .seconds(1)
        do {
            _ = try await WHIPPublisher(configuration: Self.configuration, whip: whip)
            Issue.record("connected to nobody")
        } catch let error as WHIPError {
            guard case .transportClosed(let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(reason.contains("did not connect"))
        }
        let requests = server.requests
        #expect(requests.map(\.method) == ["POST", "DELETE"])
        #expect(requests.last?.uri == "/session/1")
        #expect(requests.last?.header("Authorization") == "Bearer t0ken")
        await server.close()
    }

    @Test func anAnswerWithoutUsableCandidatesIsRefusedAndDeleted() async throws {
        let fingerprint = try DTLSCertificate.generate().fingerprint.sdpValue
        let server = try await Self.server(answer: Self.answer(candidate: nil, fingerprint: fingerprint))
        do {
            _ = try await WHIPPublisher(configuration: Self.configuration,
                                        whip: WHIPConfiguration(url: server.base + "/whip"))
            Issue.record("accepted an answer without candidates")
        } catch let error as WHIPError {
            guard case .badAnswer(let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(reason.contains("no UDP candidate"))
        }
        #expect(server.requests.map(\.method) == ["POST", "DELETE"])
        await server.close()
    }

    @Test func anAnswerOfAnotherProfileIsRefusedAndDeleted() async throws {
        let fingerprint = try DTLSCertificate.generate().fingerprint.sdpValue
        let high = Self.answer(candidate: "1 1 udp 2130706431 127.0.0.1 9 typ host", fingerprint: fingerprint)
            .replacingAll("profile-level-id=42e01f", with: "profile-level-id=64001f")
        let server = try await Self.server(answer: high)
        do {
            _ = try await WHIPPublisher(configuration: Self.configuration,
                                        whip: WHIPConfiguration(url: server.base + "/whip"))
            Issue.record("accepted a High answer for a Constrained Baseline offer")
        } catch let error as WHIPError {
            guard case .badAnswer(let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(reason.contains("H.264"))
        }
        #expect(server.requests.map(\.method) == ["POST", "DELETE"])
        await server.close()
    }
}
