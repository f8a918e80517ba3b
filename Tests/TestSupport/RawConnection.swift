import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection to 127.0.0.1 held open by a test, for the HTTP servers' connection limits and request
/// timeout: requests on a kept-alive connection, a head sent a byte at a time, or nothing at all. Blocking calls;
/// run the waiting ones through `RawConnection.offPool` (never on Swift concurrency's pool, which the servers'
/// handlers need).
public final class RawConnection: @unchecked Sendable {
    private let fd: Int32

    /// Connects.
    /// - Parameter port: the server's port on 127.0.0.1.
    /// - Throws: `RawHTTP.ConnectFailed`.
    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw RawHTTP.ConnectFailed(port: port)
        }
    }

    deinit { Glibc.close(fd) }

    /// Sends text; false once the connection is broken.
    @discardableResult
    public func send(_ text: String) -> Bool { send(bytes: Array(text.utf8)) }

    /// Sends bytes; false once the connection is broken.
    @discardableResult
    public func send(bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Reads one reply (head and a `Content-Length` body) without closing: the reply, what came before the server
    /// closed the connection, or nil when nothing came at all within `timeout` seconds.
    public func readReply(timeout: Double = 5) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        var bytes: [UInt8] = []
        while Date() < deadline {
            let text = String(decoding: bytes, as: UTF8.self)
            if let split = text.range(of: "\r\n\r\n") {
                let length = text[..<split.lowerBound].lowercased().components(separatedBy: "\r\n")
                    .first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if text.utf8.count - text[..<split.upperBound].utf8.count >= length { return text }
            }
            switch receive(waiting: 0.1) {
            case .data(let chunk): bytes += chunk
            case .closed: return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
            case .nothing: continue
            }
        }
        return nil
    }

    /// What one wait for data saw.
    public enum Received: Sendable, Equatable {
        /// Bytes.
        case data([UInt8])
        /// The server closed the connection (EOF or a reset).
        case closed
        /// Nothing within the wait.
        case nothing
    }

    /// Waits up to `seconds` for bytes or the end of the connection.
    public func receive(waiting seconds: Double) -> Received {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(seconds * 1000)) > 0 else { return .nothing }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if n > 0 { return .data(Array(buffer[0..<n])) }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return .nothing }
        return .closed
    }

    /// Sends `head` one byte every `interval` seconds (a drip) until the server closes the connection or `limit`
    /// seconds pass, discarding what the server sends.
    /// - Returns: the seconds until the server closed it, or nil if it was still open at `limit`.
    public func drip(_ head: String, interval: Double, limit: Double) -> Double? {
        let start = Date()
        var bytes = Array(head.utf8)[...]
        while Date().timeIntervalSince(start) < limit {
            if let byte = bytes.popFirst() {
                if !send(String(decoding: [byte], as: UTF8.self)) { return Date().timeIntervalSince(start) }
            }
            if case .closed = receive(waiting: interval) { return Date().timeIntervalSince(start) }
        }
        return nil
    }

    /// Waits until the server closes the connection, discarding its bytes.
    /// - Returns: the seconds until it did, or nil if it was still open after `limit` seconds.
    public func waitForClose(limit: Double) -> Double? {
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            if case .closed = receive(waiting: 0.1) { return Date().timeIntervalSince(start) }
        }
        return nil
    }

    /// Runs blocking work on a thread of its own and awaits its result.
    public static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }
}
