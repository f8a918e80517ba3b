import Codec
import NIOConcurrencyHelpers
import NIOPosix
import SRTP
import Testing
import Video
@testable import Sender

/// A source that lends its own buffers (as a camera or render loop would) reaches the wire without the sender asking
/// it to copy: `nextFrame(into:)` is never called, padded rows are honoured, and a source of another size is scaled
/// by the encoder.
@Suite(.serialized) struct LendingSourceTests {
    /// Renders the pattern into a ring of three padded buffers it owns and lends them in turn.
    final class CaptureRing: FrameSource {
        let width: Int
        let height: Int
        var nativeFrameRate: Double? { 30 }
        private let pattern: TestPattern
        private var buffers: [I420Frame]
        private var index = 0
        private(set) var lends = 0
        private(set) var copies = 0

        init(width: Int, height: Int, padding: Int) throws {
            self.width = width
            self.height = height
            pattern = try TestPattern(width: width, height: height)
            buffers = (0..<3).map { _ in
                I420Frame(width: width, height: height, strideY: width + padding, strideUV: (width + padding) / 2)
            }
        }

        func nextFrame(into frame: inout I420Frame) throws -> Bool {
            copies += 1
            pattern.render(frameIndex: index, into: &frame)
            index += 1
            return true
        }

        func withNextFrame<R>(buffer: inout I420Frame, _ body: (I420FrameView) throws -> R) throws -> R? {
            lends += 1
            let slot = index % buffers.count
            var converter = try FrameConverter(width: width, height: height)
            try converter.convert(.i420(pattern.frame(index)), into: &buffers[slot])
            index += 1
            return try buffers[slot].withView(body)
        }
    }

    @Test(arguments: [(320, 240), (640, 480)])
    func lentFramesAreSentAndDecoded(sourceWidth: Int, sourceHeight: Int) async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let suite = SRTPSuite.aesCM128HMACSHA1_80
        let key = SRTPMasterKey.random(for: suite)
        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiverConfiguration.security = .init(suite: suite, key: key)
        let receiver = try await H264Receiver(configuration: receiverConfiguration, eventLoop: loop)
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: receiver.localAddress!.port!,
            encoder: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 500_000))
        configuration.localHost = "127.0.0.1"
        configuration.security = .init(suite: suite, key: key)
        configuration.frameLimit = 30
        configuration.pacing = .asFastAsPossible
        let source = try CaptureRing(width: sourceWidth, height: sourceHeight, padding: 32)
        let sender = try await H264Sender(configuration: configuration, source: source, eventLoop: loop)
        let pattern = try TestPattern(width: 320, height: 240)
        let indexByTimestamp = NIOLockedValueBox<[UInt32: Int]>([:])
        let psnr = NIOLockedValueBox<[Double]>([])
        let sizes = NIOLockedValueBox<Set<String>>([])
        sender.onFrameSent = { frame, index in indexByTimestamp.withLockedValue { $0[sender.rtpTimestamp(of: frame)] = index } }
        receiver.onFrameDecoded = { picture, received in
            sizes.withLockedValue { _ = $0.insert("\(picture.width)x\(picture.height)") }
            guard sourceWidth == 320, let index = indexByTimestamp.withLockedValue({ $0[received.rtpTimestamp.rawValue] }),
                  let value = try? PSNR(reference: pattern.frame(index), distorted: picture) else { return }
            psnr.withLockedValue { $0.append(value.y) }
        }
        async let received = receiver.run()
        let sent = try await sender.run()
        let stats = try await received
        #expect(source.lends == 30)
        #expect(source.copies == 0, "the sender must not ask a lending source to copy")
        #expect(sent.framesEncoded + sent.framesSkipped == 30)
        #expect(stats.framesDecoded == sent.framesSent)
        #expect(sizes.withLockedValue { $0 } == ["320x240"])
        if sourceWidth == 320 {
            let values = psnr.withLockedValue { $0 }
            #expect(values.count == sent.framesSent)
            #expect((values.min() ?? 0) > 30, "\(values)")
        }
    }
}
