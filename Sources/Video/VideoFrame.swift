/// A raw picture in one of the pixel formats the encoder accepts; it is converted to I420 (and cropped and scaled to
/// the encoder's size) by `FrameConverter`.
public enum VideoFrame: Sendable, Equatable {
    /// Planar 4:2:0, the encoder's native input (passed through without a copy when the size matches).
    case i420(I420Frame)
    /// Semi-planar 4:2:0.
    case nv12(NV12Frame)
    /// 32-bit BGRA.
    case bgra(BGRAFrame)

    /// Width in pixels.
    public var width: Int {
        switch self {
        case .i420(let f): return f.width
        case .nv12(let f): return f.width
        case .bgra(let f): return f.width
        }
    }

    /// Height in rows.
    public var height: Int {
        switch self {
        case .i420(let f): return f.height
        case .nv12(let f): return f.height
        case .bgra(let f): return f.height
        }
    }
}
