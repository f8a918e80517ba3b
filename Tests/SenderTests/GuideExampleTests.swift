import Codec
import Foundation
import Receiver
import RTP
import SRTP
import Synchronization
import Testing
import TestSupport
import Video
@testable import Sender

/// The embedding example of Docs/Guide.md, compiled and run here so that it cannot rot. The text between the
/// `guide:begin` and `guide:end` markers must appear verbatim in the Guide.
@Suite(.serialized) struct GuideExampleTests {
    // guide:begin
    /// Streams a camera that calls back with NV12 buffers (V4L2, a GStreamer appsink, a robot's SDK) to a peer.
    func streamCamera(_ camera: Camera, to host: String, port: Int, key: SRTPMasterKey) async throws -> SenderStats {
        var configuration = SenderConfiguration(
            peerHost: host, peerPort: port,
            encoder: EncoderConfiguration(width: 640, height: 360, frameRate: 30, targetBitrate: 800_000))
        configuration.security = .init(key: key)
        let sender = try await H264Sender(configuration: configuration)

        // The camera's thread pushes each buffer with its capture time. `send` converts NV12 to I420 and returns
        // at once: if the encoder is still busy, the newest frame wins and the older one is counted as dropped.
        camera.start { nv12, captureTime in
            try? sender.send(.nv12(nv12), captureTime: captureTime)
        }

        // Statistics once a second (WebRTC outbound-rtp names) and events as they happen.
        let statistics = Task {
            for await stats in sender.reports {
                print("sent \(stats.framesSent) frames at \(stats.actualBitrate) bit/s, RTT \(stats.roundTripTime ?? 0) s")
            }
        }
        let events = Task {
            for await event in sender.events {
                if case .keyframeRequested(let reason) = event { print("keyframe requested: \(reason)") }
            }
        }

        // The application sets the bitrate (the peer's REMB/TMMBR may still cap it) and can ask for a keyframe.
        try await Task.sleep(for: .seconds(1))
        try await sender.setBitrate(500_000)
        sender.requestKeyframe()
        try await Task.sleep(for: .seconds(1))

        camera.stop()
        let final = try await sender.finish()  // RTCP BYE; `reports` and `events` end
        await statistics.value
        await events.value
        return final
    }
    // guide:end

    @Test func theGuidesEmbeddingExampleRunsAndItsTextIsInTheGuide() async throws {
        let key = SRTPMasterKey.random(for: .default)
        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiverConfiguration.security = .init(remoteKey: key)
        let receiver = try await H264Receiver(configuration: receiverConfiguration)
        async let received = receiver.run()
        let stats = try await streamCamera(Camera(), to: "127.0.0.1", port: receiver.localPort, key: key)
        let receivedStats = try await received
        #expect(stats.framesSent >= 40)
        #expect(stats.keyFramesEncoded >= 2)
        #expect(stats.targetBitrate == 500_000)
        #expect(receivedStats.framesDecoded == stats.framesSent)

        let example = try GuideExample.text(inTestFile: #filePath)
        let text = try GuideExample.guide(besideTestFile: #filePath)
        #expect(text.contains(example), "Docs/Guide.md must contain the example of GuideExampleTests verbatim")
    }
}

/// A stand-in camera: a thread calling back with NV12 buffers at 30 fps, stamped on `ContinuousClock`.
final class Camera: Sendable {
    private let running = Atomic<Bool>(false)

    func start(_ onFrame: @escaping @Sendable (NV12Frame, ContinuousClock.Instant) -> Void) {
        running.store(true, ordering: .relaxed)
        let thread = Thread { [self] in
            var luma: UInt8 = 16
            while running.load(ordering: .relaxed) {
                luma &+= 3
                let data = [UInt8](repeating: luma, count: 640 * 360) + [UInt8](repeating: 128, count: 640 * 180)
                if let frame = try? NV12Frame(width: 640, height: 360, strideY: 640, strideUV: 640, data: data) {
                    onFrame(frame, .now)
                }
                Thread.sleep(forTimeInterval: 1.0 / 30)
            }
        }
        thread.start()
    }

    func stop() { running.store(false, ordering: .relaxed) }
}
