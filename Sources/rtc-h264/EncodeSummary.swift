import Codec
import Foundation
import H264
import MediaTime

/// Counts what `encode` produced and formats the closing summary.
struct EncodeSummary {
    var frameRate: Double
    var inputFrames = 0
    var encodedFrames = 0
    var keyframes = 0
    var skipped: [FrameSkipReason: Int] = [:]
    var bytes = 0
    var largestNALUnit = 0
    var encodeTime = Duration.zero
    var wallTime = Duration.zero
    /// The sizes encoded, with the frame each started at and why (the first is the initial choice).
    var resolutionChanges: [(frame: Int, change: ResolutionChange)] = []

    mutating func addResolutionChange(_ change: ResolutionChange, frame: Int) {
        resolutionChanges.append((frame, change))
    }

    mutating func add(_ frame: EncodedFrame, _ statistics: EncodeStatistics) {
        inputFrames += 1
        encodedFrames += 1
        if frame.isKeyframe { keyframes += 1 }
        bytes += frame.bytes.count
        largestNALUnit = max(largestNALUnit, frame.nalUnits.map(\.length).max() ?? 0)
        encodeTime += statistics.encodeDuration
    }

    mutating func addSkip(_ reason: FrameSkipReason) {
        inputFrames += 1
        skipped[reason, default: 0] += 1
    }

    func report(configuration: EncoderConfiguration) -> String {
        let mediaSeconds = Double(inputFrames) / frameRate
        let achieved = mediaSeconds > 0 ? Double(bytes * 8) / mediaSeconds : 0
        let encodeSeconds = encodeTime.inSeconds
        let skippedCount = skipped.values.reduce(0, +)
        let reasons = skipped.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let sizes = resolutionChanges.map { "\($0.change.to) from frame \($0.frame) (\($0.change.reason))" }
            .joined(separator: ", ")
        return """
            encoded \(inputFrames) frames \(configuration.width)x\(configuration.height) @ \(frameRate) fps, \
            \(configuration.profile) level \(configuration.level)
              resolution: \(sizes.isEmpty ? "\(configuration.width)x\(configuration.height)" : sizes)
              keyframes: \(keyframes)   skipped: \(skippedCount)\(reasons.isEmpty ? "" : " (\(reasons))")
              bytes: \(bytes)   achieved bitrate: \(String(format: "%.0f", achieved)) bit/s \
            (target \(configuration.targetBitrate), ceiling \(configuration.effectiveMaxBitrate))
              largest NAL unit: \(largestNALUnit) bytes
              encode speed: \(String(format: "%.1f", encodeSeconds > 0 ? Double(encodedFrames) / encodeSeconds : 0)) fps \
            (encoder only), \(String(format: "%.1f", Double(inputFrames) / max(wallTime.inSeconds, 1e-9))) fps overall
            """
    }
}

