/// Errors of the Video module: frame layouts, libyuv conversions and PSNR inputs.
public enum VideoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A frame's strides or byte count do not match its size.
    case invalidFrameLayout(String)
    /// A libyuv function returned a non-zero status (kept raw).
    case libyuv(function: String, status: Int32)
    /// Two frames that must have the same size do not.
    case sizeMismatch(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    /// A size is not usable (zero, negative or odd where 4:2:0 needs even).
    case invalidSize(width: Int, height: Int)

    /// A readable explanation.
    public var description: String {
        switch self {
        case .invalidFrameLayout(let what): return "invalid frame layout: \(what)"
        case .libyuv(let function, let status): return "libyuv \(function) failed with status \(status)"
        case .sizeMismatch(let ew, let eh, let w, let h): return "frame is \(w)x\(h), expected \(ew)x\(eh)"
        case .invalidSize(let w, let h): return "invalid frame size \(w)x\(h)"
        }
    }
}
