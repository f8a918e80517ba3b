#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// IPv4 literals as NIOSSL's SNI rule sees them.
enum IPv4Address {
    /// Whether `text` is a dotted-quad IPv4 literal.
    static func isLiteral(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }
}
