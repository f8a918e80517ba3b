import H264
import Video
@testable import Codec

/// Helpers shared by the Codec tests: run the test pattern through an encoder and collect what comes out.
enum EncoderTestSupport {
    /// 90 kHz ticks per frame at `fps`.
    static func ticks(frame: Int, fps: Double) -> Int64 { Int64((Double(frame) * 90_000 / fps).rounded()) }

    /// One encoded or skipped input frame.
    struct Output {
        var index: Int
        var timestamp: Int64
        var result: EncodeResult
        var frame: EncodedFrame? { result.encodedFrame }
    }

    /// Encodes `count` pattern frames.
    static func run(_ configuration: EncoderConfiguration, frames count: Int, forceAt: Set<Int> = [],
                    timestamps: ((Int) -> Int64)? = nil,
                    beforeFrame: ((Int, H264Encoder) throws -> Void)? = nil) throws -> [Output] {
        let encoder = try H264Encoder(configuration: configuration)
        let pattern = try TestPattern(width: configuration.width, height: configuration.height)
        var picture = I420Frame(width: configuration.width, height: configuration.height)
        var outputs: [Output] = []
        for index in 0..<count {
            try beforeFrame?(index, encoder)
            pattern.render(frameIndex: index, into: &picture)
            let ts = timestamps?(index) ?? ticks(frame: index, fps: configuration.frameRate)
            let result = try encoder.encode(.i420(picture), timestamp: ts, forceKeyframe: forceAt.contains(index))
            outputs.append(Output(index: index, timestamp: ts, result: result))
        }
        return outputs
    }

    /// Bits per one-second window `[start, start + 1 s)` of input frames, and whether the window holds an IDR.
    static func windows(_ outputs: [Output], fps: Double, from startFrame: Int, to endFrame: Int? = nil)
        -> [(bits: Int, hasKeyframe: Bool, firstFrame: Int)] {
        let perWindow = Int(fps.rounded())
        var result: [(Int, Bool, Int)] = []
        var start = startFrame
        let end = endFrame ?? outputs.count
        while start + perWindow <= end {
            let slice = outputs[start..<(start + perWindow)]
            let bits = slice.reduce(0) { $0 + 8 * ($1.frame?.bytes.count ?? 0) }
            let key = slice.contains { $0.frame?.isKeyframe == true }
            result.append((bits, key, start))
            start += perWindow
        }
        return result
    }
}
