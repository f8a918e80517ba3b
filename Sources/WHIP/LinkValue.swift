/// One link of an HTTP `Link` header (RFC 8288 section 3): a target URI and its parameters.
///
/// ```
/// Link: <turn:turn.example.net?transport=udp>; rel="ice-server"; username="user"; credential="pw"
/// ```
/// Parameter names are case-insensitive (RFC 8288 section 3) and kept lowercased; a parameter given twice keeps its
/// first value (RFC 8288 section 3.3 says so for `rel`, and nothing is gained by keeping a later one). Values are
/// kept unquoted and unescaped. `LinkHeader.parse` makes these from header field values.
public struct LinkValue: Hashable, Sendable {
    /// The target URI, as written between `<` and `>` (a URI-Reference, not resolved).
    public var target: String
    /// The parameters by lowercased name; a parameter without `=` has the empty value.
    public var parameters: [String: String]

    /// A link.
    /// - Parameters:
    ///   - target: The target URI.
    ///   - parameters: The parameters by lowercased name.
    public init(target: String, parameters: [String: String] = [:]) {
        self.target = target
        self.parameters = parameters
    }

    /// The relation types of `rel`: a space-separated list (RFC 8288 section 3.3), lowercased (registered relation
    /// types compare case-insensitively, RFC 8288 section 2.1.1); empty without `rel`.
    public var relations: [String] {
        guard let rel = parameters["rel"] else { return [] }
        return rel.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
    }
}
