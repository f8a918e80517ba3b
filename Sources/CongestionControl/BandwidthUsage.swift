/// The overuse detector's verdict (draft-ietf-rmcat-gcc-02 section 5.4; libwebrtc `BandwidthUsage`).
public enum BandwidthUsage: Hashable, Sendable {
    /// Queuing delay is stable.
    case normal
    /// Queuing delay grows: the path is over capacity.
    case overusing
    /// Queuing delay shrinks: a queue is draining.
    case underusing
}
