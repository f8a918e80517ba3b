import Foundation
import Testing
@testable import Video

/// Outputs are opened, never replaced (issue 11 item 4). Before `OutputFile`, `encode --output`, `send --stats` and
/// `receive --output` went through `FileManager.createFile`, which writes a temporary file and renames it over the
/// path: each test below failed on that code (the symlink and the FIFO became regular files, 0640 became 0644, and
/// as root `/dev/null` became a regular file).
@Suite struct OutputFileTests {
    /// A fresh directory, removed by the caller.
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "outputfile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    static func mode(_ path: String, followingLinks: Bool = true) -> (type: mode_t, permissions: mode_t, uid: uid_t) {
        var st = stat()
        let result = followingLinks ? stat(path, &st) : lstat(path, &st)
        precondition(result == 0, "stat \(path) failed")
        return (st.st_mode & S_IFMT, st.st_mode & 0o7777, st.st_uid)
    }

    static func contents(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func newFileGetsTheUmaskedDefaultMode() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let previous = umask(0o027)
        defer { umask(previous) }
        let file = try OutputFile(path: dir + "/new.bin")
        try file.write([1, 2, 3])
        try file.close()
        #expect(Self.mode(dir + "/new.bin").permissions == 0o640)  // 0666 & ~027
        #expect(try Self.contents(dir + "/new.bin") == [1, 2, 3])
    }

    @Test func existingFileKeepsItsModeAndOwnerAndIsTruncated() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/kept.bin"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 9, count: 100)))
        #expect(chmod(path, 0o640) == 0)
        let owner: uid_t = geteuid() == 0 ? 1234 : geteuid()
        if geteuid() == 0 { #expect(chown(path, owner, 1234) == 0) }
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        let file = try OutputFile(path: path)
        try file.write([7, 7])
        try file.close()
        #expect(Self.mode(path).permissions == 0o640)
        #expect(Self.mode(path).uid == owner)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode)
        #expect(try Self.contents(path) == [7, 7])
    }

    @Test func appendKeepsTheContents() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/log.jsonl"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("a\n".utf8)))
        let file = try OutputFile(path: path, mode: .append)
        try file.write("b\n")
        try file.close()
        #expect(try Self.contents(path) == Array("a\nb\n".utf8))
        #expect(file.bytesWritten == 2)
    }

    @Test func symlinkIsFollowedNotReplaced() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let target = dir + "/target.bin"
        let link = dir + "/link.bin"
        #expect(FileManager.default.createFile(atPath: target, contents: Data([0])))
        #expect(symlink(target, link) == 0)
        let file = try OutputFile(path: link)
        try file.write([5, 6, 7])
        try file.close()
        #expect(Self.mode(link, followingLinks: false).type == S_IFLNK)
        #expect(try Self.contents(target) == [5, 6, 7])
    }

    /// Bytes read by another thread, and whether it is done; behind a lock.
    final class ReaderResult: @unchecked Sendable {
        private let lock = NSLock()
        private var received: [UInt8] = []
        private var finished = false

        func append(_ chunk: ArraySlice<UInt8>) { lock.withLock { received += chunk } }
        func finish() { lock.withLock { finished = true } }
        var isFinished: Bool { lock.withLock { finished } }
        var bytes: [UInt8] { lock.withLock { received } }
    }

    @Test func fifoIsWrittenNotReplaced() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        let result = ReaderResult()
        Thread.detachNewThread {
            let fd = open(fifo, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while fd >= 0 {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                result.append(buffer[..<n])
            }
            if fd >= 0 { close(fd) }
            result.finish()
        }
        let payload = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }  // more than a pipe's 64 KiB buffer
        let file = try OutputFile(path: fifo)  // blocks until the reader opens its end
        try file.write(payload)
        try file.close()
        // The reader sees the end within 10 s; polled, so that no thread of the cooperative pool waits for it.
        for _ in 0..<1000 where !result.isFinished { try await Task.sleep(for: .milliseconds(10)) }
        #expect(result.isFinished)
        #expect(result.bytes == payload)
        #expect(Self.mode(fifo).type == S_IFIFO)
    }

    /// A null device to write to. As root (where replacing `/dev/null` did the damage), a private node of the same
    /// device (major 1, minor 3) in `dir`, so that the test does not depend on, or change, the machine's
    /// `/dev/null` (which other programs' old builds may have replaced); otherwise `/dev/null` itself.
    static func nullDevice(in dir: String) -> String {
        guard geteuid() == 0 else { return "/dev/null" }
        let path = dir + "/null"
        let device = dev_t((1 << 8) | 3)  // makedev(1, 3)
        precondition(mknod(path, S_IFCHR | 0o666, device) == 0, "mknod failed")
        chmod(path, 0o666)
        return path
    }

    @Test func devNullStaysACharacterDevice() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let null = Self.nullDevice(in: dir)
        let file = try OutputFile(path: null)
        try file.write([UInt8](repeating: 1, count: 10_000))
        try file.close()
        #expect(Self.mode(null).type == S_IFCHR)
        #expect(Self.mode(null).permissions == 0o666)
    }

    @Test func y4mWriterOpensItsOutputTheSameWay() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.y4m"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(chmod(path, 0o640) == 0)
        let writer = try Y4MWriter(path: path, header: Y4MHeader(width: 2, height: 2))
        try writer.write(I420Frame(width: 2, height: 2))
        try writer.close()
        #expect(Self.mode(path).permissions == 0o640)
        let header = Array("YUV4MPEG2 W2 H2 F30:1 Ip A1:1 C420jpeg\nFRAME\n".utf8)
        #expect(try Self.contents(path) == header + [16, 16, 16, 16, 128, 128])
        let null = Self.nullDevice(in: dir)
        let toNull = try Y4MWriter(path: null, header: Y4MHeader(width: 2, height: 2))
        try toNull.write(I420Frame(width: 2, height: 2))
        #expect(Self.mode(null).type == S_IFCHR)
    }

    @Test func errorsKeepErrnoAndSayWhat() throws {
        #expect(throws: OutputFileError(operation: .open, path: "/nonexistent/dir/x", errno: ENOENT)) {
            _ = try OutputFile(path: "/nonexistent/dir/x")
        }
        #expect(OutputFileError(operation: .open, path: "/nonexistent/dir/x", errno: ENOENT).description
            == "cannot open /nonexistent/dir/x: No such file or directory (errno 2)")
        #expect(throws: OutputFileError(operation: .open, path: "/", errno: EISDIR)) { _ = try OutputFile(path: "/") }
        let file = try OutputFile(path: "/dev/null")
        try file.close()
        try file.close()  // a second close does nothing
        #expect(throws: OutputFileError(operation: .write, path: "/dev/null", errno: EBADF)) { try file.write([1]) }
    }

    @Test func writeToAFIFOWhoseReaderLeftIsEPIPE() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)  // a reader that leaves at once
        #expect(reader >= 0)
        let file = try OutputFile(path: fifo)
        close(reader)
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        #expect(throws: OutputFileError(operation: .write, path: fifo, errno: EPIPE)) { try file.write([1, 2, 3]) }
    }
}
