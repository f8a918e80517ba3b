import Codec
import MediaTime
import NIOCore
import NIOPosix
import RTP
import Sender
import Synchronization
import Testing
import Transport
import Video
@testable import WHEP

/// A shared encoder that fails for good (issue 15: a WHEP stream's viewers must not hang on a frozen picture): the
/// owner is told once, frames are refused with the error, and no viewer can attach any more.
@Suite struct FanOutFailureTests {
    @Test func aFailedStreamTellsItsOwnerOnceAndRefusesFramesAndViewers() async throws {
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: 9,
            encoder: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 300_000))
        configuration.maximumConsecutiveFrameFailures = 3
        configuration.keyframeThrottle = .zero
        let origin = ContinuousClock.now
        let fanOut = try await FanOutEncoder(
            configuration: configuration, origin: origin,
            makeEncoder: { FailingFromFrame(2, encoder: try H264Encoder(configuration: $0)) })
        let told = Mutex<[SenderError]>([])
        fanOut.onFatal { error in told.withLock { $0.append(error) } }

        var refused: (any Error)?
        for index in 0..<40 {
            await fanOut.waitForEncoder()
            do {
                try fanOut.send(captureTime: origin + .milliseconds(33 * index)) { $0 = I420Frame(width: 320, height: 240) }
            } catch {
                refused = error
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        let expected = SenderError.tooManyFrameFailures(count: 3, lastError: "scripted failure of frame 4")
        #expect(told.withLock { $0 } == [expected])
        #expect(fanOut.failure == expected)
        #expect(refused as? SenderError == expected, "frames after the failure must be refused with it")

        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let transport = try await UDPTransport.bind(
            configuration: TransportConfiguration(localHost: "127.0.0.1", localPort: 0, peer: nil, rtcpMux: true, security: nil),
            eventLoop: loop)
        let (events, eventsContinuation) = AsyncStream.makeStream(of: SenderEvent.self)
        let (reports, reportsContinuation) = AsyncStream.makeStream(of: SenderStats.self)
        _ = (events, reports)
        try await loop.submit {
            #expect(throws: expected) {
                _ = try fanOut.attach(
                    transport: transport.value, payloadType: PayloadType(96), rtxPayloadType: nil, ssrc: SSRC(1),
                    rtxSSRC: nil, events: eventsContinuation, reports: reportsContinuation)
            }
            transport.value.close()
        }.get()
        await fanOut.finish()
    }
}

/// The real encoder until a given frame, then a failure for every frame.
private final class FailingFromFrame: FrameEncoder {
    private let encoder: H264Encoder
    private let firstFailure: Int
    private var index = 0

    init(_ firstFailure: Int, encoder: H264Encoder) {
        self.encoder = encoder
        self.firstFailure = firstFailure
    }

    var configuration: EncoderConfiguration { encoder.configuration }

    func encode(_ view: I420FrameView, timestamp: Int64, now: MonotonicTime, forceKeyframe: Bool,
                allowResolutionChange: Bool) throws -> AdaptiveEncodeResult {
        defer { index += 1 }
        if index >= firstFailure { throw ScriptedFailure(index: index) }
        return try encoder.encode(view, timestamp: timestamp, now: now, forceKeyframe: forceKeyframe,
                                  allowResolutionChange: allowResolutionChange)
    }

    func setBitrate(target: Int, maxBitrate: Int?) throws { try encoder.setBitrate(target: target, maxBitrate: maxBitrate) }

    func setFrameRate(_ frameRate: Double) throws { try encoder.setFrameRate(frameRate) }
}

/// A scripted frame failure, named by its frame's index.
private struct ScriptedFailure: Error, CustomStringConvertible {
    var index: Int
    var description: String { "scripted failure of frame \(index)" }
}
