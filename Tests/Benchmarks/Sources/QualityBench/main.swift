// Quality benchmark (issue 13 item 5): what a viewer sees at each target bitrate. Each run encodes the frames of a
// 1280x720 Y4M file in real-time order (30 fps timestamps), decodes every access unit with OpenH264, scales each
// decoded picture back to the source size and measures PSNR-Y against the source; a skipped frame counts as a repeat
// of the previous decoded picture, as a viewer sees it.
//
// Usage: QualityBench --y4m FILE [--frames N] --targets 250k,400k,... [--sizes 1280x720,960x540,...]
//                     [--qp MIN-MAX[,MIN-MAX...]] [--no-frame-skip] [--no-denoise] [--light-preprocessing]
//                     [--adaptive PREFERENCE[,...]] [--steps FRAME:RATE,...] [--bits-per-pixel B]
//                     [--detail-kept-psnr DB] [--reference Y4M] [--label NAME]
// (--no-denoise: OpenH264's denoiser off; --light-preprocessing: a lower simulcast layer's preprocessing
// (EncoderConfiguration.lightPreprocessing); --reference: PSNR-Y against this file's frames instead of the input's; --steps: live bitrate changes during adaptive runs, e.g. 150:300k,300:2.5M; --bits-per-pixel: the scaler's
// floor for adaptive runs, default QualityScaler.Settings().minimumBitsPerPixel, to measure other thresholds;
// --detail-kept-psnr: the scaler's detailKeptPSNR, "inf" for the policy without the soft-source floors.)
// Prints one line per run: label, mode, target, frames delivered, longest freeze, achieved bitrate (10 s average),
// busiest 1 s window / target, delivered PSNR-Y, and for adaptive runs the switches and the resampling PSNR-Y of each
// smaller rung last measured (ResamplingLossMeter).
import Codec
import Foundation
import H264
import MediaTime
import RTP
import Video

struct Options {
    var y4m = ""
    var reference = ""
    var frames = 300
    var targets: [Int] = []
    var sizes: [(Int, Int)] = []
    var qpRanges: [ClosedRange<Int>] = [EncoderConfiguration.defaultQPRange]
    var frameSkipping = true
    var denoise = EncoderConfiguration.defaultDenoise
    var lightPreprocessing = false
    var adaptive: [DegradationPreference] = []
    var label = ""
    var steps: [Int: Int] = [:]
    var settings = QualityScaler.Settings()
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("QualityBench: \(message)\n".utf8))
    exit(2)
}

func need<T>(_ value: T?, _ message: @autoclosure () -> String) -> T {
    guard let value else { fail(message()) }
    return value
}

var options = Options()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    let value = { need(arguments.popFirst(), "\(argument) needs a value") }
    switch argument {
    case "--y4m": options.y4m = value()
    case "--reference": options.reference = value()
    case "--frames": options.frames = need(Int(value()), "bad --frames")
    case "--targets": options.targets = try value().split(separator: ",").map { try RateParser.bitrate(String($0)) }
    case "--sizes":
        options.sizes = value().split(separator: ",").map { text in
            let parts = text.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { fail("bad size \(text)") }
            return (parts[0], parts[1])
        }
    case "--qp":
        options.qpRanges = value().split(separator: ",").map { text in
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 2, parts[0] <= parts[1] else { fail("bad QP range \(text)") }
            return parts[0]...parts[1]
        }
    case "--no-frame-skip": options.frameSkipping = false
    case "--no-denoise": options.denoise = false
    case "--light-preprocessing": options.lightPreprocessing = true
    case "--adaptive":
        options.adaptive = value().split(separator: ",").map {
            need(DegradationPreference(rawValue: String($0)), "bad preference \($0)")
        }
    case "--label": options.label = value()
    case "--bits-per-pixel":
        let bits = need(Double(value()), "bad --bits-per-pixel")
        guard bits.isFinite, bits > 0, bits < 10 else { fail("--bits-per-pixel must be in (0, 10)") }
        options.settings.minimumBitsPerPixel = bits
    case "--detail-kept-psnr":
        let decibels = need(Double(value()), "bad --detail-kept-psnr")
        guard !decibels.isNaN, decibels > 0 else { fail("--detail-kept-psnr must be positive (inf: never)") }
        options.settings.detailKeptPSNR = decibels
    case "--steps":
        for step in value().split(separator: ",") {
            let parts = step.split(separator: ":")
            guard parts.count == 2, let frame = Int(parts[0]) else { fail("bad step \(step) (FRAME:RATE)") }
            options.steps[frame] = try RateParser.bitrate(String(parts[1]))
        }
    default: fail("unknown argument \(argument)")
    }
}

// Preload the source frames.
let reader = try Y4MReader(path: options.y4m)
var loaded: [I420Frame] = []
while loaded.count < options.frames, let frame = try reader.readFrame() { loaded.append(frame) }
let source = loaded
/// What PSNR-Y is measured against: the input, or `--reference`'s frames (the same count and size).
let references: [I420Frame]
if options.reference.isEmpty {
    references = source
} else {
    let referenceReader = try Y4MReader(path: options.reference)
    var frames: [I420Frame] = []
    while frames.count < source.count, let frame = try referenceReader.readFrame() { frames.append(frame) }
    guard frames.count == source.count, frames[0].width == source[0].width, frames[0].height == source[0].height else {
        fail("--reference must have at least \(source.count) frames of \(source[0].width)x\(source[0].height)")
    }
    references = frames
}
guard let first = source.first else { fail("no frames in \(options.y4m)") }
let frameRate = 30.0
let label = options.label.isEmpty ? URL(fileURLWithPath: options.y4m).lastPathComponent : options.label

/// What one run produced.
struct Measurement {
    var delivered = 0
    var longestFreezeFrames = 0
    var bits = 0
    var busiestWindowBits = 0
    var psnrSum = 0.0
    var switches: [String] = []
    var skipReasons: [String: Int] = [:]
    var qpSum = 0
    var qpCount = 0
}

/// Runs `encode` (one input frame in, an access unit or nil out) over the source and measures what a viewer sees.
func measure(source: [I420Frame], _ encode: (Int, I420Frame) throws -> EncodeResult) throws -> Measurement {
    var m = Measurement()
    let decoder = try H264Decoder()
    var decoded = I420Frame(width: 16, height: 16)
    var shown = I420Frame(width: source[0].width, height: source[0].height)
    var upscaler = try FrameConverter(width: source[0].width, height: source[0].height)
    var hasPicture = false
    var lastDelivered = -1
    var frameBits: [Int] = []
    for (index, frame) in source.enumerated() {
        var bits = 0
        let result = try encode(index, frame)
        if let qp = result.statistics?.averageQP, index >= 30 {
            m.qpSum += qp
            m.qpCount += 1
        }
        if let encoded = result.encodedFrame {
            bits = encoded.bytes.count * 8
            if try decoder.decode(encoded.bytes, into: &decoded) {
                if decoded.width == shown.width && decoded.height == shown.height {
                    shown = decoded
                } else {
                    try upscaler.convert(.i420(decoded), into: &shown)
                }
                hasPicture = true
                m.delivered += 1
                m.longestFreezeFrames = max(m.longestFreezeFrames, index - lastDelivered)
                lastDelivered = index
            }
        }
        frameBits.append(bits)
        m.bits += bits
        if hasPicture { m.psnrSum += min(try PSNR(reference: references[index], distorted: shown).y, 100) }
    }
    m.longestFreezeFrames = max(m.longestFreezeFrames, source.count - lastDelivered)
    let window = 30
    if frameBits.count >= window {
        var sum = frameBits[0..<window].reduce(0, +)
        m.busiestWindowBits = sum
        for end in window..<frameBits.count {
            sum += frameBits[end] - frameBits[end - window]
            m.busiestWindowBits = max(m.busiestWindowBits, sum)
        }
    }
    return m
}

func report(label: String, frames: Int, frameRate: Double, mode: String, target: Int, _ m: Measurement) {
    let seconds = Double(frames) / frameRate
    let freezeMs = Double(m.longestFreezeFrames) * 1000 / frameRate
    let line = String(format: "%@ | %@ | %d | %d/%d | %.0f ms | %.0f | %.2fx | %.2fx | %.2f dB",
                      label, mode, target, m.delivered, frames, freezeMs, Double(m.bits) / seconds,
                      Double(m.bits) / seconds / Double(target), Double(m.busiestWindowBits) / Double(target),
                      m.psnrSum / Double(frames))
    let qp = m.qpCount > 0 ? String(format: " | QP %.1f", Double(m.qpSum) / Double(m.qpCount)) : ""
    let extra = qp + (m.switches.isEmpty ? "" : " | " + m.switches.joined(separator: ", "))
        + (m.skipReasons.isEmpty ? "" : " | skips " + m.skipReasons.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
    FileHandle.standardOutput.write(Data((line + extra + "\n").utf8))
}

for target in options.targets {
    for (width, height) in options.sizes {
        for qp in options.qpRanges {
            var configuration = EncoderConfiguration(width: width, height: height, frameRate: frameRate,
                                                     targetBitrate: target)
            configuration.qpRange = qp
            configuration.frameSkipping = options.frameSkipping
            configuration.denoise = options.denoise
            configuration.lightPreprocessing = options.lightPreprocessing
            configuration.keyframeInterval = 100_000
            let encoder = try H264Encoder(configuration: configuration)
            let m = try measure(source: source) { index, frame in
                try encoder.encode(.i420(frame), timestamp: Int64(index) * 3000)
            }
            report(label: label, frames: source.count, frameRate: frameRate, mode: "\(width)x\(height) qp \(qp.lowerBound)-\(qp.upperBound)\(options.frameSkipping ? "" : " noskip")",
                   target: target, m)
        }
    }
    for preference in options.adaptive {
        var configuration = EncoderConfiguration(width: first.width, height: first.height, frameRate: frameRate,
                                                 targetBitrate: target)
        configuration.keyframeInterval = 100_000
        configuration.denoise = options.denoise
        configuration.lightPreprocessing = options.lightPreprocessing
        let encoder = try AdaptiveH264Encoder(configuration: configuration, preference: preference,
                                              settings: options.settings)
        var switches: [String] = []
        var skips: [String: Int] = [:]
        var m = try measure(source: source) { index, frame in
            let timestamp = Int64(index) * 3000
            let now = MonotonicTime(nanoseconds: Int64(index) * 1_000_000_000 / 30)
            if let rate = options.steps[index] { try encoder.setBitrate(target: rate) }
            let result = try frame.withView { try encoder.encode($0, timestamp: timestamp, now: now) }
            if let change = result.resolutionChange {
                switches.append("\(index): \(change.to.width)x\(change.to.height) (\(change.reason))")
            }
            if case .skipped(let reason) = result.output { skips["\(reason)", default: 0] += 1 }
            return result.output
        }
        m.switches = switches + [
            "resampling PSNR-Y " + encoder.scaler.resamplingPSNR.dropFirst().enumerated().map { index, psnr in
                "\(encoder.scaler.ladder.rungs[index + 1]) " + (psnr.map { String(format: "%.1f", $0) } ?? "-")
            }.joined(separator: " "),
        ]
        m.skipReasons = skips
        report(label: label, frames: source.count, frameRate: frameRate, mode: "adaptive \(preference.rawValue) from \(encoder.currentSize.width)x\(encoder.currentSize.height)",
               target: target, m)
    }
}
