import ArgumentParser
import Codec
import Foundation
import H264
import MediaTime
import RTP
import Video

/// `rtc-h264 encode`: encodes a Y4M file (or standard input) or the built-in test pattern to an Annex-B H.264 file,
/// with the real-time encoder configuration the sender uses, and prints a summary.
struct EncodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Encode a Y4M file or the test pattern to an Annex-B H.264 file.",
        discussion: """
            Examples:
              rtc-h264 encode --pattern --size 1280x720 --frames 300 --output out.h264
              ffmpeg -i in.mp4 -f yuv4mpegpipe - | rtc-h264 encode --input - --bitrate 800k --output out.h264
              rtc-h264 encode --pattern --frames 600 --bitrate-at 300:500k --force-keyframe 100,200 --output out.h264
            """
    )

    @Option(help: "A Y4M file to encode, or - for standard input.")
    var input: String?

    @Flag(help: "Encode the built-in moving test pattern.")
    var pattern = false

    @Option(help: "Frames to encode (default: all of the input, or 300 of the pattern).")
    var frames: Int?

    @Option(help: "The Annex-B output file, or - for standard output.")
    var output: String

    @OptionGroup var encoding: EncoderOptions

    @Option(help: "H.264 level, e.g. 3.1.")
    var level: String = EncoderOptions.defaultLevel.description

    @Option(help: "Comma-separated frame indices to force as IDRs, e.g. 30,90.")
    var forceKeyframe: String?

    @Option(help: "A bitrate change FRAME:RATE (repeatable), e.g. 300:800k.")
    var bitrateAt: [EncodeBitrateChange] = []

    @Option(help: "RTP packetization mode: 1 (one slice, FU-A later) or 0 (every NAL fits one packet).")
    var packetizationMode: Int = 1

    @Option(help: "IP-level MTU for packetization mode 0: NAL units fit the RTP payload `send` would use (MTU - IPv4 - UDP - RTP header - SRTP tag of the default suite).")
    var mtu: Int = 1200

    @Flag(help: "Disable rate-control frame skipping (OpenH264 then overshoots the target on hard content).")
    var noFrameSkip = false

    @Option(help: """
        What to give up when the bitrate is short: maintain-framerate (lower the resolution, the default),         maintain-resolution (rate control skips frames) or balanced (lower it part of the way, then skip).
        """)
    var degradationPreference: DegradationPreferenceArgument = .maintainFramerate

    @Flag(help: "Print only errors.")
    var quiet = false

    /// The largest `--mtu` accepted: an IP packet's 16-bit total length.
    static let maximumMTU = 65_535

    func validate() throws {
        guard (input != nil) != pattern else { throw ValidationError("give exactly one of --input PATH|- and --pattern") }
        guard [0, 1].contains(packetizationMode) else { throw ValidationError("--packetization-mode must be 0 or 1") }
        if let frames, frames <= 0 { throw ValidationError("--frames must be positive") }
        guard (1...Self.maximumMTU).contains(mtu) else {
            throw ValidationError("--mtu \(mtu) is outside 1...\(Self.maximumMTU)")
        }
        _ = try Self.parseLevel(level)
        _ = try forcedFrames()
    }

    /// Parses `--level` ("3.1", "4", "31") by name, without converting an unchecked number.
    /// - Parameter text: the flag's value.
    /// - Returns: the level.
    /// - Throws: `ValidationError` listing the supported levels.
    static func parseLevel(_ text: String) throws -> H264Level {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let level = H264Level.all.first(where: { $0.description == trimmed || "\($0.levelIdc)" == trimmed
                                                   || $0.description + ".0" == trimmed }) {
            return level
        }
        throw ValidationError("--level \(text) is not one of \(H264Level.all.map(\.description).joined(separator: ", "))")
    }

    func forcedFrames() throws -> Set<Int> {
        guard let forceKeyframe else { return [] }
        var result = Set<Int>()
        for item in forceKeyframe.split(separator: ",") {
            guard let value = Int(item.trimmingCharacters(in: .whitespaces)), value >= 0 else {
                throw ValidationError("--force-keyframe: '\(item)' is not a frame index")
            }
            result.insert(value)
        }
        return result
    }

    @OptionGroup(title: "Logging") var logging: LoggingOptions

    func run() throws {
        let source: EncodeSource
        if let input {
            source = try .y4m(Y4MReader(path: input))
        } else {
            let size = encoding.patternSize
            source = try .pattern(TestPattern(width: size.width, height: size.height))
        }
        let parsedLevel = try Self.parseLevel(level)
        // The same derivation as `send` with its defaults (IPv4, AES_CM_128_HMAC_SHA1_80), so that a stream encoded
        // here fits the packets `send --packetization-mode 0 --mtu N` makes.
        let maxNALUnitSize = packetizationMode == 0 ? RTPPayloadLimit(mtu: mtu).maxPayloadSize : nil
        let configuration: EncoderConfiguration
        do {
            configuration = try encoding.configuration(
                sourceWidth: source.width, sourceHeight: source.height, sourceFrameRate: source.frameRate,
                level: parsedLevel, frameSkipping: !noFrameSkip, maxNALUnitSize: maxNALUnitSize)
        } catch {
            // A usage error naming the flag the limit concerns (exit status 64), as for a flag refused by parsing.
            var flag = EncoderOptions.flag(for: error)
            // A size or rate taken from the input file is named as such.
            if flag == "--fps", encoding.fps == nil, input != nil { flag = "the input's frame rate (override with --fps)" }
            if flag == "--size", encoding.size == nil, input != nil { flag = "the input's size (override with --size)" }
            throw ValidationError("\(flag): \(error)")
        }
        let encoder = try AdaptiveH264Encoder(configuration: configuration,
                                              preference: degradationPreference.preference)
        let sink = try EncodeOutput(path: output)
        var summary = EncodeSummary(frameRate: configuration.frameRate)
        let forced = try forcedFrames()
        let changes = Dictionary(bitrateAt.map { ($0.frame, $0.bitrate) }, uniquingKeysWith: { _, last in last })
        let limit = frames ?? (pattern ? 300 : Int.max)
        var picture = I420Frame(width: source.width, height: source.height)
        let started = ContinuousClock.now
        var index = 0
        while index < limit, try source.next(index: index, into: &picture) {
            if let change = changes[index] {
                do {
                    try encoder.setBitrate(target: change.bps)
                } catch let error as EncoderConfigurationError {
                    throw ValidationError("--bitrate-at (frame \(index)): \(error)")
                }
            }
            let timestamp = Self.timestamp(frame: index, frameRate: configuration.frameRate)
            // Offline: the scaler's clock is the media time (90 kHz ticks to nanoseconds, saturating).
            let now = MonotonicTime(nanoseconds: timestamp.multipliedSaturating(by: 100_000) / 9)
            let adaptive = try encoder.encode(.i420(picture), timestamp: timestamp, now: now,
                                              forceKeyframe: forced.contains(index))
            if let change = adaptive.resolutionChange { summary.addResolutionChange(change, frame: index) }
            switch adaptive.output {
            case .frame(let frame, let statistics):
                try sink.write(frame.bytes)
                summary.add(frame, statistics)
            case .skipped(let reason):
                summary.addSkip(reason)
            }
            index += 1
        }
        summary.wallTime = ContinuousClock.now - started
        if !quiet {
            var standardError = FileHandle.standardError
            print(summary.report(configuration: configuration), to: &standardError)
        }
    }
}

extension EncodeCommand {
    /// The 90 kHz timestamp of input frame `frame` at `frameRate` (validated: 1...60), saturating at `Int64.max`
    /// instead of trapping for an absurd frame count.
    static func timestamp(frame: Int, frameRate: Double) -> Int64 {
        let ticks = (Double(frame) * 90_000 / frameRate).rounded()
        return ticks < 9.2e18 ? Int64(ticks) : .max
    }
}

/// A failure of `encode` reported as "Error: <message>" without the usage text.
struct EncodeFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension FileHandle: @retroactive TextOutputStream {
    public func write(_ string: String) { write(Data(string.utf8)) }
}

extension EncodeCommand: LoggingCommand {}
