/// Counters an ICE agent keeps, for statistics and security monitoring.
public struct ICEStatistics: Hashable, Sendable {
    /// Binding requests answered with a success response.
    public var requestsAnswered = 0
    /// Error responses sent (487 Role Conflict, 420 Unknown Attribute).
    public var errorResponsesSent = 0
    /// STUN messages ignored because MESSAGE-INTEGRITY was missing or wrong, or USERNAME named other credentials.
    public var integrityFailures = 0
    /// Datagrams that were not well-formed STUN (bad header, attribute or FINGERPRINT).
    public var malformed = 0
    /// STUN messages of a class or method the agent does not handle (indications, stray responses).
    public var ignored = 0
    /// Role conflicts detected (RFC 8445 7.3.1.1).
    public var roleConflicts = 0
    /// Connectivity-check requests sent (controlling agent), retransmissions included.
    public var requestsSent = 0
    /// Success responses received that matched a transaction (controlling agent).
    public var responsesReceived = 0
    /// ICE restarts: new credentials on both sides (RFC 8445 section 9).
    public var restarts = 0

    /// All zero.
    public init() {}
}
