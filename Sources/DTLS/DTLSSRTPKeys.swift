public import SRTP

/// The SRTP keys a DTLS-SRTP handshake produced, split by direction for this endpoint (RFC 5764 section 4.2).
///
/// Feed them to the existing sessions: `SRTPSession(direction: .outbound, suite: keys.suite, key: keys.localKey)`
/// and `SRTPSession(direction: .inbound, suite: keys.suite, key: keys.remoteKey)`. The keys are never printed.
public struct DTLSSRTPKeys: Sendable, Equatable, CustomStringConvertible {
    /// The negotiated protection profile as an SRTP suite.
    public let suite: SRTPSuite
    /// The key and salt this endpoint protects with (the client's write key when we were the client).
    public let localKey: SRTPMasterKey
    /// The key and salt the peer protects with, for unprotecting what it sends.
    public let remoteKey: SRTPMasterKey

    /// Creates keys.
    /// - Parameters:
    ///   - suite: The suite.
    ///   - localKey: Our write key and salt.
    ///   - remoteKey: The peer's write key and salt.
    public init(suite: SRTPSuite, localKey: SRTPMasterKey, remoteKey: SRTPMasterKey) {
        self.suite = suite
        self.localKey = localKey
        self.remoteKey = remoteKey
    }

    /// The suite only; keys are redacted.
    public var description: String { "DTLS-SRTP keys for \(suite.sdpName) (local and remote, redacted)" }
}
