/// What one call to `AdaptiveH264Encoder.encode` produced: the encoder's result for the frame and, when this frame
/// is the first at a new size, the change.
public struct AdaptiveEncodeResult: Sendable {
    /// The access unit with its statistics, or the skip with its reason.
    public var output: EncodeResult
    /// Set on the first frame at a new size (an IDR with new SPS and PPS), nil otherwise.
    public var resolutionChange: ResolutionChange?

    /// Creates a result.
    /// - Parameters:
    ///   - output: the encoder's result.
    ///   - resolutionChange: the change, if this frame starts a new size.
    public init(output: EncodeResult, resolutionChange: ResolutionChange?) {
        self.output = output
        self.resolutionChange = resolutionChange
    }
}
