/// A raw picture in planar YUV 4:2:0 (I420): a full-resolution Y plane followed by quarter-resolution U and V planes,
/// held in one contiguous buffer so that it can be reused frame after frame without allocating.
///
/// Chroma planes are `(width + 1) / 2` by `(height + 1) / 2` samples. Rows may be padded: `strideY` and `strideUV`
/// are the distances in bytes between the starts of two rows.
public struct I420Frame: Sendable, Equatable {
    /// Luma width in samples.
    public let width: Int
    /// Luma height in rows.
    public let height: Int
    /// Bytes from one luma row to the next (at least `width`).
    public let strideY: Int
    /// Bytes from one chroma row to the next, for both U and V (at least `chromaWidth`).
    public let strideUV: Int
    /// The three planes, Y then U then V, each `stride * rows` bytes.
    public internal(set) var data: [UInt8]

    /// Chroma width in samples: `(width + 1) / 2`.
    public var chromaWidth: Int { (width + 1) / 2 }
    /// Chroma height in rows: `(height + 1) / 2`.
    public var chromaHeight: Int { (height + 1) / 2 }
    /// Offset of the U plane in `data`.
    public var offsetU: Int { strideY * height }
    /// Offset of the V plane in `data`.
    public var offsetV: Int { offsetU + strideUV * chromaHeight }

    /// The number of bytes a frame of this shape needs.
    /// - Parameters:
    ///   - height: luma rows.
    ///   - strideY: luma row stride.
    ///   - strideUV: chroma row stride.
    public static func byteCount(height: Int, strideY: Int, strideUV: Int) -> Int {
        strideY * height + 2 * strideUV * ((height + 1) / 2)
    }

    /// Creates a black frame (Y = 16, U = V = 128, video range) with tight or given strides.
    /// - Parameters:
    ///   - width: luma width, at least 1.
    ///   - height: luma height, at least 1.
    ///   - strideY: luma stride, defaults to `width`.
    ///   - strideUV: chroma stride, defaults to `(width + 1) / 2`.
    public init(width: Int, height: Int, strideY: Int? = nil, strideUV: Int? = nil) {
        precondition(width > 0 && height > 0, "I420Frame needs a positive size")
        self.width = width
        self.height = height
        self.strideY = max(strideY ?? width, width)
        self.strideUV = max(strideUV ?? (width + 1) / 2, (width + 1) / 2)
        let lumaBytes = self.strideY * height
        var bytes = [UInt8](repeating: 128, count: I420Frame.byteCount(height: height, strideY: self.strideY,
                                                                         strideUV: self.strideUV))
        bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.update(repeating: I420Frame.blackLuma, count: lumaBytes)
        }
        self.data = bytes
    }

    /// Creates a frame over existing bytes.
    /// - Parameters:
    ///   - width: luma width.
    ///   - height: luma height.
    ///   - strideY: luma stride (at least `width`).
    ///   - strideUV: chroma stride (at least `(width + 1) / 2`).
    ///   - data: Y, U and V planes back to back.
    /// - Throws: `VideoError.invalidFrameLayout` if the strides or the byte count do not fit the size.
    public init(width: Int, height: Int, strideY: Int, strideUV: Int, data: [UInt8]) throws(VideoError) {
        guard width > 0, height > 0, strideY >= width, strideUV >= (width + 1) / 2,
              data.count >= I420Frame.byteCount(height: height, strideY: strideY, strideUV: strideUV)
        else {
            throw .invalidFrameLayout("I420 \(width)x\(height) strides \(strideY)/\(strideUV) with \(data.count) bytes")
        }
        self.width = width
        self.height = height
        self.strideY = strideY
        self.strideUV = strideUV
        self.data = data
    }

    /// Luma value of black in video range (ITU-R BT.601/709: 16).
    public static let blackLuma: UInt8 = 16

    /// Whether rows are not padded (strides equal the plane widths), as Y4M stores them.
    public var isTightlyPacked: Bool { strideY == width && strideUV == chromaWidth }

    /// Calls `body` with read-only pointers to the Y, U and V planes.
    /// - Parameter body: receives the three plane pointers.
    public func withUnsafePlanes<R>(
        _ body: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>) throws -> R
    ) rethrows -> R {
        let u = offsetU, v = offsetV
        return try data.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            return try body(base, base + u, base + v)
        }
    }

    /// Calls `body` with writable pointers to the Y, U and V planes (copying the storage first if it is shared).
    /// - Parameter body: receives the three plane pointers.
    public mutating func withUnsafeMutablePlanes<R>(
        _ body: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) throws -> R
    ) rethrows -> R {
        let u = offsetU, v = offsetV
        return try data.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            return try body(base, base + u, base + v)
        }
    }

    /// Whether `other` has the same width and height.
    /// - Parameter other: the frame to compare with.
    public func hasSameSize(as other: I420Frame) -> Bool { width == other.width && height == other.height }
}
