// Encoder stage benchmark (issue 3): H264Encoder on preloaded 720p frames, single thread, CBR 1.5 Mbit/s,
// Constrained Baseline level 3.1 — the same parameters as Tests/Benchmarks/C/encode_loop.c. Run through
// Tests/Benchmarks/run-encoder.sh, which prints both figures and their ratio.
//
// Usage: EncoderBench [--y4m FILE] [--frames N] [--runs R]
//        EncoderBench --rate-control     (the frame-skip measurements of Docs/Encoder.md)
//        EncoderBench --write-pattern FILE [--frames N]   (the 720p test pattern as Y4M, for the C reference loop)
// Prints one "fps=..." line per run, then the test pattern's render cost.
import Codec
import Foundation
import H264
import Video

var arguments = CommandLine.arguments.dropFirst()
var y4mPath: String?
var frameCount = 300
var runs = 1
var patternOutput: String?
while let argument = arguments.popFirst() {
    switch argument {
    case "--y4m": y4mPath = arguments.popFirst()
    case "--frames": frameCount = Int(arguments.popFirst() ?? "") ?? frameCount
    case "--runs": runs = Int(arguments.popFirst() ?? "") ?? runs
    case "--write-pattern": patternOutput = arguments.popFirst()
    case "--rate-control":
        try RateControlMeasurement.run()
        exit(0)
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
        exit(2)
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

// Preload the frames.
var frames: [I420Frame] = []
if let y4mPath {
    let reader = try Y4MReader(path: y4mPath)
    while frames.count < frameCount, let frame = try reader.readFrame() { frames.append(frame) }
} else {
    let pattern = try TestPattern(width: 1280, height: 720)
    frames = (0..<frameCount).map { pattern.frame($0) }
}
guard let first = frames.first else { fatalError("no frames") }

var configuration = EncoderConfiguration(width: first.width, height: first.height, frameRate: 30,
                                         targetBitrate: 1_500_000)
configuration.profile = .constrainedBaseline
configuration.threads = 1

for _ in 0..<runs {
    let encoder = try H264Encoder(configuration: configuration)
    var bytes = 0
    var skipped = 0
    let clock = ContinuousClock()
    let start = clock.now
    for (index, frame) in frames.enumerated() {
        let timestamp = Int64(index) * 3000
        switch try encoder.encode(.i420(frame), timestamp: timestamp) {
        case .frame(let encoded, _): bytes += encoded.bytes.count
        case .skipped: skipped += 1
        }
    }
    let elapsed = seconds(clock.now - start)
    print(String(format: "fps=%.2f frames=%d bytes=%d skipped=%d", Double(frames.count) / elapsed, frames.count,
                 bytes, skipped))
}

// The default source's cost: render 720p pattern frames into one reused buffer.
let pattern = try TestPattern(width: 1280, height: 720)
var picture = I420Frame(width: 1280, height: 720)
let renders = 300
let renderStart = ContinuousClock.now
for index in 0..<renders { pattern.render(frameIndex: index, into: &picture) }
let perFrame = seconds(ContinuousClock.now - renderStart) / Double(renders)
print(String(format: "pattern_render_us=%.1f", perFrame * 1e6))
