#if canImport(Glibc)
import Glibc
#endif
import STUN

/// A blocking-free IPv4 UDP socket for interop tests (the library itself never opens sockets).
final class UDPTestSocket {
    let descriptor: Int32
    let address: TransportAddress

    /// Binds to `ip` on an ephemeral port.
    init(ip: String) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.descriptor = descriptor
        guard descriptor >= 0 else { throw SocketError(call: "socket", errno: errno) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = 0
        guard inet_pton(AF_INET, ip, &sin.sin_addr) == 1 else { throw SocketError(call: "inet_pton", errno: EINVAL) }
        let bound = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw SocketError(call: "bind", errno: errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        address = TransportAddress(ip: .v4(UInt32(bigEndian: sin.sin_addr.s_addr)), port: UInt16(bigEndian: sin.sin_port))
    }

    deinit { close(descriptor) }

    /// Receives one datagram if one is waiting.
    func receive(into buffer: inout [UInt8]) -> (count: Int, source: TransportAddress)? {
        var sin = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &length)
                }
            }
        }
        guard count > 0 else { return nil }
        return (count, TransportAddress(ip: .v4(UInt32(bigEndian: sin.sin_addr.s_addr)), port: UInt16(bigEndian: sin.sin_port)))
    }

    /// Sends one datagram.
    func send(_ bytes: some Collection<UInt8>, to destination: TransportAddress) {
        guard case .v4(let ip) = destination.ip else { return }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = destination.port.bigEndian
        sin.sin_addr.s_addr = ip.bigEndian
        let array = Array(bytes)
        _ = array.withUnsafeBytes { raw in
            withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// The first IPv4 address of a non-loopback interface that is up.
    static func firstExternalIPv4() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                  entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0,
                  entry.pointee.ifa_flags & UInt32(IFF_UP) != 0
            else { continue }
            let ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
            return IPAddress.v4(ip).description
        }
        return nil
    }

    struct SocketError: Error {
        let call: String
        let errno: Int32
    }
}
