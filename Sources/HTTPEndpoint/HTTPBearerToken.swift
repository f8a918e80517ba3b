/// Bearer-token checks shared by the endpoints.
package enum HTTPBearerToken {
    /// The scheme's name, lower-case; it is matched in any case (RFC 9110 11.1: "It uses a case-insensitive token").
    static let scheme = Array("bearer".utf8)
    /// The separator between the scheme and the token (RFC 9110 11.4: `auth-scheme [ 1*SP ( token68 / ... ) ]`).
    static let space = UInt8(ascii: " ")

    /// Whether an `Authorization` field value is `Bearer <token>` (RFC 6750 2.1): the scheme in any case, one or more
    /// spaces, then exactly `token`, compared in constant time (only the lengths show in the timing).
    /// - Parameters:
    ///   - authorization: the field's value, or nil when the request has none.
    ///   - token: the token required (not empty).
    /// - Returns: whether the value carries that token.
    package static func matches(authorization: String?, token: String) -> Bool {
        guard let authorization else { return false }
        let bytes = Array(authorization.utf8)
        guard bytes.count > scheme.count, bytes[scheme.count] == space else { return false }
        var schemeDifference: UInt8 = 0
        for i in 0..<scheme.count { schemeDifference |= (bytes[i] | 0x20) ^ scheme[i] }  // ASCII letters: | 0x20 lower-cases
        var start = scheme.count
        while start < bytes.count, bytes[start] == space { start += 1 }
        let tokenMatches = constantTimeEqual(Array(bytes[start...]), Array(token.utf8))
        return schemeDifference == 0 && tokenMatches
    }

    /// Compares two byte strings in time that depends only on their lengths (a token check must not leak a prefix).
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
