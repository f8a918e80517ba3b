public import DTLS

/// The `a=setup` attribute: who starts the DTLS handshake (RFC 4145 section 4, RFC 8842 section 5).
public enum DTLSSetup: String, Hashable, Sendable {
    /// Will start the handshake (DTLS client).
    case active
    /// Will wait for it (DTLS server).
    case passive
    /// Either; only in offers (JSEP requires offers to say this, RFC 8829 section 5.2.1).
    case actpass
    /// Neither (no connection yet).
    case holdconn

    /// The role this side plays, or `nil` for `actpass`/`holdconn`.
    public var role: DTLSRole? {
        switch self {
        case .active: .client
        case .passive: .server
        case .actpass, .holdconn: nil
        }
    }

    /// The setup that answers this one from the other side, given which role we prefer when the offer lets us choose.
    /// - Parameters:
    ///   - preferred: What we answer to `actpass`: `.passive` or `.active`.
    /// - Returns: `nil` when no role fits (`holdconn`).
    public func answer(preferring preferred: DTLSSetup) -> DTLSSetup? {
        switch self {
        case .active: .passive
        case .passive: .active
        case .actpass: preferred == .active ? .active : .passive
        case .holdconn: nil
        }
    }
}
