import Codec
import Control
import NIOConcurrencyHelpers
import Receiver
import RTP
import Testing
import Video
@testable import Sender

/// Issue 13: the degradation preference changed at run time through the real control endpoint (with its token): a
/// change that keeps the size adds no IDR; `maintain-resolution` brings a stepped-down stream back to the input size
/// and `maintain-framerate` takes it down again, each switch an IDR our receiver decodes; a request without the
/// token changes nothing.
@Suite(.serialized) struct DegradationPreferenceControlTests {
    static let token = "test-token-for-the-preference"

    @Test func thePreferenceChangesThroughTheControlEndpointAndEveryFrameDecodes() async throws {
        let outcome = try await AdaptationLoopback.run(token: Self.token) { loop in
            let sender = loop.sender
            let port = loop.control.localPort
            func send(_ command: ControlCommand, token: String? = Self.token) async throws -> ControlReply {
                try await ControlClient.send(command, host: "127.0.0.1", port: port, token: token)
            }

            try await waitUntil(sender, seconds: 5, "frames flowing") { $0.framesSent >= 15 }
            // 1. Balanced at 1 Mbit/s allows 640x360 too: the stream goes on, no IDR is added.
            let keyframesBefore = await sender.statistics().keyFramesEncoded
            let balanced = try await send(.setDegradationPreference(.balanced))
            #expect(balanced == .ok(["\"degradationPreference\":\"balanced\""]))
            let framesBefore = await sender.statistics().framesEncoded
            try await waitUntil(sender, seconds: 5, "15 more frames") { $0.framesEncoded >= framesBefore + 15 }
            let afterBalanced = await sender.statistics()
            #expect(afterBalanced.keyFramesEncoded == keyframesBefore, "a preference change that keeps the size adds no IDR")
            #expect(afterBalanced.frameWidth == 640)

            // 2. Back to maintain-framerate, then a low target: the size steps down.
            #expect(try await send(.setDegradationPreference(.maintainFramerate)).status == 200)
            // A frame or two first, so that the step down below is the bitrate's, not the preference change's.
            let framesAtChange = await sender.statistics().framesEncoded
            try await waitUntil(sender, seconds: 5, "3 more frames") { $0.framesEncoded >= framesAtChange + 3 }
            #expect(try await send(.setBitrate(120_000)).status == 200)
            try await waitUntil(sender, seconds: 5, "the size stepped down") { $0.frameWidth < 640 }

            // 3. Without the token: refused, nothing changes.
            let refused = try await send(.setDegradationPreference(.maintainResolution), token: nil)
            #expect(refused.status == 401)
            try await Task.sleep(for: .milliseconds(300))
            #expect(await sender.statistics().frameWidth < 640, "a refused request changed the preference")

            // 4. maintain-resolution: back to the input size at the same low target, with an IDR.
            let keyframesSmall = await sender.statistics().keyFramesEncoded
            #expect(try await send(.setDegradationPreference(.maintainResolution)).status == 200)
            try await waitUntil(sender, seconds: 5, "back to 640x360") { $0.frameWidth == 640 }
            // The size is reported as the encoder switches, just before the IDR itself arrives.
            try await waitUntil(sender, seconds: 5, "the IDR of the switch") { $0.keyFramesEncoded > keyframesSmall }

            // 5. maintain-framerate again: down again at once.
            #expect(try await send(.setDegradationPreference(.maintainFramerate)).status == 200)
            try await waitUntil(sender, seconds: 5, "down again") { $0.frameWidth < 640 }
            try await Task.sleep(for: .milliseconds(300))
        }
        let (sent, stats, sender) = (outcome.sent, outcome.received, outcome.sender)
        #expect(stats.framesDecoded == sent.framesSent, "decoded \(stats.framesDecoded) of \(sent.framesSent)")
        #expect(stats.packetsLost == 0)
        let switches = outcome.changes.map { "\($0.size) \($0.reason)" }
        #expect(switches.count == 3, "\(switches)")
        #expect(switches.first?.hasSuffix("bitrate-below-floor") == true, "\(switches)")
        #expect(switches.dropFirst().first == "640x360 preference-changed", "\(switches)")
        #expect(switches.last?.hasSuffix("preference-changed") == true && switches.last?.hasPrefix("640") == false,
                "\(switches)")
        let seen = outcome.sizes
        #expect(seen.count == 4 && seen.first == "640x360" && seen[2] == "640x360", "\(seen)")
        // After the sender finished, a change is refused with 409 by the endpoint's rules.
        #expect(await ControlServer.apply(.setDegradationPreference(.balanced), to: sender).status == 409)
    }
}
