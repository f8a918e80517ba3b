/// What a `NACKResponder` did with the NACKs it was given.
public struct NACKResponderStatistics: Hashable, Sendable {
    /// Generic NACK messages received for our media SSRC.
    public var nacksReceived = 0
    /// NACK messages for another media SSRC (not answered).
    public var nacksForOtherSSRC = 0
    /// Sequence numbers asked for, in total.
    public var packetsRequested = 0
    /// Packets chosen for retransmission.
    public var packetsRetransmitted = 0
    /// Bytes of those packets (the original packets' sizes).
    public var bytesRetransmitted = 0
    /// Of `packetsRetransmitted`, the extra copies sent for packets asked for again after their retransmission.
    public var extraCopies = 0
    /// Requests for packets never sent, already overwritten, or too old.
    public var ignoredNotInHistory = 0
    /// Requests for packets resent less than one RTT (plus the margin) ago.
    public var ignoredTooSoon = 0
    /// Requests refused because the retransmission budget was spent.
    public var ignoredOverBudget = 0

    /// Creates zeroed statistics.
    public init() {}
}
