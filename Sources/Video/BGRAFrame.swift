/// A raw picture of 32-bit pixels stored B, G, R, A in memory (Core Video's `kCVPixelFormatType_32BGRA`; libyuv calls
/// this layout "ARGB" because it names formats by their little-endian 32-bit word).
public struct BGRAFrame: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in rows.
    public let height: Int
    /// Bytes from one row to the next (at least `4 * width`).
    public let stride: Int
    /// The pixels, `stride * height` bytes.
    public internal(set) var data: [UInt8]

    /// Bytes per pixel.
    public static let bytesPerPixel = 4

    /// Creates a frame over existing bytes.
    /// - Parameters:
    ///   - width: width in pixels.
    ///   - height: height in rows.
    ///   - stride: bytes per row, at least `4 * width`.
    ///   - data: the pixels.
    /// - Throws: `VideoError.invalidFrameLayout` if the stride or the byte count do not fit the size.
    public init(width: Int, height: Int, stride: Int, data: [UInt8]) throws(VideoError) {
        guard width > 0, height > 0, stride >= BGRAFrame.bytesPerPixel * width, data.count >= stride * height else {
            throw .invalidFrameLayout("BGRA \(width)x\(height) stride \(stride) with \(data.count) bytes")
        }
        self.width = width
        self.height = height
        self.stride = stride
        self.data = data
    }
}
