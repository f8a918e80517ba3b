import ArgumentParser
import Foundation
import H264

/// `rtc-h264 inspect FILE|-`: lists the access units and parameter sets of an Annex-B H.264 stream.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "List the access units and parameter sets of an Annex-B H.264 stream.",
        discussion: """
            Prints each access unit (index, offset, size, keyframe, NAL unit types and sizes) and each SPS/PPS \
            (profile, level, size, profile-level-id). With --json, prints one JSON document (Docs/Inspect.md). \
            A malformed stream is reported with the byte offset of the problem, and the command exits with status 1.
            """
    )

    @Argument(help: "An Annex-B file, or - for standard input.")
    var input: String

    @Flag(help: "Print one JSON document instead of text.")
    var json = false

    @OptionGroup(title: "Logging") var logging: LoggingOptions

    func run() throws {
        let bytes = try readInput()
        let report: InspectReport
        do {
            report = try InspectReport(annexB: bytes)
        } catch {
            FileHandle.standardError.write(Data("error: \(input): \(error)\n".utf8))
            throw ExitCode.failure
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            let data = try encoder.encode(report)
            FileHandle.standardOutput.write(data)
            FileHandle.standardOutput.write(Data("\n".utf8))
        } else {
            print(report.text)
        }
    }

    /// Reads the whole input first (standard input until end of file), so parsing never waits on I/O.
    /// - Throws: `ExitCode.failure` after printing a message when the file cannot be read.
    private func readInput() throws -> [UInt8] {
        if input == "-" {
            return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        }
        guard let data = FileManager.default.contents(atPath: input) else {
            FileHandle.standardError.write(Data("error: cannot read \(input)\n".utf8))
            throw ExitCode.failure
        }
        return [UInt8](data)
    }
}

extension InspectCommand: LoggingCommand {}
