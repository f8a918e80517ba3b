/// Which side of the DTLS handshake an endpoint plays. With SDP, `a=setup:active` is the client and
/// `a=setup:passive` the server (RFC 5763 section 5, RFC 8842 section 5.3).
public enum DTLSRole: Hashable, Sendable {
    /// Sends ClientHello (`a=setup:active`).
    case client
    /// Waits for ClientHello (`a=setup:passive`).
    case server
}
