#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An output path opened for writing with `open(2)`, never replaced.
///
/// Tools that write through `FileManager.createFile` or an atomic write get a temporary file renamed over the path:
/// a symlink becomes a regular file, a FIFO stops being one, the file's mode and owner change, and run as root,
/// `--output /dev/null` replaced the device for the whole machine (issue 11). This type opens the path itself with
/// `O_WRONLY | O_CREAT | O_TRUNC` (or `O_APPEND`), so:
/// - a new file gets mode `0666 & ~umask`, like any file a shell redirection creates;
/// - an existing file keeps its mode and owner (only its contents are truncated);
/// - a symlink is followed and its target written;
/// - a FIFO or a device such as `/dev/null` is opened and written as it is (truncation does not apply to them).
///
/// Writes retry `EINTR` and short writes; every failure is an ``OutputFileError`` that keeps `errno`. Not
/// `Sendable`: one owner writes at a time (wrap it to share it across threads).
public final class OutputFile {
    /// How an existing regular file's contents are treated.
    public enum Mode: Sendable {
        /// Start from an empty file (`O_TRUNC`).
        case truncate
        /// Keep the contents and write after them (`O_APPEND`).
        case append
    }

    /// The path as given ("-" for standard output).
    public let path: String
    /// The number of bytes written so far.
    public private(set) var bytesWritten = 0

    private var fd: Int32
    private let ownsDescriptor: Bool

    /// Opens (creating if needed) `path` for writing. Opening a FIFO blocks until a reader opens it, as
    /// `open(2)` does.
    /// - Parameters:
    ///   - path: the output path; "-" writes to standard output (not closed by this object).
    ///   - mode: truncate (default) or append.
    ///   - privateToOwner: create a new file readable by its owner only (0600), for output that holds anything an
    ///     other user must not read (session ids); an existing file keeps its mode. Otherwise 0666 less the umask.
    /// - Throws: ``OutputFileError`` for `open`, with its errno (`ENOENT` for a missing directory, `EACCES`, `EISDIR`...).
    public init(path: String, mode: Mode = .truncate, privateToOwner: Bool = false) throws(OutputFileError) {
        self.path = path
        if path == "-" {
            fd = STDOUT_FILENO
            ownsDescriptor = false
            return
        }
        let flags = O_WRONLY | O_CREAT | (mode == .truncate ? O_TRUNC : O_APPEND)
        do {
            fd = try FileDescriptorIO.open(path, flags: flags, permissions: privateToOwner ? 0o600 : FileDescriptorIO.newFileMode)
        } catch {
            throw OutputFileError(operation: .open, path: path, errno: error.errno ?? EIO)
        }
        ownsDescriptor = true
    }

    /// Writes to a descriptor the caller opened.
    /// - Parameters:
    ///   - fileDescriptor: an open, writable descriptor.
    ///   - closeOnDeinit: whether this object closes it.
    ///   - path: a name for errors.
    public init(fileDescriptor: Int32, closeOnDeinit: Bool, path: String) {
        self.path = path
        fd = fileDescriptor
        ownsDescriptor = closeOnDeinit
    }

    deinit {
        if ownsDescriptor, fd >= 0 { FileDescriptorIO.close(fd) }
    }

    /// The descriptor (-1 once closed).
    public var fileDescriptor: Int32 { fd }

    /// Writes all of `buffer`.
    /// - Parameter buffer: the bytes.
    /// - Throws: ``OutputFileError`` for `write` (`EBADF` once closed, `ENOSPC`, `EPIPE` when a FIFO's reader left).
    public func write(_ buffer: UnsafeRawBufferPointer) throws(OutputFileError) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        guard fd >= 0 else { throw OutputFileError(operation: .write, path: path, errno: EBADF) }
        do {
            try FileDescriptorIO.writeAll(fd, base, buffer.count)
        } catch {
            throw OutputFileError(operation: .write, path: path, errno: error.errno ?? EIO)
        }
        bytesWritten += buffer.count
    }

    /// Writes all of `bytes`.
    /// - Parameter bytes: the bytes.
    /// - Throws: as ``write(_:)-(UnsafeRawBufferPointer)``.
    public func write(_ bytes: [UInt8]) throws(OutputFileError) {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(OutputFileError) in try write(raw) } }
        try result.get()
    }

    /// Writes `text` as UTF-8.
    /// - Parameter text: the text.
    /// - Throws: as ``write(_:)-(UnsafeRawBufferPointer)``.
    public func write(_ text: String) throws(OutputFileError) {
        try write(Array(text.utf8))
    }

    /// Closes the descriptor (when this object owns it), reporting a failure; later writes throw `EBADF`. Calling
    /// it again does nothing.
    /// - Throws: ``OutputFileError`` for `close`.
    public func close() throws(OutputFileError) {
        guard fd >= 0 else { return }
        let descriptor = fd
        fd = -1
        guard ownsDescriptor else { return }
        do {
            try FileDescriptorIO.closeReporting(descriptor)
        } catch {
            throw OutputFileError(operation: .close, path: path, errno: error.errno ?? EIO)
        }
    }
}
