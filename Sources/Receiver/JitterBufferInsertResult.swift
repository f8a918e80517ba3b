/// What a `JitterBuffer` did with an inserted packet.
public enum JitterBufferInsertResult: Hashable, Sendable {
    /// Stored, to be released in order.
    case stored
    /// The same sequence number is already buffered; the new copy was discarded.
    case duplicate
    /// Its place has already been released or skipped; discarded.
    case late
    /// It was a capacity or more ahead of the next expected packet (a jump, e.g. after a long outage or a sender
    /// restart): what was buffered was dropped (counted in `JitterBuffer.droppedOnRestart`) and the buffer restarted
    /// at this packet.
    case restarted
}
