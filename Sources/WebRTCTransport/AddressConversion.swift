import NIOCore
import STUN

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension TransportAddress {
    /// The address of a NIO socket address; nil for a Unix domain socket.
    package init?(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            self.init(ip: .v4(UInt32(bigEndian: v4.address.sin_addr.s_addr)), port: UInt16(bigEndian: v4.address.sin_port))
        case .v6(let v6):
            var high: UInt64 = 0
            var low: UInt64 = 0
            withUnsafeBytes(of: v6.address.sin6_addr) { bytes in
                for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
                for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
            }
            self.init(ip: .v6(high: high, low: low), port: UInt16(bigEndian: v6.address.sin6_port))
        case .unixDomainSocket:
            return nil
        }
    }
}

extension SocketAddress {
    /// The NIO socket address of a STUN transport address.
    package init(_ address: TransportAddress) {
        switch address.ip {
        case .v4(let ip):
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = address.port.bigEndian
            sin.sin_addr.s_addr = ip.bigEndian
            self.init(sin, host: "")
        case .v6(let high, let low):
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = address.port.bigEndian
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { bytes in
                for index in 0..<8 { bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index))) }
                for index in 0..<8 { bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index))) }
            }
            self.init(sin6, host: "")
        }
    }
}
