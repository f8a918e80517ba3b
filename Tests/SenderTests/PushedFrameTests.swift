import Codec
import NIOConcurrencyHelpers
import Receiver
import SRTP
import Testing
import Video
@testable import Sender

/// A camera or render loop pushing its own buffers (padded rows, another size than the encoder's) with capture times.
@Suite(.serialized) struct PushedFrameTests {
    @Test(arguments: [(320, 240), (640, 480)])
    func paddedCameraBuffersAreSentAndDecoded(sourceWidth: Int, sourceHeight: Int) async throws {
        let suite = SRTPSuite.aesCM128HMACSHA1_80
        let key = SRTPMasterKey.random(for: suite)
        let pattern = try TestPattern(width: 320, height: 240)
        let psnr = NIOLockedValueBox<[Double]>([])
        let sizes = NIOLockedValueBox<Set<String>>([])
        let first = NIOLockedValueBox<UInt32?>(nil)
        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiverConfiguration.security = .init(suite: suite, remoteKey: key)
        receiverConfiguration.onFrameDecoded = { picture, received in
            sizes.withLockedValue { _ = $0.insert("\(picture.width)x\(picture.height)") }
            guard sourceWidth == 320, let base = first.withLockedValue({ $0 }) else { return }
            let index = Int((received.rtpTimestamp.rawValue &- base) / 3_000)
            if let value = try? PSNR(reference: pattern.frame(index), distorted: picture) {
                psnr.withLockedValue { $0.append(value.y) }
            }
        }
        let receiver = try await H264Receiver(configuration: receiverConfiguration)
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: receiver.localPort,
            encoder: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 500_000))
        configuration.localHost = "127.0.0.1"
        configuration.security = .init(suite: suite, key: key)
        configuration.frameObserver = { _, timestamp in first.withLockedValue { $0 = $0 ?? timestamp.rawValue } }
        let sender = try await H264Sender(configuration: configuration)
        async let received = receiver.run()

        // The camera's ring of padded buffers, each lent to `send` and reused.
        let sourcePattern = try TestPattern(width: sourceWidth, height: sourceHeight)
        var ring = (0..<3).map { _ in
            I420Frame(width: sourceWidth, height: sourceHeight, strideY: sourceWidth + 32, strideUV: (sourceWidth + 32) / 2)
        }
        var converter = try FrameConverter(width: sourceWidth, height: sourceHeight)
        let start = ContinuousClock.now
        for index in 0..<30 {
            let slot = index % ring.count
            try converter.convert(.i420(sourcePattern.frame(index)), into: &ring[slot])
            await sender.waitForEncoder()
            try ring[slot].withView { try sender.send($0, captureTime: start + .seconds(index) / 30) }
        }
        let sent = try await sender.finish()
        let stats = try await received
        #expect(sent.framesEncoded + sent.framesSkipped == 30)
        #expect(sent.framesDropped == 0)
        #expect(stats.framesDecoded == sent.framesSent)
        #expect(sizes.withLockedValue { $0 } == ["320x240"])
        if sourceWidth == 320 {
            let values = psnr.withLockedValue { $0 }
            #expect(values.count == sent.framesSent)
            #expect((values.min() ?? 0) > 30, "min PSNR \(values.min() ?? 0)")
        }
    }
}
