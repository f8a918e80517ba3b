import Codec
import Foundation
import H264
import Video

/// The measurements behind `EncoderConfiguration.defaultFrameSkipping` (Docs/Encoder.md): CBR with frame skipping
/// off and on, on the test pattern and on full-frame noise, printing 1 s windows as multiples of the target.
enum RateControlMeasurement {
    static let fps = 30.0
    static let frames = 300

    /// Replaces luma with full-frame random noise: content no encoder can predict.
    static func addNoise(_ picture: inout I420Frame, seed: Int) {
        var state = UInt32(truncatingIfNeeded: seed &* 747_796_405) | 1
        let count = picture.strideY * picture.height
        picture.withUnsafeMutablePlanes { y, _, _ in
            for i in 0..<count {
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                y[i] = UInt8(truncatingIfNeeded: state)
            }
        }
    }

    static func run() throws {
        print("size      target   content skip  avg    window min/max (after 2 s)  skipped  largest frame")
        for (width, height, target) in [(320, 240, 50_000), (320, 240, 300_000), (640, 360, 100_000),
                                        (640, 360, 600_000), (1280, 720, 300_000), (1280, 720, 1_500_000)] {
            for noise in [false, true] {
                for skip in [false, true] {
                    var c = EncoderConfiguration(width: width, height: height, frameRate: fps, targetBitrate: target)
                    c.frameSkipping = skip
                    let encoder = try H264Encoder(configuration: c)
                    let pattern = try TestPattern(width: width, height: height)
                    var picture = I420Frame(width: width, height: height)
                    var sizes: [Int] = []
                    var skipped = 0
                    for index in 0..<frames {
                        pattern.render(frameIndex: index, into: &picture)
                        if noise { addNoise(&picture, seed: index) }
                        let result = try encoder.encode(.i420(picture), timestamp: Int64(index) * 3000)
                        if let frame = result.encodedFrame { sizes.append(frame.bytes.count) } else {
                            sizes.append(0)
                            skipped += 1
                        }
                    }
                    let perWindow = Int(fps)
                    let windows = stride(from: 60, to: frames - perWindow + 1, by: perWindow).map { start in
                        Double(sizes[start..<(start + perWindow)].reduce(0, +) * 8) / Double(target)
                    }
                    let average = Double(sizes.reduce(0, +) * 8) / (Double(frames) / fps) / Double(target)
                    print(String(format: "%4dx%-4d %8d %-7@ %-4@ %5.2fx  %5.2fx / %5.2fx             %4d   %7d B",
                                 width, height, target, noise ? "noise" : "pattern", skip ? "on" : "off", average,
                                 windows.min() ?? 0, windows.max() ?? 0, skipped, sizes.max() ?? 0))
                }
            }
        }
    }
}
