/// The scheme of a STUN (RFC 7064) or TURN (RFC 7065) URI.
public enum ICEServerScheme: String, Hashable, Sendable, CaseIterable {
    /// STUN over UDP or TCP (RFC 7064 section 3.1).
    case stun
    /// STUN over TLS or DTLS (RFC 7064 section 3.1).
    case stuns
    /// TURN over UDP or TCP (RFC 7065 section 3.1).
    case turn
    /// TURN over TLS or DTLS (RFC 7065 section 3.1).
    case turns

    /// The port when the URI names none: 3478, or 5349 for the secure schemes (RFC 7064 section 3.2, RFC 7065
    /// section 3.2, the ports of RFC 8489 section 6).
    public var defaultPort: Int {
        switch self {
        case .stun, .turn: Self.plainPort
        case .stuns, .turns: Self.securePort
        }
    }

    /// Whether it is a TURN scheme (which may carry `?transport=`).
    public var isTURN: Bool { self == .turn || self == .turns }

    /// The default port of `stun:` and `turn:` (RFC 8489 section 6).
    public static let plainPort = 3478
    /// The default port of `stuns:` and `turns:` (RFC 8489 section 6).
    public static let securePort = 5349
}
