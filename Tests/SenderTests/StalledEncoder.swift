import Codec
import MediaTime
import RTP
import Video
@testable import Sender

/// A real encoder (OpenH264, plain or adaptive) on a manual clock: each encode moves the clock on by a scripted duration, as a frame's
/// encode takes time on a real machine and now and then the encoder's thread is not scheduled for a while. It also
/// records which frames the stage forced to an IDR.
final class StalledEncoder: FrameEncoder {
    private let encoder: any FrameEncoder
    private let clock: ManualClock
    private let duration: (_ index: Int, _ isKeyframe: Bool) -> Duration
    private var index = 0
    /// The indices of the frames the stage asked to be IDRs.
    private(set) var forcedFrames: [Int] = []

    /// Wraps an encoder.
    /// - Parameters:
    ///   - encoder: the real encoder (`H264Encoder` or `AdaptiveH264Encoder`).
    ///   - clock: the clock each encode moves on.
    ///   - duration: how long the encode of frame `index` takes.
    init(_ encoder: any FrameEncoder, clock: ManualClock, duration: @escaping (_ index: Int, _ isKeyframe: Bool) -> Duration) {
        self.encoder = encoder
        self.clock = clock
        self.duration = duration
    }

    var configuration: EncoderConfiguration { encoder.configuration }

    func encode(_ view: I420FrameView, timestamp: Int64, now: MonotonicTime, forceKeyframe: Bool,
                allowResolutionChange: Bool) throws -> AdaptiveEncodeResult {
        defer { index += 1 }
        if forceKeyframe { forcedFrames.append(index) }
        let result = try encoder.encode(view, timestamp: timestamp, now: now, forceKeyframe: forceKeyframe,
                                  allowResolutionChange: allowResolutionChange)
        var isKeyframe = false
        if case .frame(let frame, _) = result.output { isKeyframe = frame.isKeyframe }
        clock.advance(by: duration(index, isKeyframe))
        return result
    }

    func setBitrate(target: Int, maxBitrate: Int?) throws { try encoder.setBitrate(target: target, maxBitrate: maxBitrate) }
    func setFrameRate(_ frameRate: Double) throws { try encoder.setFrameRate(frameRate) }
}
