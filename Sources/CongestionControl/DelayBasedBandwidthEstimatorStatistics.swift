/// What a `DelayBasedBandwidthEstimator` has seen.
public struct DelayBasedBandwidthEstimatorStatistics: Hashable, Sendable {
    /// Transport-wide feedback messages processed.
    public var feedbackMessages = 0
    /// Packets the feedback reported received and that we had sent.
    public var packetsAcknowledged = 0
    /// Packets the feedback reported not received.
    public var packetsReportedLost = 0
    /// Feedback entries for sequence numbers we have no record of (never sent, or forgotten).
    public var unknownPackets = 0
    /// Probe clusters started.
    public var probesSent = 0
    /// Probes whose measured rate raised the estimate.
    public var probesRaisedEstimate = 0
    /// Times the detector signalled overuse.
    public var overuseEvents = 0
    /// Overuse cuts taken while the sender was application-limited (it sent well under the estimate and the path
    /// delivered all of it).
    public var applicationLimitedCuts = 0
    /// Times the acknowledged throughput rose above the link capacity estimate's upper bound (the estimate made when
    /// overuse was last seen, plus three deviations), so that the estimate was dropped: the path grew.
    public var capacityOutgrown = 0

    /// Creates zeroed statistics.
    public init() {}
}
