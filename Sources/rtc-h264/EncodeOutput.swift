import Foundation

/// The Annex-B output of `encode`: a file (created or truncated) or standard output.
final class EncodeOutput {
    private let handle: FileHandle

    /// Opens `path` ("-" for standard output).
    /// - Parameter path: the output path.
    /// - Throws: `CocoaError` if the file cannot be created.
    init(path: String) throws {
        if path == "-" {
            handle = FileHandle.standardOutput
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }
    }

    deinit { try? handle.close() }

    /// Appends bytes.
    /// - Parameter bytes: the access unit.
    func write(_ bytes: [UInt8]) throws {
        try handle.write(contentsOf: bytes)
    }
}
