/// How long after their capture frames were decoded, in milliseconds: the receiver's wall clock when a picture came
/// out of the decoder less the capture time the sender's `abs-capture-time` gives for its frame (carried, or
/// interpolated from the last value along the RTP timestamps). Meaningful when both wall clocks agree (one machine,
/// or NTP-synchronised hosts): a clock offset shows up one for one, so values can be negative.
public struct CaptureToDecoded: Codable, Sendable, Equatable {
    /// Frames measured.
    public var frames: Int = 0
    /// The median over the most recent `CaptureLatencyTracker.window` frames.
    public var p50: Double = 0
    /// The 95th percentile over the same frames.
    public var p95: Double = 0
    /// The largest value of any frame measured.
    public var max: Double = 0

    /// Creates an empty summary.
    public init() {}
}
