/// The state of a DTLS endpoint.
public enum DTLSState: Hashable, Sendable {
    /// Created, `start(now:)` not yet called.
    case new
    /// Handshake flights are being exchanged.
    case handshaking
    /// The handshake is complete and the keys were handed out.
    case connected
    /// Closed by either side.
    case closed
    /// The handshake failed; the error was thrown from the call that failed.
    case failed
}
