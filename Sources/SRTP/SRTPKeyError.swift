/// An error from building a master key or parsing an SDES `inline:` key. No case ever carries key material.
public enum SRTPKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The decoded master key and salt do not have the length the suite requires.
    case invalidLength(suite: SRTPSuite, expected: Int, actual: Int)
    /// The key parameter does not start with the `inline:` key method (RFC 4568 section 6.1).
    case missingInlinePrefix
    /// The key-salt field is not valid base64.
    case invalidBase64
    /// The lifetime field is not `2^n` or a decimal number of packets in 1 ... 2^48 (RFC 4568 section 6.1,
    /// RFC 3711 section 9.2). Carries the offending field.
    case invalidLifetime(String)
    /// The MKI field is not `value:length` with a decimal value that fits in `length` bytes, 1 ... 128
    /// (RFC 4568 section 6.1). Carries the offending field.
    case invalidMKI(String)
    /// The key parameter has more `|`-separated fields than key-salt, lifetime and MKI.
    case tooManyFields(Int)

    /// A readable description that never contains key material.
    public var description: String {
        switch self {
        case .invalidLength(let suite, let expected, let actual):
            "SDES key for \(suite.sdpName) must decode to \(expected) bytes of key and salt, got \(actual)"
        case .missingInlinePrefix:
            "SDES key parameter must start with \"inline:\""
        case .invalidBase64:
            "SDES key-salt is not valid base64"
        case .invalidLifetime(let field):
            "SDES key lifetime \"\(field)\" is not 2^n or a packet count in 1...2^48"
        case .invalidMKI(let field):
            "SDES MKI \"\(field)\" is not value:length with a length in 1...128 bytes"
        case .tooManyFields(let count):
            "SDES key parameter has \(count) '|'-separated fields; at most 3 are allowed"
        }
    }
}
