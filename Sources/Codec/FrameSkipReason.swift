/// Why the encoder produced nothing for an input frame.
public enum FrameSkipReason: Sendable, Hashable, CustomStringConvertible {
    /// OpenH264's rate control dropped the frame to keep within the target and ceiling (`videoFrameTypeSkip` with
    /// `bEnableFrameSkip` on): its virtual buffer would overflow.
    case rateControl
    /// OpenH264 returned success with an empty bitstream (`iFrameSizeInBytes` 0).
    case emptyOutput

    /// A readable explanation.
    public var description: String {
        switch self {
        case .rateControl: return "rate control (buffer full)"
        case .emptyOutput: return "encoder returned no data"
        }
    }
}
