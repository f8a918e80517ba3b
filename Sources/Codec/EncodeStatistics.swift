/// Per-frame figures reported with each encoded access unit.
public struct EncodeStatistics: Sendable, Equatable {
    /// Bytes of the access unit (start codes included).
    public var size: Int
    /// QP of the frame: OpenH264's `SEncoderStatistics.uiAverageFrameQP` when it reports one (read through
    /// `ENCODER_OPTION_GET_STATISTICS`); OpenH264 2.3.1 leaves that field at 0, so otherwise the QP the picture starts
    /// with, read from its first slice header (`26 + pic_init_qp_minus26 + slice_qp_delta`, H.264 7.4.3); nil if
    /// neither is available (Docs/Encoder.md).
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
