/// What the `Pacer` does when a queue is full.
public enum PacerDropPolicy: Hashable, Sendable {
    /// Drop the oldest queued packet of the same kind (stale video is worth least; a NACK can still recover it from
    /// the history).
    case dropOldest
    /// Refuse the new packet.
    case dropNewest
}
