import Codec
import Control
import NIOConcurrencyHelpers
import Receiver
import RTP
import Testing
import Video
@testable import Sender

/// Issue 13 end to end: a live bitrate step down and back up through the control endpoint; the sender steps the
/// resolution down at once and back up after its hold, every frame crossing the switches is decoded by our receiver
/// at the announced size, RTP timestamps and sequence numbers stay continuous.
@Suite(.serialized) struct ResolutionAdaptationTests {
    @Test func aBitrateStepDownAndUpSwitchesTheResolutionAndEveryFrameDecodes() async throws {
        let sizes = NIOLockedValueBox<[String]>([])
        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiverConfiguration.onFrameDecoded = { picture, _ in
            let size = "\(picture.width)x\(picture.height)"
            sizes.withLockedValue { if $0.last != size { $0.append(size) } }
        }
        let receiver = try await H264Receiver(configuration: receiverConfiguration)
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: receiver.localPort,
            encoder: EncoderConfiguration(width: 640, height: 360, frameRate: 30, targetBitrate: 1_000_000))
        configuration.localHost = "127.0.0.1"
        configuration.minimumBitrate = 50_000
        let sender = try await H264Sender(configuration: configuration)
        let changes = NIOLockedValueBox<[(String, ContinuousClock.Instant)]>([])
        let events = Task {
            for await event in sender.events {
                if case .resolutionChanged(let width, let height, let reason) = event, reason != "initial" {
                    changes.withLockedValue { $0.append(("\(width)x\(height)", .now)) }
                }
            }
        }
        let control = try await ControlServer(host: "127.0.0.1", port: 0, token: nil, sender: sender)
        async let received = receiver.run()
        let pump = FramePump(source: try PatternSource(width: 640, height: 360), sender: sender, pacing: .realTime)
        async let pumped = pump.run()

        try await Task.sleep(for: .seconds(1))
        #expect(try await ControlClient.send(.setBitrate(120_000), host: "127.0.0.1", port: control.localPort).status == 200)
        // Liveness only (the 2 s / 15 s are the quality benchmark's figures, not a timed test).
        try await waitUntil(sender, seconds: 5) { $0.frameWidth < 640 }
        // The event reaches the stream's consumer task a moment after the statistics change.
        #expect(try await Self.eventually { changes.withLockedValue { $0.count } >= 1 }, "no resolution-changed event")
        #expect(try await ControlClient.send(.setBitrate(1_000_000), host: "127.0.0.1", port: control.localPort).status == 200)
        try await waitUntil(sender, seconds: 30) { $0.frameWidth == 640 }
        #expect(try await Self.eventually { changes.withLockedValue { $0.last?.0 } == "640x360" }, "no event back to 640x360")
        let up = try #require(changes.withLockedValue { $0.last })
        #expect(up.0 == "640x360")
        try await Task.sleep(for: .milliseconds(500))
        pump.stop()
        _ = try await pumped
        let sent = try await sender.finish()
        let stats = try await received
        await control.close()
        await events.value
        #expect(stats.framesDecoded == sent.framesSent, "decoded \(stats.framesDecoded) of \(sent.framesSent)")
        #expect(stats.packetsLost == 0)
        #expect(sent.resolutionChanges >= 2)
        let seen = sizes.withLockedValue { $0 }
        #expect(seen.first == "640x360" && seen.last == "640x360" && seen.count >= 3, "\(seen)")
    }

    /// Polls `condition` every 10 ms for up to 5 s.
    static func eventually(_ condition: @escaping @Sendable () -> Bool) async throws -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
