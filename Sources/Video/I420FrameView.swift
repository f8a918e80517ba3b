/// A borrowed I420 picture: pointers to three planes that someone else owns (a camera's or a render loop's buffers,
/// an `I420Frame`), with their strides.
///
/// A view is valid only inside the closure that lends it (`I420Frame.withView(_:)`,
/// `FrameSource.withNextFrame(buffer:_:)`): it lets a frame reach the encoder
/// without being copied into an `I420Frame` first. Do not keep it or its pointers after the closure returns.
public struct I420FrameView {
    /// Luma width in samples.
    public let width: Int
    /// Luma height in rows.
    public let height: Int
    /// Bytes from one luma row to the next (at least `width`).
    public let strideY: Int
    /// Bytes from one chroma row to the next, for both U and V (at least `(width + 1) / 2`).
    public let strideUV: Int
    /// The luma plane: `height` rows of `strideY` bytes.
    public let y: UnsafePointer<UInt8>
    /// The Cb plane: `(height + 1) / 2` rows of `strideUV` bytes.
    public let u: UnsafePointer<UInt8>
    /// The Cr plane: `(height + 1) / 2` rows of `strideUV` bytes.
    public let v: UnsafePointer<UInt8>

    /// Chroma width in samples: `(width + 1) / 2`.
    public var chromaWidth: Int { (width + 1) / 2 }
    /// Chroma height in rows: `(height + 1) / 2`.
    public var chromaHeight: Int { (height + 1) / 2 }

    /// Describes three planes owned by the caller.
    /// - Parameters:
    ///   - width: luma width, at least 1.
    ///   - height: luma height, at least 1.
    ///   - strideY: luma stride, at least `width`.
    ///   - strideUV: chroma stride, at least `(width + 1) / 2`.
    ///   - y: the luma plane.
    ///   - u: the Cb plane.
    ///   - v: the Cr plane.
    /// - Throws: `VideoError.invalidFrameLayout` if the size or a stride does not fit.
    public init(width: Int, height: Int, strideY: Int, strideUV: Int, y: UnsafePointer<UInt8>,
                u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>) throws(VideoError) {
        guard width > 0, height > 0, strideY >= width, strideUV >= (width + 1) / 2 else {
            throw .invalidFrameLayout("I420 \(width)x\(height) strides \(strideY)/\(strideUV)")
        }
        self.init(unchecked: width, height: height, strideY: strideY, strideUV: strideUV, y: y, u: u, v: v)
    }

    /// Describes planes whose layout the caller has already checked (an `I420Frame`'s).
    init(unchecked width: Int, height: Int, strideY: Int, strideUV: Int, y: UnsafePointer<UInt8>,
         u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>) {
        self.width = width
        self.height = height
        self.strideY = strideY
        self.strideUV = strideUV
        self.y = y
        self.u = u
        self.v = v
    }

    /// Whether the picture is `width` x `height`.
    /// - Parameters:
    ///   - width: the width to compare with.
    ///   - height: the height to compare with.
    public func hasSize(width: Int, height: Int) -> Bool { self.width == width && self.height == height }

    /// Copies the picture into an owned frame.
    /// - Returns: a tightly packed copy.
    public func makeFrame() -> I420Frame {
        var frame = I420Frame(width: width, height: height)
        copy(into: &frame)
        return frame
    }

    /// Copies the picture into `frame`, row by row (strides may differ), replacing `frame` with a tightly packed
    /// buffer only if its size differs.
    /// - Parameter frame: the destination, reused.
    public func copy(into frame: inout I420Frame) {
        if frame.width != width || frame.height != height {
            frame = I420Frame(width: width, height: height)
        }
        let cw = chromaWidth, dsy = frame.strideY, dsuv = frame.strideUV
        frame.withUnsafeMutablePlanes { dy, du, dv in
            for row in 0..<height {
                (dy + row * dsy).update(from: y + row * strideY, count: width)
            }
            for row in 0..<chromaHeight {
                (du + row * dsuv).update(from: u + row * strideUV, count: cw)
                (dv + row * dsuv).update(from: v + row * strideUV, count: cw)
            }
        }
    }
}

extension I420Frame {
    /// Lends this frame's planes as a view.
    /// - Parameter body: receives the view, valid only during the call.
    /// - Returns: what `body` returns.
    public func withView<R, E: Error>(_ body: (I420FrameView) throws(E) -> R) throws(E) -> R {
        let u = offsetU, v = offsetV
        let (width, height, strideY, strideUV) = (self.width, self.height, self.strideY, self.strideUV)
        let result: Result<R, E> = data.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            do throws(E) {
                return .success(try body(I420FrameView(unchecked: width, height: height, strideY: strideY,
                                                       strideUV: strideUV, y: base, u: base + u, v: base + v)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
