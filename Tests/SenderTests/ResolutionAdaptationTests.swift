import Codec
import Control
import NIOConcurrencyHelpers
import Receiver
import RTP
import Testing
import TestSupport
import Video
@testable import Sender

/// Issue 13 end to end: a live bitrate step down and back up through the control endpoint; the sender steps the
/// resolution down at once and back up after its hold, every frame crossing the switches is decoded by our receiver
/// at the announced size, RTP timestamps and sequence numbers stay continuous.
@Suite(.serialized) struct ResolutionAdaptationTests {
    @Test func aBitrateStepDownAndUpSwitchesTheResolutionAndEveryFrameDecodes() async throws {
        let outcome = try await AdaptationLoopback.run(token: nil) { loop in
            let (sender, changes) = (loop.sender, loop.changes)
            try await Task.sleep(for: .seconds(1))
            #expect(try await ControlClient.send(.setBitrate(120_000), host: "127.0.0.1", port: loop.control.localPort).status == 200)
            // Liveness only (the 2 s / 15 s are the quality benchmark's figures, not a timed test).
            try await waitUntil(sender, seconds: 5) { $0.frameWidth < 640 }
            // The event reaches the stream's consumer task a moment after the statistics change.
            #expect(try await Self.eventually { changes.withLockedValue { $0.count } >= 1 }, "no resolution-changed event")
            #expect(try await ControlClient.send(.setBitrate(1_000_000), host: "127.0.0.1", port: loop.control.localPort).status == 200)
            try await waitUntil(sender, seconds: 30) { $0.frameWidth == 640 }
            #expect(try await Self.eventually { changes.withLockedValue { $0.last?.size } == "640x360" }, "no event back to 640x360")
            let up = try #require(changes.withLockedValue { $0.last })
            #expect(up.size == "640x360")
            try await Task.sleep(for: .milliseconds(500))
        }
        let (sent, stats) = (outcome.sent, outcome.received)
        #expect(stats.framesDecoded == sent.framesSent, "decoded \(stats.framesDecoded) of \(sent.framesSent)")
        #expect(stats.packetsLost == 0)
        #expect(sent.resolutionChanges >= 2)
        let seen = outcome.sizes
        #expect(seen.first == "640x360" && seen.last == "640x360" && seen.count >= 3, "\(seen)")
        // The receiver counts every change of the decoded size (issue 20, item 9).
        #expect(stats.resolutionChanges == seen.count - 1, "\(stats.resolutionChanges) changes counted, sizes \(seen)")
    }

    /// Polls `condition` every 10 ms for up to 5 s.
    static func eventually(_ condition: @escaping @Sendable () -> Bool) async throws -> Bool {
        await Poll.until(seconds: 5) { condition() }
    }
}
