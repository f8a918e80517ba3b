#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place the Video module calls `open`, `read`, `write` and `close`: EINTR is retried and errno becomes
/// `Y4MError.system` with the raw code kept (`OutputFile` turns it into its own `OutputFileError`).
enum FileDescriptorIO {
    /// The permissions asked for when an output file is created; the process umask then applies, as for any
    /// program that creates a file (`open(2)`: the mode is `mode & ~umask`).
    static let newFileMode: mode_t = 0o666

    /// Opens `path` and returns the descriptor.
    /// - Parameters:
    ///   - path: file path.
    ///   - forWriting: create/truncate for writing instead of opening for reading.
    /// - Throws: `Y4MError.system`.
    static func open(_ path: String, forWriting: Bool) throws(Y4MError) -> Int32 {
        try open(path, flags: forWriting ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY)
    }

    /// Opens `path` with `flags` (plus `O_CLOEXEC`), creating a file with `permissions` (``newFileMode`` unless
    /// told otherwise; the umask applies) when `O_CREAT` is given.
    /// The path is opened, never replaced: a symlink is followed, a FIFO or a device is opened as it is, and an
    /// existing file keeps its mode and owner.
    /// - Throws: `Y4MError.system` with the errno of `open(2)`.
    static func open(_ path: String, flags: Int32, permissions: mode_t = newFileMode) throws(Y4MError) -> Int32 {
        while true {
            let fd = Glibc.open(path, flags | O_CLOEXEC, permissions)
            if fd >= 0 { return fd }
            if errno != EINTR { throw .system(operation: "open \(path)", errno: errno) }
        }
    }

    /// Reads up to `count` bytes; returns 0 at end of file.
    /// - Throws: `Y4MError.system`.
    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) throws(Y4MError) -> Int {
        while true {
            let n = Glibc.read(fd, buffer, count)
            if n >= 0 { return n }
            if errno != EINTR { throw .system(operation: "read", errno: errno) }
        }
    }

    /// Reads until `count` bytes or end of file; returns the number read.
    /// - Throws: `Y4MError.system`.
    static func readFully(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) throws(Y4MError) -> Int {
        var done = 0
        while done < count {
            let n = try read(fd, buffer + done, count - done)
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes all `count` bytes.
    /// - Throws: `Y4MError.system`.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) throws(Y4MError) {
        var done = 0
        while done < count {
            let n = Glibc.write(fd, buffer + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(operation: "write", errno: errno)
            }
            done += n
        }
    }

    /// Closes `fd`, ignoring errors (used from deinit).
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Closes `fd` and reports a failure (a delayed write error on some file systems). EINTR is not retried: on
    /// Linux the descriptor is released even then, and a retry could close a descriptor another thread just opened.
    /// - Throws: `Y4MError.system`.
    static func closeReporting(_ fd: Int32) throws(Y4MError) {
        if Glibc.close(fd) != 0, errno != EINTR { throw .system(operation: "close", errno: errno) }
    }
}
