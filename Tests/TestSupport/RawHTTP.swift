import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Raw bytes over a fresh TCP connection to 127.0.0.1 (or another literal, IPv6 too), for tests of HTTP servers (the control endpoint, WHEP) that
/// must send what no client library would: malformed requests, oversized bodies. Shared by SenderTests and WHEPTests.
public enum RawHTTP {
    /// How the read of the reply ended.
    public enum End: Sendable, Equatable {
        /// The server closed the connection (EOF).
        case closed
        /// The connection failed (a reset).
        case failed
        /// The receive timeout ended the read with the connection still open.
        case timedOut
    }

    /// What came back.
    public struct Reply: Sendable {
        /// The bytes read, as text.
        public var text: String
        /// How the read ended.
        public var end: End
    }

    /// Why no exchange took place.
    public struct ConnectFailed: Error, CustomStringConvertible {
        public var port: Int
        public var description: String { "cannot connect to 127.0.0.1:\(port)" }
    }

    /// Sends `request` and reads until the server closes the connection or `receiveTimeout` passes without data, on
    /// a thread of its own: a blocking read on Swift concurrency's pool would hold a thread the server's handlers
    /// need (on Linux that pool is Dispatch's global queue).
    public static func exchange(host: String = "127.0.0.1", port: Int, _ request: String, receiveTimeout: Int) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try exchangeBlocking(host: host, port: port, request, receiveTimeout: receiveTimeout)
                })
            }.start()
        }
    }

    /// `exchange` on the calling thread (never call it from a task on the cooperative pool).
    /// - Parameters:
    ///   - host: an IPv4 or IPv6 literal (`127.0.0.1`, `::1`).
    public static func exchangeBlocking(host: String = "127.0.0.1", port: Int, _ request: String, receiveTimeout: Int) throws -> Reply {
        let isIPv6 = host.contains(":")
        let fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: max(receiveTimeout, 1), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(clamping: port).bigEndian)
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { throw ConnectFailed(port: port) }
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(clamping: port).bigEndian)
            address.sin_addr.s_addr = inet_addr(host)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard connected == 0 else { throw ConnectFailed(port: port) }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        var end = End.timedOut
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { end = .closed }
            if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK { end = .failed }
            if n <= 0 { break }
            reply += buffer[0..<n]
        }
        return Reply(text: String(decoding: reply, as: UTF8.self), end: end)
    }
}
