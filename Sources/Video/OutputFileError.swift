#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an output could not be opened, written or closed: the system call, the path and the raw `errno`.
public struct OutputFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The system call that failed.
    public enum Operation: String, Sendable {
        /// `open(2)`.
        case open
        /// `write(2)`.
        case write
        /// `close(2)`.
        case close
    }

    /// The system call that failed.
    public var operation: Operation
    /// The path of the output (as given by the caller).
    public var path: String
    /// The raw error code (`ENOENT`, `EACCES`, `ENOSPC`, `EPIPE`, ...).
    public var errno: Int32

    /// Creates an error.
    /// - Parameters:
    ///   - operation: the failed call.
    ///   - path: the output path.
    ///   - errno: the raw error code.
    public init(operation: Operation, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// "cannot open out.y4m: Permission denied (errno 13)".
    public var description: String {
        "cannot \(operation.rawValue) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
