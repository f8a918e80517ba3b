import Testing
import Foundation
import H264
import Video
@testable import Codec

/// Prints the figures behind the frame-skip decision (Docs/Encoder.md). Run with
/// `RTC_H264_MEASURE=1 swift test --filter RateControlMeasurement`.
@Suite struct RateControlMeasurementTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["RTC_H264_MEASURE"] != nil))
    func measureFrameSkip() throws {
        for (w, h, rate) in [(320, 240, 50_000), (640, 360, 100_000), (1280, 720, 300_000), (1280, 720, 1_500_000)] {
            for noise in [false, true] { for skip in [false, true] {
                var c = EncoderConfiguration(width: w, height: h, frameRate: 30, targetBitrate: rate)
                c.frameSkipping = skip
                let outputs = try EncoderTestSupport.run(c, frames: 300, noise: noise)
                let windows = EncoderTestSupport.windows(outputs, fps: 30, from: 60)
                let ratios = windows.map { Double($0.bits) / Double(rate) }
                let noKey = windows.filter { !$0.hasKeyframe }.map { Double($0.bits) / Double(rate) }
                let skipped = outputs.filter { if case .skipped = $0.result { return true } else { return false } }.count
                let total = outputs.reduce(0) { $0 + ($1.frame?.bytes.count ?? 0) } * 8
                let qps = outputs.compactMap { $0.result.statistics?.averageQP }
                print(String(format: "MEASURE %dx%d %7d skip=%d avg=%.3f min=%.3f max=%.3f noKeyMax=%.3f skipped=%d qp=%d..%d",
                             w, h, rate, skip ? 1 : 0, Double(total) / 10 / Double(rate), ratios.min() ?? 0,
                             ratios.max() ?? 0, noKey.max() ?? 0, skipped, qps.min() ?? -1, qps.max() ?? -1))
                let maxFrame = outputs.compactMap { $0.frame?.bytes.count }.max() ?? 0
                print("  noise=\(noise) maxFrameBits=\(maxFrame * 8) perFrameTarget=\(rate / 30)")
                print("  windows:", ratios.map { String(format: "%.2f", $0) }.joined(separator: " "))
            } }
        }
    }
}
