import H264

/// What one call to `H264Encoder.encode` produced: an access unit with its statistics, or a skipped frame with the
/// reason (never a silent gap).
public enum EncodeResult: Sendable {
    /// An encoded access unit.
    case frame(EncodedFrame, EncodeStatistics)
    /// No output for this input frame.
    case skipped(FrameSkipReason)

    /// The encoded frame, if any.
    public var encodedFrame: EncodedFrame? {
        if case .frame(let frame, _) = self { return frame }
        return nil
    }

    /// The statistics, if a frame was produced.
    public var statistics: EncodeStatistics? {
        if case .frame(_, let statistics) = self { return statistics }
        return nil
    }
}
