public import STUN

/// Why a TURN operation failed; each case names its cause as an operator would need it.
public enum TURNError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server refused the credential (a 401 after an authenticated request, or 441 Wrong Credentials).
    case unauthorized(server: TransportAddress, reason: String)
    /// The server answered 438 Stale Nonce again and again.
    case staleNonceLoop(server: TransportAddress, attempts: Int)
    /// The server refused a request with an error code (RFC 8656 section 19 names them).
    case refused(method: String, code: Int, reason: String)
    /// No authenticated answer within the retransmission schedule.
    case timedOut(method: String, after: Duration)
    /// A message that cannot be used: the reason says what is wrong.
    case malformed(String)
    /// An operation that needs an allocation before there is one (or after it ended).
    case noAllocation
    /// Data for a peer with no installed permission.
    case noPermission(IPAddress)
    /// Every channel number of 0x4000-0x4FFF is bound.
    case channelsExhausted
    /// Application data longer than a ChannelData or DATA attribute can carry.
    case payloadTooLarge(Int)
    /// A caller's buffer cannot hold what must be written.
    case bufferTooSmall(needed: Int, available: Int)

    public var description: String {
        switch self {
        case .unauthorized(let server, let reason):
            "TURN server \(server) refused the credential: \(reason) (check --ice-username and --ice-credential)"
        case .staleNonceLoop(let server, let attempts):
            "TURN server \(server) answered 438 Stale Nonce \(attempts) times in a row"
        case .refused(let method, let code, let reason):
            "TURN \(method) refused: \(code) \(Self.meaning(code) ?? reason)"
        case .timedOut(let method, let after):
            "TURN \(method) had no authenticated answer within \(after.components.seconds) s"
        case .malformed(let reason): "malformed TURN message: \(reason)"
        case .noAllocation: "no TURN allocation"
        case .noPermission(let ip): "no TURN permission for \(ip)"
        case .channelsExhausted: "every TURN channel number is bound"
        case .payloadTooLarge(let count): "\(count) bytes do not fit in one TURN message (at most 65535)"
        case .bufferTooSmall(let needed, let available): "TURN needs \(needed) bytes of buffer, \(available) given"
        }
    }

    /// What the error codes RFC 8656 and RFC 8489 define mean.
    static func meaning(_ code: Int) -> String? {
        switch code {
        case 300: "Try Alternate (this client does not follow ALTERNATE-SERVER)"
        case 400: "Bad Request"
        case 401: "Unauthenticated"
        case 403: "Forbidden (the server does not relay to that peer)"
        case 420: "Unknown Attribute"
        case 437: "Allocation Mismatch (no such allocation, or one already exists on this 5-tuple)"
        case 438: "Stale Nonce"
        case 440: "Address Family not Supported"
        case 441: "Wrong Credentials"
        case 442: "Unsupported Transport Protocol"
        case 443: "Peer Address Family Mismatch"
        case 486: "Allocation Quota Reached"
        case 500: "Server Error"
        case 508: "Insufficient Capacity"
        default: nil
        }
    }
}
