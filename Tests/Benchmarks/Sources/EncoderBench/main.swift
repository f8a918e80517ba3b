// Encoder stage benchmark (issue 3): H264Encoder on preloaded 720p frames, single thread, CBR 1.5 Mbit/s,
// Constrained Baseline level 3.1 — the same parameters as Tests/Benchmarks/C/encode_loop.c. Run through
// Tests/Benchmarks/run-encoder.sh, which prints both figures and their ratio.
//
// Usage: EncoderBench [--y4m FILE] [--frames N] [--runs R] [--temporal-layers T]
//        EncoderBench --rate-control     (the frame-skip measurements of Docs/Encoder.md)
//        EncoderBench --write-pattern FILE [--frames N]   (the 720p test pattern as Y4M, for the C reference loop)
// Prints one "fps=..." line per run (wall fps, then the process CPU time per frame, the bytes and bitrate produced,
// the frames per temporal layer and the mean QP), then the test pattern's render cost. --temporal-layers (issue 23)
// sets `EncoderConfiguration.temporalLayers`: Tests/Benchmarks/run-temporal-layers.sh compares L1T1, L1T2 and L1T3.
import BenchArguments
import Codec
import Foundation
import H264
import Video

var arguments = CommandLine.arguments.dropFirst()
var y4mPath: String?
var frameCount = 300
var runs = 1
var temporalLayers = 1
var patternOutput: String?
while let argument = arguments.popFirst() {
    switch argument {
    case "--y4m": y4mPath = arguments.popFirst()
    case "--frames": frameCount = integerValue(of: argument, in: 1...1_000_000, from: &arguments)
    case "--runs": runs = integerValue(of: argument, in: 1...1_000, from: &arguments)
    case "--temporal-layers":
        temporalLayers = integerValue(of: argument, in: EncoderConfiguration.supportedTemporalLayers,
                                      from: &arguments)
    case "--write-pattern": patternOutput = arguments.popFirst()
    case "--rate-control":
        try RateControlMeasurement.run()
        exit(0)
    default: usageError("unknown argument \(argument)")
    }
}

if let patternOutput {
    let pattern = try TestPattern(width: 1280, height: 720)
    let writer = try Y4MWriter(path: patternOutput, header: Y4MHeader(width: 1280, height: 720))
    var picture = I420Frame(width: 1280, height: 720)
    for index in 0..<frameCount {
        pattern.render(frameIndex: index, into: &picture)
        try writer.write(picture)
    }
    exit(0)
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

/// CPU time consumed so far by the whole process (every thread), in seconds.
func processCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

// Preload the frames.
var frames: [I420Frame] = []
if let y4mPath {
    let reader = try Y4MReader(path: y4mPath)
    while frames.count < frameCount, let frame = try reader.readFrame() { frames.append(frame) }
} else {
    let pattern = try TestPattern(width: 1280, height: 720)
    frames = (0..<frameCount).map { pattern.frame($0) }
}
guard let first = frames.first else { usageError("no frames read") }

var configuration = EncoderConfiguration(width: first.width, height: first.height, frameRate: 30,
                                         targetBitrate: 1_500_000)
configuration.profile = .constrainedBaseline
configuration.threads = 1
configuration.temporalLayers = temporalLayers

for _ in 0..<runs {
    let encoder = try H264Encoder(configuration: configuration)
    var bytes = 0
    var skipped = 0
    var framesPerLayer = [Int](repeating: 0, count: temporalLayers)
    var qpSum = 0
    var qpCount = 0
    let clock = ContinuousClock()
    let start = clock.now
    let cpuStart = processCPUSeconds()
    for (index, frame) in frames.enumerated() {
        let timestamp = Int64(index) * 3000
        switch try encoder.encode(.i420(frame), timestamp: timestamp) {
        case .frame(let encoded, let statistics):
            bytes += encoded.bytes.count
            if framesPerLayer.indices.contains(encoded.temporalLayer) { framesPerLayer[encoded.temporalLayer] += 1 }
            if let qp = statistics.averageQP { qpSum += qp; qpCount += 1 }
        case .skipped: skipped += 1
        }
    }
    let cpu = processCPUSeconds() - cpuStart
    let elapsed = seconds(clock.now - start)
    let kbps = Double(bytes) * 8 * configuration.frameRate / Double(frames.count) / 1000
    let layers = framesPerLayer.enumerated().map { "T\($0.offset):\($0.element)" }.joined(separator: ",")
    let meanQP = qpCount > 0 ? String(format: "%.1f", Double(qpSum) / Double(qpCount)) : "-"
    print(String(format: "fps=%.2f cpu_ms_per_frame=%.3f frames=%d bytes=%d kbps=%.1f skipped=%d temporal_layers=%d",
                 Double(frames.count) / elapsed, cpu * 1000 / Double(frames.count), frames.count, bytes, kbps,
                 skipped, temporalLayers) + " layer_frames=\(layers) mean_qp=\(meanQP)")
}

// The default source's cost: render 720p pattern frames into one reused buffer.
let pattern = try TestPattern(width: 1280, height: 720)
var picture = I420Frame(width: 1280, height: 720)
let renders = 300
let renderStart = ContinuousClock.now
for index in 0..<renders { pattern.render(frameIndex: index, into: &picture) }
let perFrame = seconds(ContinuousClock.now - renderStart) / Double(renders)
print(String(format: "pattern_render_us=%.1f", perFrame * 1e6))
