import Foundation

/// Code examples of Docs/Guide.md that test files compile and run so that they cannot rot: the text between a test
/// file's `guide:begin` and `guide:end` markers (indented one level inside the test suite) must appear verbatim in
/// the Guide. Shared by every test target that keeps one (SenderTests, WHIPTests).
public enum GuideExample {
    /// What went wrong reading an example or the Guide.
    public enum Failure: Error, CustomStringConvertible {
        /// The test file lacks the `    // guide:begin` or `    // guide:end` line.
        case missingMarker(String, file: String)

        public var description: String {
            switch self {
            case .missingMarker(let marker, let file): "\(file) has no \"\(marker)\" line"
            }
        }
    }

    /// The example between the markers of `testFile`, its one level of indentation (four spaces) removed.
    /// - Parameter testFile: the test's own source (`#filePath`).
    /// - Throws: `Failure.missingMarker` when a marker is missing; the file system's error when it cannot be read.
    public static func text(inTestFile testFile: String) throws -> String {
        let source = try String(contentsOfFile: testFile, encoding: .utf8)
        guard let begin = source.range(of: "    // guide:begin\n") else {
            throw Failure.missingMarker("    // guide:begin", file: testFile)
        }
        guard let end = source.range(of: "    // guide:end") else {
            throw Failure.missingMarker("    // guide:end", file: testFile)
        }
        return source[begin.upperBound..<end.lowerBound]
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0) }
            .joined(separator: "\n")
    }

    /// The text of Docs/Guide.md in the checkout that holds `testFile` (Tests/<Target>/<File>.swift).
    /// - Parameter testFile: the test's own source (`#filePath`).
    /// - Throws: the file system's error when the Guide cannot be read.
    public static func guide(besideTestFile testFile: String) throws -> String {
        let guide = URL(fileURLWithPath: testFile).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/Guide.md")
        return try String(contentsOf: guide, encoding: .utf8)
    }
}
