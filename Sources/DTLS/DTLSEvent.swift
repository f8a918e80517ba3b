/// What a DTLS endpoint reports to its owner.
public enum DTLSEvent: Sendable, Equatable {
    /// The handshake finished, the peer's certificate matched its fingerprint, and SRTP keys were exported.
    case connected(DTLSSRTPKeys)
    /// The peer closed the association (close_notify).
    case closed
}
