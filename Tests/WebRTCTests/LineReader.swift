import Foundation
import MediaTime

/// Reads newline-terminated lines from a pipe with a timeout (poll).
struct LineReader {
    let handle: FileHandle
    var pending: [UInt8] = []

    init(handle: FileHandle) { self.handle = handle }

    mutating func next(timeoutMilliseconds: Int32) -> String? {
        if let line = takeLine() { return line }
        var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + .milliseconds(Int(timeoutMilliseconds))
        while ContinuousClock.now < deadline {
            let remaining = max(0, (deadline - ContinuousClock.now).saturatingNanoseconds / 1_000_000)
            guard poll(&descriptor, 1, Int32(remaining)) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = read(handle.fileDescriptor, &chunk, chunk.count)
            guard count > 0 else { return nil }
            pending += chunk[0..<count]
            if let line = takeLine() { return line }
        }
        return nil
    }

    mutating func takeLine() -> String? {
        guard let newline = pending.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = String(decoding: pending[..<newline], as: UTF8.self)
        pending.removeSubrange(...newline)
        return line
    }
}
