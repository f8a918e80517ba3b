import ArgumentParser
import Sender
import Video

/// Where `send` and `serve` take their frames from, and how many: the options both share.
struct SourceOptions: ParsableArguments {
    @Option(help: "A Y4M file, or - for standard input (default: the built-in test pattern).")
    var input: String?

    @Flag(help: "Send the built-in test pattern (the default).")
    var pattern = false

    @Option(help: "Push this many frames (send then stops; serve keeps its viewers until a signal).")
    var frames: Int?

    @Option(help: "Push this many seconds of media (send then stops; serve keeps its viewers until a signal).")
    var duration: Double?

    /// The longest --duration accepted (ten years, in seconds): larger values would overflow the clock arithmetic.
    static let maximumDuration: Double = 315_360_000

    func validate() throws {
        if pattern && input != nil { throw ValidationError("give --input or --pattern, not both") }
        if let frames, frames <= 0 { throw ValidationError("--frames must be positive") }
        if let duration, !(duration > 0 && duration <= Self.maximumDuration) {
            throw ValidationError("--duration must be more than 0 and at most \(Int(Self.maximumDuration)) seconds")
        }
    }

    /// Opens the Y4M input, or the test pattern at `patternSize`.
    /// - Returns: the source, and whether it is the pattern (its size then comes from the encoder options).
    /// - Throws: `ValidationError` naming what is wrong with the input.
    func open(patternSize: FrameSize) throws -> (source: FrameSource, isPattern: Bool) {
        do {
            if let input { return (try Y4MSource(path: input), false) }
            return (try PatternSource(width: patternSize.width, height: patternSize.height), true)
        } catch {
            throw ValidationError("input: \(error)")
        }
    }
}
