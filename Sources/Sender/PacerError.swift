/// Why a pacer could not be configured.
public enum PacerError: Error, Hashable, Sendable {
    /// The pacing factor is not a finite value in 1...10.
    case invalidPacingFactor(Double)
    /// A queue capacity is not in 1...65536 packets.
    case invalidQueueCapacity(Int)
    /// The burst interval is not in 0...1 s, or the queue time limit not in 10 ms...60 s.
    case invalidDuration(Duration)
}
