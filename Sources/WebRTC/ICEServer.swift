public import TURN

/// A STUN or TURN server: configured (`--ice-server`), or handed out by a WHIP endpoint in a `Link` header (RFC 9725
/// section 4.6):
///
/// ```
/// Link: <turn:turn.example.net?transport=udp>; rel="ice-server"; username="user"; credential="myPassword"
/// ```
///
/// The URI is read per RFC 7064 (`stun:`/`stuns:` host[:port]) and RFC 7065 (`turn:`/`turns:` host[:port]
/// [?transport=udp|tcp]); the host is a name, an IPv4 address or an IPv6 literal in brackets, lowercased; a missing
/// port is the scheme's default (3478, or 5349 for `stuns:`/`turns:`). `uri` writes it back in that canonical form.
/// The credential is never shown: `description`, `debugDescription` and the mirror redact it.
public struct ICEServer: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The scheme.
    public var scheme: ICEServerScheme
    /// The host: a lowercased name or IPv4 address, or an IPv6 address (without its brackets).
    public var host: String
    /// The port (the scheme's default when the URI names none).
    public var port: Int
    /// The `?transport=` of a TURN URI; nil when the URI names none (and always for STUN).
    public var transport: ICEServerTransport?
    /// The `username` of the link.
    public var username: String?
    /// The `credential` of the link (a password: RFC 9725 section 4.6's `credential-type` "password").
    public var credential: String?

    /// The most bytes of a URI, a username or a credential (512: a long host name is 253, a TURN REST username
    /// and an HMAC credential well under 100).
    public static let maximumFieldLength = 512
    /// The relation type of an ICE server link (RFC 9725 section 4.6).
    public static let linkRelation = "ice-server"
    /// The only `credential-type` RFC 9725 section 4.6 defines (also what a missing one means).
    public static let passwordCredentialType = "password"

    /// Reads a STUN or TURN URI.
    /// - Parameters:
    ///   - uri: `stun:host[:port]`, `stuns:...`, `turn:host[:port][?transport=udp|tcp]` or `turns:...`.
    ///   - username: The username, if any.
    ///   - credential: The password, if any.
    /// - Throws: `ICEServerError`: `.unknownScheme`, `.malformedURI`, `.badPort`, `.badTransport`, `.tooLong`.
    public init(uri: String, username: String? = nil, credential: String? = nil) throws(ICEServerError) {
        guard uri.utf8.count <= Self.maximumFieldLength else { throw .tooLong(field: "URI") }
        guard (username?.utf8.count ?? 0) <= Self.maximumFieldLength else { throw .tooLong(field: "username") }
        guard (credential?.utf8.count ?? 0) <= Self.maximumFieldLength else { throw .tooLong(field: "credential") }
        guard let colon = uri.firstIndex(of: ":") else { throw .malformedURI("it has no scheme") }
        guard let scheme = ICEServerScheme(rawValue: uri[..<colon].lowercased()) else {
            throw .unknownScheme(String(uri[..<colon]))
        }
        var rest = uri[uri.index(after: colon)...]
        guard !rest.hasPrefix("//") else { throw .malformedURI("a stun: or turn: URI has no '//' (RFC 7064)") }
        var transport: ICEServerTransport?
        if let question = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: question)...].lowercased()
            guard scheme.isTURN, query.hasPrefix(Self.transportQuery),
                  let named = ICEServerTransport(rawValue: String(query.dropFirst(Self.transportQuery.count)))
            else { throw .badTransport }
            transport = named
            rest = rest[..<question]
        }
        let host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .malformedURI("an IPv6 literal has no ']'") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            guard Self.isIPv6Address(host) else { throw .malformedURI("the IPv6 literal is not an IPv6 address") }
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw .malformedURI("text follows the IPv6 literal") }
                portText = after.dropFirst()
            }
        } else {
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw .malformedURI("an IPv6 address goes in brackets") }
            host = parts[0]
            if parts.count == 2 { portText = parts[1] }
            guard !host.isEmpty else { throw .malformedURI("it has no host") }
            guard host.utf8.allSatisfy(Self.isHostNameByte) else {
                throw .malformedURI("the host holds a character other than letters, digits, '-', '.', '_' "
                    + "(an IPv6 address goes in brackets)")
            }
        }
        var port = scheme.defaultPort
        if let portText {
            guard (1...5).contains(portText.utf8.count), portText.utf8.allSatisfy(Self.isDigit),
                  let value = Int(portText), (1...65535).contains(value)
            else { throw .badPort }
            port = value
        }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
        self.transport = transport
        self.username = username
        self.credential = credential
        // The canonical form adds the port: it must still be within the bound, so that it reads back.
        guard self.uri.utf8.count <= Self.maximumFieldLength else { throw .tooLong(field: "URI") }
    }

    /// The URI in canonical form: scheme, host (IPv6 in brackets), port always, `?transport=` when given.
    /// `ICEServer(uri: server.uri)` reads it back to the same scheme, host, port and transport.
    public var uri: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "\(scheme.rawValue):\(hostText):\(port)" + (transport.map { "?\(Self.transportQuery)\($0.rawValue)" } ?? "")
    }

    /// The URI and the username; the credential is redacted:
    /// `turn:turn.example.net:3478?transport=udp (user user, credential <redacted>)`.
    public var description: String {
        var details: [String] = []
        if let username { details.append("user \(PeerText.excerpt(username, limit: Self.printedUsernameLength))") }
        if credential != nil { details.append("credential <redacted>") }
        return details.isEmpty ? uri : "\(uri) (\(details.joined(separator: ", ")))"
    }

    /// As `description`: the credential is redacted in debug output too.
    public var debugDescription: String { description }

    /// The URI and username; the credential is redacted (for `dump` and debuggers).
    public var customMirror: Mirror {
        Mirror(self, children: [
            "uri": uri, "username": username as Any, "credential": credential == nil ? "none" : "<redacted>",
        ])
    }

    /// The most characters of a username printed.
    static let printedUsernameLength = 64
    /// The query of a TURN URI (RFC 7065 section 3.1).
    static let transportQuery = "transport="

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// A byte of a host name or IPv4 address: letters, digits, `-`, `.`, `_` (the reg-names STUN and TURN servers
    /// have; RFC 3986's other sub-delims and percent-encoding are not accepted).
    private static func isHostNameByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
    }

    /// Whether `text` is an IPv6 address (RFC 4291 section 2.2: eight groups of 1-4 hex digits, one `::`, an IPv4
    /// address in the last 32 bits). No zone identifier.
    static func isIPv6Address(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.utf8.count <= maximumIPv6Length else { return false }
        /// The number of 16-bit groups in a run of `:`-separated groups, nil when one is malformed.
        func groups(_ part: Substring, ipv4Tail: Bool) -> Int? {
            guard !part.isEmpty else { return 0 }
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            var count = 0
            for (index, piece) in pieces.enumerated() {
                if ipv4Tail, index == pieces.count - 1, piece.contains(".") {
                    guard isIPv4Address(piece) else { return nil }
                    count += 2
                } else {
                    guard (1...4).contains(piece.utf8.count), piece.utf8.allSatisfy(isHexDigit) else { return nil }
                    count += 1
                }
            }
            return count
        }
        if let gap = text.firstRange(of: "::") {
            let tail = text[gap.upperBound...]
            guard !tail.contains("::"), let before = groups(text[..<gap.lowerBound], ipv4Tail: false),
                  let after = groups(tail, ipv4Tail: true)
            else { return false }
            return before + after <= 7
        }
        return groups(text, ipv4Tail: true) == 8
    }

    /// Whether `text` is a dotted-quad IPv4 address (four decimal numbers 0-255, at most three digits each).
    static func isIPv4Address(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            (1...3).contains(part.utf8.count) && part.utf8.allSatisfy(isDigit) && (Int(part) ?? 256) <= 255
        }
    }

    /// The longest IPv6 address text (`ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`).
    static let maximumIPv6Length = 45
}

extension ICEServer {
    /// Why an ICE agent here cannot gather from this server, or nil when it can: STUN (`stun:`), and TURN with a username
    /// and a credential over UDP (`turn:`), TCP (`turn:...?transport=tcp`) or TLS (`turns:`), on IPv4. Never quotes
    /// the credential.
    /// - Parameters:
    ///   - afterOffer: Whether the offer is already sent (a server from the endpoint's `Link` headers): a
    ///     server-reflexive candidate found then could only be signalled by trickle ICE, so STUN is of no use.
    public func unusableReason(afterOffer: Bool = false) -> String? {
        switch scheme {
        case .stuns: return "STUN over TLS (stuns:) is not supported: use stun:"
        case .stun where afterOffer:
            return "a server-reflexive candidate found after the offer cannot be signalled without trickle ICE"
        case .stun: break
        case .turns where transport == .udp:
            return "TURN over DTLS (turns:...?transport=udp) is not supported: use turns: (TLS over TCP)"
        case .turn, .turns:
            if username == nil || credential == nil {
                return "a \(scheme.rawValue): server needs a username and a credential (--ice-username, --ice-credential)"
            }
        }
        if Self.isIPv6Address(Substring(host)) { return "IPv6 ICE servers are not supported yet (the socket is IPv4)" }
        return nil
    }

    /// How a TURN server is reached: UDP, TCP (`?transport=tcp`) or TLS (`turns:`).
    public var turnTransport: TURNClientConfiguration.Transport {
        if scheme == .turns { return .tls }
        return transport == .tcp ? .tcp : .udp
    }
}
