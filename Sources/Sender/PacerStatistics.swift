/// What the `Pacer` did.
public struct PacerStatistics: Hashable, Sendable {
    /// Media packets sent (dequeued).
    public var mediaPacketsSent = 0
    /// Retransmissions sent (dequeued).
    public var retransmissionsSent = 0
    /// FlexFEC packets released (queued with the media, in order).
    public var fecPacketsSent = 0
    /// Probe padding packets sent (dequeued).
    public var probePacketsSent = 0
    /// Bytes sent (dequeued).
    public var bytesSent = 0
    /// Media packets dropped because the media queue was full.
    public var mediaPacketsDropped = 0
    /// Retransmissions dropped because the retransmission queue was full.
    public var retransmissionsDropped = 0
    /// The longest time a packet waited in the queue.
    public var longestQueueDelay: Duration = .zero

    /// Creates zeroed statistics.
    public init() {}
}
