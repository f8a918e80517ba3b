public import STUN

/// A candidate pair of a full ICE agent's checklist (RFC 8445 section 6.1.2).
public struct ICECandidatePair: Hashable, Sendable {
    /// The pair's check state (RFC 8445 section 6.1.2.6).
    public enum State: Hashable, Sendable {
        /// Not checked yet.
        case waiting
        /// A check is outstanding.
        case inProgress
        /// A check succeeded: the pair is valid.
        case succeeded
        /// Every transmission of a check went unanswered, or was answered with an error.
        case failed
    }

    /// The local socket (the candidate's base).
    public var local: TransportAddress
    /// The local candidate's priority.
    public var localPriority: UInt32
    /// The remote candidate's address.
    public var remote: TransportAddress
    /// The remote candidate's priority.
    public var remotePriority: UInt32
    /// The check state.
    public var state: State = .waiting
    /// Whether the pair is nominated (USE-CANDIDATE sent and answered, or received while controlled).
    public var nominated = false

    /// The pair priority (RFC 8445 section 6.1.2.3): `2^32 * min(G, D) + 2 * max(G, D) + (G > D ? 1 : 0)`, where G
    /// is the controlling agent's candidate priority and D the controlled agent's.
    /// - Parameters:
    ///   - controlling: Whether we are the controlling agent.
    public func priority(controlling: Bool) -> UInt64 {
        let g = UInt64(controlling ? localPriority : remotePriority)
        let d = UInt64(controlling ? remotePriority : localPriority)
        return (min(g, d) << 32) + 2 * max(g, d) + (g > d ? 1 : 0)
    }
}
