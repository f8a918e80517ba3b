import Foundation

/// The `rtc-h264` command-line tool as a user runs it: the binary `swift build --build-tests` puts beside the test
/// bundle, started as a `ChildProcess`. Shared by every test target that runs it (H264Tests, SenderTests, WHIPTests).
public enum RTCH264Tool {
    /// The binary is not built.
    public struct Missing: Error, CustomStringConvertible {
        /// Where it was looked for.
        public var path: String
        public var description: String {
            "rtc-h264 not found at \(path): build it first (swift build --build-tests, as Tests/run.sh does)"
        }
    }

    /// The binary beside the test bundle.
    /// - Throws: `Missing` when it is not there.
    public static func url() throws -> URL {
        let url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("rtc-h264")
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw Missing(path: url.path) }
        return url
    }

    /// Starts `rtc-h264` with `arguments`; the caller awaits `finished()` (or stops it).
    /// - Parameters:
    ///   - arguments: the command line after the program's name.
    ///   - standardInput: bytes for its standard input; nil gives it an empty one.
    /// - Returns: the running process.
    /// - Throws: `Missing`, or the error starting it.
    public static func start(_ arguments: [String], standardInput: Data? = nil) throws -> ChildProcess {
        try ChildProcess(executable: try url(), arguments: arguments, standardInput: standardInput)
    }

    /// Runs `rtc-h264` with `arguments` to its end.
    /// - Parameters:
    ///   - arguments: the command line after the program's name.
    ///   - standardInput: bytes for its standard input; nil gives it an empty one.
    /// - Returns: its exit status and output.
    /// - Throws: `Missing`, or the error starting it.
    public static func run(_ arguments: [String], standardInput: Data? = nil) async throws -> ChildProcess.Output {
        try await start(arguments, standardInput: standardInput).finished()
    }
}
