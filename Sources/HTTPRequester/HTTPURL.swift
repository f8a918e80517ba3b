import HTTPEndpoint

/// An absolute `http://` or `https://` URL as the HTTP clients (WHIP, control) use it: host, port and request target,
/// and RFC 3986 section 5 reference resolution for `Location` headers (absolute, `//host/...`, `/path`,
/// `relative/path`, `?query`).
///
/// Pure: no resolution of names, no I/O. User information (`user:pass@`) is refused, a fragment is dropped.
package struct HTTPURL: Hashable, Sendable, CustomStringConvertible {
    /// The scheme, lower case: `http` or `https`.
    package var scheme: String
    /// The host: a name, an IPv4 literal, or an IPv6 literal without brackets.
    package var host: String
    /// The port (the scheme's default, 80 or 443, when absent).
    package var port: Int
    /// The path, starting with `/`.
    package var path: String
    /// The query without `?`, if any.
    package var query: String?

    /// The default port of `http` (RFC 9110 section 4.2.1).
    package static let defaultPort = 80
    /// The default port of `https` (RFC 9110 section 4.2.2).
    package static let defaultHTTPSPort = 443
    /// The schemes the client speaks: plain HTTP/1.1 and HTTP/1.1 over TLS.
    package static let supportedSchemes: Set<String> = ["http", "https"]

    /// Whether requests to this URL go over TLS.
    package var isHTTPS: Bool { scheme == "https" }

    /// The default port of a supported scheme.
    package static func defaultPort(for scheme: String) -> Int { scheme == "https" ? defaultHTTPSPort : defaultPort }
    /// The longest URL accepted.
    package static let maximumLength = 8192

    /// Whether the host is loopback: `localhost`, an IPv4 literal in 127.0.0.0/8 (so that a name such as
    /// `127.example.com` is not), or `::1`; the endpoints' rule (`LoopbackRule`).
    package var isLoopback: Bool { LoopbackRule.isLoopback(host: host) }

    /// The request target of the request line: path and query.
    package var requestTarget: String { query.map { "\(path)?\($0)" } ?? path }

    /// `host[:port]` as the `Host` header carries it (IPv6 in brackets, the port only when not the scheme's default).
    package var authority: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return port == Self.defaultPort(for: scheme) ? bracketed : "\(bracketed):\(port)"
    }

    /// The origin (scheme, host, port): a token is sent again only to the same origin.
    package var origin: String { "\(scheme)://\(authority.lowercased())" }

    package var description: String { "\(scheme)://\(authority)\(requestTarget)" }

    /// Parses an absolute URL.
    /// - Parameters:
    ///   - text: e.g. `http://127.0.0.1:8080/whip/endpoint` or `https://sfu.example/whip`.
    /// - Throws: `HTTPURLError.unsupportedScheme` for another scheme than http and https, `.invalid` naming the part.
    package init(parsing text: String) throws(HTTPURLError) {
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength else {
            throw .invalid("a URL must be 1-\(Self.maximumLength) bytes")
        }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw .invalid("'\(Self.printable(text))' contains spaces, control or non-ASCII characters")
        }
        guard let colon = text.firstIndex(of: ":"), Self.isScheme(text[..<colon]) else {
            throw .invalid("'\(Self.printable(text))' is not an absolute URL (http[s]://HOST[:PORT]/PATH)")
        }
        let scheme = text[..<colon].lowercased()
        guard Self.supportedSchemes.contains(scheme) else { throw .unsupportedScheme(scheme) }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { throw .invalid("'\(Self.printable(text))' has no //HOST part") }
        try self.init(scheme: scheme, authorityAndRest: rest.dropFirst(2), original: text)
    }

    private init(scheme: String, authorityAndRest: Substring, original: String) throws(HTTPURLError) {
        var rest = authorityAndRest
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var tail = rest[authorityEnd...]
        guard !authority.contains("@") else {
            throw .invalid("user information in a URL is not supported (give the token with --token)")
        }
        let hostPart: Substring
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalid("unclosed IPv6 literal in '\(Self.printable(original))'") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalid("junk after the IPv6 literal in '\(Self.printable(original))'") }
                portPart = after.dropFirst()
            }
            guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw .invalid("'\(hostPart)' is not an IPv6 literal")
            }
        } else if let portColon = authority.lastIndex(of: ":") {
            hostPart = authority[..<portColon]
            portPart = authority[authority.index(after: portColon)...]
        } else {
            hostPart = authority
        }
        guard !hostPart.isEmpty, hostPart.utf8.count <= 253 else { throw .invalid("'\(Self.printable(original))' has no host") }
        if !authority.hasPrefix("[") {
            guard hostPart.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_" }) else {
                throw .invalid("'\(hostPart)' is not a host name or address")
            }
        }
        var port = Self.defaultPort(for: scheme)
        if let portPart, !portPart.isEmpty {
            guard portPart.count <= 5, portPart.allSatisfy(\.isASCII), let value = Int(portPart), (1...65535).contains(value) else {
                throw .invalid("port '\(portPart)' must be 1-65535")
            }
            port = value
        }
        var query: String?
        if let mark = tail.firstIndex(of: "?") {
            query = String(tail[tail.index(after: mark)...])
            tail = tail[..<mark]
        }
        self.scheme = scheme
        self.host = hostPart.lowercased()
        self.port = port
        self.path = tail.isEmpty ? "/" : Self.removeDotSegments(String(tail))
        self.query = query
    }

    /// Resolves a reference (a `Location` value) against this URL (RFC 3986 section 5.2.2, non-strict).
    /// - Parameters:
    ///   - reference: An absolute URL, `//authority/path`, `/path`, `relative/path`, or `?query`.
    /// - Returns: The absolute URL.
    /// - Throws: `HTTPURLError.unusableReference` when empty or unusable, `.unsupportedScheme` for an absolute URL of
    ///   another scheme than http and https.
    package func resolving(_ reference: String) throws(HTTPURLError) -> HTTPURL {
        let reference = reference.trimmingSpaces
        guard !reference.isEmpty else { throw .unusableReference("empty") }
        guard reference.utf8.count <= Self.maximumLength,
              reference.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { throw .unusableReference("'\(Self.printable(reference))' is not a URL reference") }
        if let colon = reference.firstIndex(of: ":"), Self.isScheme(reference[..<colon]),
           !reference[..<colon].contains("/") {
            do {
                return try HTTPURL(parsing: reference)
            } catch let error {
                if case .unsupportedScheme = error { throw error }
                throw .unusableReference("\(error)")
            }
        }
        if reference.hasPrefix("//") {
            do {
                return try HTTPURL(scheme: scheme, authorityAndRest: reference.dropFirst(2), original: reference)
            } catch {
                throw .unusableReference("\(error)")
            }
        }
        var body = Substring(reference)
        if let hash = body.firstIndex(of: "#") { body = body[..<hash] }
        var target = self
        if body.hasPrefix("?") {
            target.query = String(body.dropFirst())
            return target
        }
        var newQuery: String?
        if let mark = body.firstIndex(of: "?") {
            newQuery = String(body[body.index(after: mark)...])
            body = body[..<mark]
        }
        if body.isEmpty { return target }  // only a fragment: the same resource
        if body.hasPrefix("/") {
            target.path = Self.removeDotSegments(String(body))
        } else {
            // Merge (section 5.2.3): the base path up to its last "/", then the reference.
            let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "/"
            target.path = Self.removeDotSegments(directory + body)
        }
        target.query = newQuery
        return target
    }

    /// RFC 3986 section 5.2.4.
    static func removeDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if output.count > 1 { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        var result = output.joined(separator: "/")
        if !result.hasPrefix("/") { result = "/" + result }
        return result
    }

    /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (RFC 3986 section 3.1).
    static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    /// At most 100 characters of a value for an error message, control characters replaced.
    package static func printable(_ text: some StringProtocol) -> String {
        let cleaned = String(text.unicodeScalars.prefix(100).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return text.unicodeScalars.count > 100 ? cleaned + "..." : cleaned
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    package var trimmingSpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
