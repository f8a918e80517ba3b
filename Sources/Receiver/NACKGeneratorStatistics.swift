/// What a `NACKGenerator` saw and did.
public struct NACKGeneratorStatistics: Hashable, Sendable {
    /// Sequence numbers found missing (gaps in arrival).
    public var packetsMissing = 0
    /// Sequence numbers put in NACKs, counting repeats.
    public var sequenceNumbersNACKed = 0
    /// Missing packets that arrived as retransmissions.
    public var recoveredByRetransmission = 0
    /// Missing packets that arrived late on their own (reordering).
    public var recoveredByReordering = 0
    /// Missing packets given up on (too many tries, too old, or too many missing at once).
    public var givenUp = 0
    /// Times a keyframe was asked for because repair was hopeless.
    public var keyframeRequests = 0

    /// Creates zeroed statistics.
    public init() {}
}
