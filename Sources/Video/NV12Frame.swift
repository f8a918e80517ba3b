/// A raw picture in semi-planar YUV 4:2:0 (NV12): a Y plane followed by one plane of interleaved U and V samples, the
/// layout cameras and hardware decoders produce.
public struct NV12Frame: Sendable, Equatable {
    /// Luma width in samples.
    public let width: Int
    /// Luma height in rows.
    public let height: Int
    /// Bytes from one luma row to the next.
    public let strideY: Int
    /// Bytes from one interleaved UV row to the next (at least `2 * ((width + 1) / 2)`).
    public let strideUV: Int
    /// The Y plane (`strideY * height` bytes) then the UV plane (`strideUV * ((height + 1) / 2)` bytes).
    public internal(set) var data: [UInt8]

    /// Offset of the UV plane in `data`.
    public var offsetUV: Int { strideY * height }

    /// Creates a frame over existing bytes.
    /// - Parameters:
    ///   - width: luma width.
    ///   - height: luma height.
    ///   - strideY: luma stride, at least `width`.
    ///   - strideUV: UV stride, at least `2 * ((width + 1) / 2)`.
    ///   - data: the two planes back to back.
    /// - Throws: `VideoError.invalidFrameLayout` if the strides or the byte count do not fit the size.
    public init(width: Int, height: Int, strideY: Int, strideUV: Int, data: [UInt8]) throws(VideoError) {
        guard width > 0, height > 0, strideY >= width, strideUV >= 2 * ((width + 1) / 2),
              data.count >= strideY * height + strideUV * ((height + 1) / 2)
        else {
            throw .invalidFrameLayout("NV12 \(width)x\(height) strides \(strideY)/\(strideUV) with \(data.count) bytes")
        }
        self.width = width
        self.height = height
        self.strideY = strideY
        self.strideUV = strideUV
        self.data = data
    }
}
