import Codec
import Foundation
import Sender
import Testing
import TestSupport
import WHIP

/// The WHIP example of Docs/Guide.md ("Publish to an SFU with WHIP"), compiled here so that it cannot rot, and run
/// against an endpoint that refuses the token: the error the Guide promises must come back. The text between the
/// `guide:begin` and `guide:end` markers must appear verbatim in the Guide. (Publishing for real is shown by
/// Tests/WebRTCTests/Interop/whip-aiortc.sh and whip-janus.sh, which need a network namespace.)
@Suite struct WHIPGuideExampleTests {
    // guide:begin
    /// Publishes frames from `frames` to a WHIP endpoint (Janus, MediaMTX, LiveKit, ...) until the sequence ends.
    func publish(_ frames: some AsyncSequence<CapturedFrame, Never>, to url: String, token: String) async throws
        -> SenderStats
    {
        var configuration = SenderConfiguration(
            publishing: EncoderConfiguration(width: 1280, height: 720, frameRate: 30, targetBitrate: 2_000_000))
        configuration.rtx = .init()  // retransmissions on their own SSRC, if the endpoint accepts RTX
        let publisher: WHIPPublisher
        do {
            // POST offer -> 201 + answer; ICE and DTLS connect; the sender starts over the selected pair.
            publisher = try await WHIPPublisher(configuration: configuration,
                                                whip: WHIPConfiguration(url: url, token: token))
        } catch let error as WHIPError {
            print("WHIP failed: \(error)")  // e.g. "... refused the credentials (HTTP 401) ..."; never the token
            throw error
        }
        print("publishing to \(publisher.session.resourceURL) over \(publisher.remoteAddress) (\(publisher.suite))")
        for await captured in frames {
            await publisher.sender.waitForEncoder()
            try publisher.sender.send(captured.frame, captureTime: captured.captureTime)
        }
        return try await publisher.finish()  // BYE, socket closed, DELETE of the session
    }
    // guide:end

    @Test func theGuidesWHIPExampleReportsARefusedToken() async throws {
        let server = try await ScriptedHTTPServer { _ in .init(status: 401, body: "bad token") }
        let frames = AsyncStream<CapturedFrame> { $0.finish() }
        do {
            _ = try await publish(frames, to: server.base + "/whip", token: "guide-token")
            Issue.record("published with a refused token")
        } catch let error as WHIPError {
            #expect(error == .authenticationFailed(status: 401, excerpt: "bad token"))
            #expect(!error.description.contains("guide-token"))
        }
        #expect(server.requests.count == 1)
        #expect(server.requests.first?.header("Content-Type") == "application/sdp")
        #expect(server.requests.first?.body.contains("a=sendonly") == true)
        #expect(server.requests.first?.body.contains("a=setup:actpass") == true)
        #expect(server.requests.first?.body.contains("a=rtpmap:97 rtx/90000") == true)
        await server.close()

        let example = try GuideExample.text(inTestFile: #filePath)
        let text = try GuideExample.guide(besideTestFile: #filePath)
        #expect(text.contains(example), "Docs/Guide.md must contain the example of WHIPGuideExampleTests verbatim")
    }
}
