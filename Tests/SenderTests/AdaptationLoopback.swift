import Codec
import Control
import NIOConcurrencyHelpers
import Receiver
import Testing
import Video
@testable import Sender

/// What the resolution-adaptation tests share: a 640x360 30 fps test pattern sent in real time at 1 Mbit/s (floor
/// 50 kbit/s) by an `H264Sender` to our `H264Receiver` over loopback, the sender's control endpoint beside it, and
/// records of the sizes the receiver decoded and of the sender's resolution changes.
struct AdaptationLoopback {
    /// A `resolutionChanged` event other than the initial one, as the events consumer saw it.
    struct Change: Sendable {
        let size: String
        let reason: String
        let at: ContinuousClock.Instant
    }

    /// How the run ended: the sender's and the receiver's final statistics, and the records once both stopped.
    struct Outcome {
        let sent: SenderStats
        let received: ReceiverStats
        let sender: H264Sender
        let sizes: [String]
        let changes: [Change]
    }

    let sender: H264Sender
    let control: ControlServer
    /// The decoded sizes ("WxH") in the order they first appeared, repeats folded.
    let sizes: NIOLockedValueBox<[String]>
    /// The sender's resolution changes after the initial one.
    let changes: NIOLockedValueBox<[Change]>

    /// Sets the loop up (the control endpoint with `token`), runs `body` while frames flow, then stops the source,
    /// finishes the sender, and waits for the receiver, the control endpoint and the events consumer to end.
    static func run(token: String?, _ body: (AdaptationLoopback) async throws -> Void) async throws -> Outcome {
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
        let changes = NIOLockedValueBox<[Change]>([])
        let events = Task {
            for await event in sender.events {
                if case .resolutionChanged(let width, let height, let reason) = event, reason != "initial" {
                    changes.withLockedValue { $0.append(Change(size: "\(width)x\(height)", reason: reason, at: .now)) }
                }
            }
        }
        let control = try await ControlServer(host: "127.0.0.1", port: 0, token: token, sender: sender)
        async let received = receiver.run()
        let pump = FramePump(source: try PatternSource(width: 640, height: 360), sender: sender, pacing: .realTime)
        async let pumped = pump.run()

        try await body(AdaptationLoopback(sender: sender, control: control, sizes: sizes, changes: changes))

        pump.stop()
        _ = try await pumped
        let sent = try await sender.finish()
        let stats = try await received
        await control.close()
        await events.value
        return Outcome(sent: sent, received: stats, sender: sender, sizes: sizes.withLockedValue { $0 },
                       changes: changes.withLockedValue { $0 })
    }
}
