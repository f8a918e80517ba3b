
/// Why a link or URI does not give a usable ICE server. Descriptions never quote a credential.
public enum ICEServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The URI's scheme is not `stun`, `stuns`, `turn` or `turns` (the scheme is quoted, bounded).
    case unknownScheme(String)
    /// The URI does not follow RFC 7064 / RFC 7065 (the reason says where).
    case malformedURI(String)
    /// The port is not in 1...65535.
    case badPort
    /// `?transport=` is neither `udp` nor `tcp`, or a query follows a `stun:`/`stuns:` URI.
    case badTransport
    /// The URI, the username or the credential is longer than `ICEServer.maximumFieldLength` bytes.
    case tooLong(field: String)
    /// `credential-type` is not `password` (RFC 9725 section 4.6 defines only that one).
    case unsupportedCredentialType(String)

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .unknownScheme(let scheme):
            "the URI scheme '\(PeerText.excerpt(scheme, limit: 16))' is not stun, stuns, turn or turns"
        case .malformedURI(let reason): "the URI is malformed: \(reason)"
        case .badPort: "the port is not in 1...65535"
        case .badTransport: "the transport is not ?transport=udp or ?transport=tcp (on a turn: or turns: URI)"
        case .tooLong(let field): "the \(field) is longer than \(ICEServer.maximumFieldLength) bytes"
        case .unsupportedCredentialType(let type):
            "credential-type '\(PeerText.excerpt(type, limit: 32))' is not supported (only password)"
        }
    }
}
