import Foundation
import RTCH264
import Testing
import TestSupport

/// The DocC catalog's "Getting started" example (Sources/RTCH264/RTCH264.docc/GettingStarted.md), compiled and run by
/// `theGettingStartedExampleRunsAndItsTextIsInTheArticle`: the text between the markers stands in the article.
func gettingStarted() async throws -> (sent: SenderStats, decoded: ReceiverStats) {
    // guide:begin
    let key = SRTPMasterKey.random(for: .default)
    var receiving = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
    receiving.security = .init(remoteKey: key)
    let receiver = try await H264Receiver(configuration: receiving)
    async let received = receiver.run()

    var sending = SenderConfiguration(
        peerHost: "127.0.0.1", peerPort: receiver.localPort,
        encoder: EncoderConfiguration(width: 640, height: 360, frameRate: 30, targetBitrate: 800_000))
    sending.security = .init(key: key)
    let sender = try await H264Sender(configuration: sending)

    let frame = I420Frame(width: 640, height: 360)
    for _ in 0..<90 {
        try sender.send(.i420(frame), captureTime: .now)
        try await Task.sleep(for: .milliseconds(33))
    }
    let sent = try await sender.finish()       // RTCP BYE, sockets closed
    let decoded = try await received           // ends on the BYE
    print("\(sent.framesSent) frames sent, \(decoded.framesDecoded) decoded")
    // guide:end
    return (sent, decoded)
}

/// `import RTCH264` alone is enough to embed every part: no other module of the package is imported here.
@Suite struct UmbrellaImportTests {
    @Test func aSenderStreamsToAReceiverAndTheControlEndpointAnswersThroughOneImport() async throws {
        let stream = try await LoopbackStream.start()
        let control = try await ControlServer(host: "127.0.0.1", port: 0, token: nil, sender: stream.sender)
        try await stream.push(20) { index in
            if index == 10 {
                let reply = try await ControlClient.send(.setBitrate(150_000), host: "127.0.0.1", port: control.localPort)
                #expect(reply.status == 200)
            }
        }
        await control.close()
        let sent = try await stream.sender.finish()
        let decoded = try await stream.received.value
        #expect(sent.framesSent >= 1)
        #expect(sent.targetBitrate == 150_000)
        #expect(decoded.framesDecoded == sent.framesSent)
    }

    @Test func theGettingStartedExampleRunsAndItsTextIsInTheArticle() async throws {
        let (sent, decoded) = try await gettingStarted()
        #expect(sent.framesSent >= 30)
        #expect(decoded.framesDecoded == sent.framesSent)
        let example = try GuideExample.text(inTestFile: #filePath)
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/RTCH264/RTCH264.docc/GettingStarted.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        #expect(text.contains(example), "GettingStarted.md must contain the example of UmbrellaImportTests verbatim")
    }

    @Test func theWebRTCFrontEndsAreReachableThroughOneImport() async throws {
        let server = try await WHEPServer(
            configuration: SenderConfiguration(
                peerHost: "127.0.0.1", peerPort: 9,
                encoder: EncoderConfiguration(width: 160, height: 96, frameRate: 30, targetBitrate: 200_000)),
            options: WHEPServer.Options(host: "127.0.0.1", port: 0))
        #expect(server.localPort > 0)
        #expect(server.viewerCount == 0)
        await server.finish()
        // The ICE servers a WHIP endpoint hands out, and the TURN client's credential, from the same import.
        let stun = try ICEServer(uri: "stun:stun.example.org:3478")
        #expect(stun.port == 3478)
        let credential = LongTermCredential(username: "user", password: "secret")
        #expect(!String(describing: credential).contains("secret"))
    }
}
