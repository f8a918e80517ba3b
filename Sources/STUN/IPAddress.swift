#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as a value (no socket types), the form STUN carries in (XOR-)MAPPED-ADDRESS.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 address, most significant byte first (`192.0.2.1` is `0xC000_0201`).
    case v4(UInt32)
    /// An IPv6 address as two 64-bit halves, most significant first.
    case v6(high: UInt64, low: UInt64)

    /// Parses dotted-quad IPv4 or RFC 4291 IPv6 text (`inet_pton`).
    ///
    /// - Parameters:
    ///   - string: `192.0.2.1`, `2001:db8::1`, ... (no brackets, no zone).
    /// - Returns: `nil` when the text is neither.
    public init?(_ string: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, string, &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, string, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        self.init(bytes: bytes)
    }

    /// Creates an address from its 4 or 16 network-order bytes.
    ///
    /// - Parameters:
    ///   - bytes: 4 bytes for IPv4, 16 for IPv6.
    /// - Returns: `nil` for any other length.
    public init?(bytes: some Collection<UInt8>) {
        switch bytes.count {
        case 4:
            self = .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
        case 16:
            let array = Array(bytes)
            let high = array[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let low = array[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self = .v6(high: high, low: low)
        default:
            return nil
        }
    }

    /// The address in network byte order: 4 or 16 bytes.
    public var bytes: [UInt8] {
        switch self {
        case .v4(let value):
            (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32($0))) }
        case .v6(let high, let low):
            (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
                + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
        }
    }

    /// Whether this is an IPv6 address.
    public var isIPv6: Bool {
        if case .v6 = self { return true }
        return false
    }

    /// The conventional text form (`inet_ntop`): `192.0.2.1`, `2001:db8::1`.
    public var description: String {
        var bytes = self.bytes
        let family = isIPv6 ? AF_INET6 : AF_INET
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok = inet_ntop(family, &bytes, &text, socklen_t(text.count)) != nil
        guard ok else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
