import Video

/// The Annex-B output of `encode`: a path opened with open(2) (created or truncated, never replaced: a symlink, a
/// FIFO or /dev/null stays what it is) or standard output for "-".
final class EncodeOutput {
    private let file: Video.OutputFile

    /// Opens `path` ("-" for standard output).
    /// - Parameter path: the output path.
    /// - Throws: `OutputFileError` if the path cannot be opened.
    init(path: String) throws {
        file = try Video.OutputFile(path: path)
    }

    /// Appends bytes.
    /// - Parameter bytes: the access unit.
    func write(_ bytes: [UInt8]) throws {
        try file.write(bytes)
    }
}
