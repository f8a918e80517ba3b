import NIOCore

/// The one rule for whether an HTTP endpoint may run without a bearer token: only when it listens on loopback.
///
/// The rule is decided twice: on the host the user gave, before anything starts (an IP literal in 127.0.0.0/8, `::1`,
/// or `localhost`; a host name such as `127.0.0.1.example` is not loopback whatever its first characters), and on the
/// address the socket was actually bound to (a name resolves to whatever the resolver says).
package enum LoopbackRule {
    /// Whether `host` names loopback by itself: `localhost`, an IPv4 literal in 127.0.0.0/8, or `::1` (bracketed or
    /// not). Any other name is not loopback, whatever it resolves to.
    package static func isLoopback(host: String) -> Bool {
        if host == "localhost" { return true }
        var text = Substring(host)
        if text.hasPrefix("[") && text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let v4 = ipv4Octets(text) { return v4[0] == 127 }
        return text == "::1" || text == "0:0:0:0:0:0:0:1"
    }

    /// Whether a bound socket address is a loopback one (127.0.0.0/8 or ::1).
    package static func isLoopback(_ address: SocketAddress?) -> Bool {
        guard let address, let ip = address.ipAddress else { return false }
        return isLoopback(host: ip)
    }

    /// The four octets of a dotted-quad IPv4 literal, or nil.
    static func ipv4Octets(_ text: Substring) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [Int] = []
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let value = Int(part), value <= 255
            else { return nil }
            octets.append(value)
        }
        return octets
    }
}
