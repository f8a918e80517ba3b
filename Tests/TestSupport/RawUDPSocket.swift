import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bare IPv4 UDP socket for sending what no peer would (malformed packets, packets from a stranger's address), for
/// seeing what arrives unprocessed, and for holding a port. Plain system calls, not the transport under test; nothing
/// here waits (`send` and `receive` return at once), so it is safe on Swift concurrency's pool: wait with `Poll`.
/// Shared by SenderTests and TransportTests; `RefusingTCPPort` below is its TCP counterpart for a refused connection.
public final class RawUDPSocket: @unchecked Sendable {
    /// Why a socket could not be made.
    public struct Failure: Error, CustomStringConvertible {
        /// The call that failed.
        public var call: String
        /// Its errno.
        public var code: Int32
        public var description: String { "\(call) failed: \(String(cString: strerror(code)))" }

        /// Creates a failure.
        /// - Parameters:
        ///   - call: the call that failed.
        ///   - code: its errno.
        public init(call: String, code: Int32) {
            self.call = call
            self.code = code
        }
    }

    private let fd: Int32
    /// The bound address.
    public let host: String
    /// The bound port.
    public let port: Int

    /// Binds a socket.
    /// - Parameters:
    ///   - host: an IPv4 literal (another loopback address such as 127.0.0.2 makes a stranger).
    ///   - port: the port, 0 for any.
    /// - Throws: `Failure` when the address cannot be bound (a port in use).
    public init(host: String = "127.0.0.1", port: Int = 0) throws {
        (fd, self.port) = try boundSocket(type: Int32(SOCK_DGRAM.rawValue), host: host, port: port)
        self.host = host
    }

    deinit { Glibc.close(fd) }

    /// Sends one datagram.
    /// - Parameters:
    ///   - bytes: the datagram.
    ///   - port: the destination port.
    ///   - host: the destination, an IPv4 literal.
    /// - Throws: `Failure` when the kernel refuses it.
    public func send(_ bytes: [UInt8], toPort port: Int, host: String = "127.0.0.1") throws {
        var destination = Self.address(host, port)
        let sent = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &destination) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == bytes.count else { throw Failure(call: "sendto \(host):\(port)", code: errno) }
    }

    /// Takes one datagram that has arrived, if any; never waits.
    /// - Returns: its bytes and source port, or nil when none is waiting.
    public func receive() -> (bytes: [UInt8], port: Int)? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { raw in
            withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), $0, &length)
                }
            }
        }
        guard count >= 0 else { return nil }
        return (Array(buffer[0..<count]), Int(UInt16(bigEndian: source.sin_port)))
    }

    fileprivate static func address(_ host: String, _ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }
}

/// A TCP port on 127.0.0.1 that refuses connections: a socket bound to it that never listens, held until this goes
/// away. (A closed server's port is no such port: a suite running in parallel may take it.)
public final class RefusingTCPPort: @unchecked Sendable {
    private let fd: Int32
    /// The port.
    public let port: Int

    /// Binds the socket to a port the system picks.
    /// - Throws: `RawUDPSocket.Failure` when no socket can be bound.
    public init() throws {
        (fd, port) = try boundSocket(type: Int32(SOCK_STREAM.rawValue), host: "127.0.0.1", port: 0)
    }

    deinit { Glibc.close(fd) }
}

/// A socket of `type` bound to `host:port` (0: any), and the port it got.
func boundSocket(type: Int32, host: String, port: Int) throws -> (Int32, Int) {
    let descriptor = socket(AF_INET, type, 0)
    guard descriptor >= 0 else { throw RawUDPSocket.Failure(call: "socket", code: errno) }
    var address = RawUDPSocket.address(host, port)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard bound == 0 else {
        let code = errno
        Glibc.close(descriptor)
        throw RawUDPSocket.Failure(call: "bind \(host):\(port)", code: code)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}
