/// Per-frame figures reported with each encoded access unit.
public struct EncodeStatistics: Sendable, Equatable {
    /// Bytes of the access unit (start codes included).
    public var size: Int
    /// Average QP of the frame as OpenH264 reports it (`SEncoderStatistics.uiAverageFrameQP` of the last encoded
    /// frame, read through `ENCODER_OPTION_GET_STATISTICS`); nil when unavailable. OpenH264 2.3.1 leaves that field
    /// at 0, so with the system library this is nil (Docs/Encoder.md).
    public var averageQP: Int?
    /// Wall time spent in conversion and `EncodeFrame`.
    public var encodeDuration: Duration
    /// Whether the encoder was asked for an IDR for this frame (by the caller or by the keyframe interval).
    public var keyframeRequested: Bool

    /// Creates statistics.
    /// - Parameters:
    ///   - size: bytes.
    ///   - averageQP: average QP or nil.
    ///   - encodeDuration: time spent.
    ///   - keyframeRequested: whether an IDR was requested.
    public init(size: Int, averageQP: Int?, encodeDuration: Duration, keyframeRequested: Bool) {
        self.size = size
        self.averageQP = averageQP
        self.encodeDuration = encodeDuration
        self.keyframeRequested = keyframeRequested
    }
}
