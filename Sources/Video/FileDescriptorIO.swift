#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place the Video module calls `open`, `read`, `write`, `close`, `fstat`, `lseek` and `mmap`: EINTR is
/// retried and errno becomes `Y4MError.system` with the raw code kept.
enum FileDescriptorIO {
    /// Opens `path` and returns the descriptor.
    /// - Parameters:
    ///   - path: file path.
    ///   - forWriting: create/truncate for writing instead of opening for reading.
    /// - Throws: `Y4MError.system`.
    static func open(_ path: String, forWriting: Bool) throws(Y4MError) -> Int32 {
        while true {
            let fd = forWriting ? Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                                : Glibc.open(path, O_RDONLY | O_CLOEXEC)
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

    /// The size of the regular file behind `fd`, or nil for a pipe, a terminal or a socket.
    /// - Throws: `Y4MError.system` if `fstat` fails.
    static func regularFileSize(_ fd: Int32) throws(Y4MError) -> Int? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system(operation: "fstat", errno: errno) }
        return (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    /// The descriptor's current offset (`lseek(fd, 0, SEEK_CUR)`).
    /// - Throws: `Y4MError.system` if the descriptor cannot seek.
    static func currentOffset(_ fd: Int32) throws(Y4MError) -> Int {
        let offset = lseek(fd, 0, SEEK_CUR)
        guard offset >= 0 else { throw .system(operation: "lseek", errno: errno) }
        return Int(offset)
    }

    /// Maps `length` bytes of `fd` read-only (`mmap(PROT_READ, MAP_SHARED)`) and advises sequential access
    /// (`madvise(MADV_SEQUENTIAL)`: read-ahead, pages dropped behind).
    /// - Throws: `Y4MError.system` if `mmap` fails.
    static func mapReadOnly(_ fd: Int32, length: Int) throws(Y4MError) -> UnsafeRawPointer {
        guard let address = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0), address != MAP_FAILED else {
            throw .system(operation: "mmap", errno: errno)
        }
        _ = madvise(address, length, MADV_SEQUENTIAL)  // advice only: its failure changes nothing
        return UnsafeRawPointer(address)
    }

    /// Unmaps a region from `mapReadOnly`, ignoring errors (used from deinit).
    static func unmap(_ address: UnsafeRawPointer, length: Int) {
        _ = munmap(UnsafeMutableRawPointer(mutating: address), length)
    }

    /// Closes `fd`, ignoring errors (used from deinit).
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }
}
