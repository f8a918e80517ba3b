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

    /// The rule itself, the one place it is decided: an endpoint without a token may listen only on loopback. Checked
    /// on the host the user gave before anything starts (the command line, then the server), and again by the server
    /// on the address its socket was bound to.
    /// - Parameters:
    ///   - hasToken: whether the endpoint requires a bearer token.
    ///   - host: the host the user gave.
    ///   - bound: the address the socket was bound to, once bound (nil: the host alone decides).
    /// - Returns: nil when the endpoint may run; otherwise the host to name in the refusal (with the address bound,
    ///   when that is what is not loopback), for `tokenRequiredMessage`.
    package static func hostNeedingToken(hasToken: Bool, host: String, bound: SocketAddress? = nil) -> String? {
        guard !hasToken else { return nil }
        guard isLoopback(host: host) else { return host }
        guard let bound else { return nil }
        return isLoopback(bound) ? nil : "\(host) (bound to \(bound.ipAddress ?? "?"))"
    }

    /// The one refusal for an endpoint reachable beyond this machine without a token.
    /// - Parameters:
    ///   - endpoint: the endpoint, as a sentence names it (`the control endpoint`, `the WHEP endpoint`).
    ///   - host: what `hostNeedingToken` returned.
    ///   - tokenOptions: how the user gives it a token (`--token or --token-file`).
    /// - Returns: the message.
    package static func tokenRequiredMessage(endpoint: String, host: String, tokenOptions: String) -> String {
        "\(endpoint) on \(host) is reachable beyond this machine: give it a token (\(tokenOptions))"
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
