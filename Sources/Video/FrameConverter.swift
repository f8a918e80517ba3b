internal import CYUV

/// Turns any `VideoFrame` into an I420 frame of a fixed size, as WebRTC adapts camera frames for an encoder:
/// centre-crop to the target aspect ratio, convert to I420 (libyuv `NV12ToI420`, `ARGBToI420`) and scale
/// (libyuv `I420Scale`, box filter) or copy (`I420Copy`).
///
/// The converter keeps one scratch buffer for the convert-then-scale case and the caller passes the destination, so
/// that in steady state no memory is allocated per frame.
public struct FrameConverter: Sendable {
    /// Output width.
    public let width: Int
    /// Output height.
    public let height: Int
    /// Holds a converted but not yet scaled picture (NV12/BGRA input of another size).
    private var scratch: I420Frame?

    /// Creates a converter to `width` x `height`.
    /// - Parameters:
    ///   - width: output width (positive).
    ///   - height: output height (positive).
    /// - Throws: `VideoError.invalidSize` if the size is not positive.
    public init(width: Int, height: Int) throws(VideoError) {
        guard width > 0, height > 0 else { throw .invalidSize(width: width, height: height) }
        self.width = width
        self.height = height
    }

    /// Converts `frame` into `output`, which is replaced by a new buffer only if its size differs from the converter's.
    /// - Parameters:
    ///   - frame: the input picture, any format and size.
    ///   - output: the destination; its storage is reused.
    /// - Throws: `VideoError.libyuv` if a conversion fails.
    public mutating func convert(_ frame: VideoFrame, into output: inout I420Frame) throws(VideoError) {
        if output.width != width || output.height != height {
            output = I420Frame(width: width, height: height)
        }
        let crop = CropRect.centred(sourceWidth: frame.width, sourceHeight: frame.height,
                                    targetWidth: width, targetHeight: height)
        switch frame {
        case .i420(let source):
            try source.withView { (view) throws(VideoError) in try FrameConverter.copyOrScale(view, crop: crop, into: &output) }
        case .nv12(let source):
            try convertToI420(crop: crop, into: &output) { (crop, destination) throws(VideoError) in
                try FrameConverter.nv12ToI420(source, crop: crop, into: &destination)
            }
        case .bgra(let source):
            try convertToI420(crop: crop, into: &output) { (crop, destination) throws(VideoError) in
                try FrameConverter.bgraToI420(source, crop: crop, into: &destination)
            }
        }
    }

    /// Runs `toI420` (a libyuv conversion of the `crop` region of another format) straight into `output` when the
    /// crop already has the output's size; otherwise into the scratch buffer, which is then scaled into `output`.
    private mutating func convertToI420(
        crop: CropRect, into output: inout I420Frame, _ toI420: (CropRect, inout I420Frame) throws(VideoError) -> Void
    ) throws(VideoError) {
        guard crop.width != width || crop.height != height else { return try toI420(crop, &output) }
        var temp = takeScratch(width: crop.width, height: crop.height)
        try toI420(crop, &temp)
        try temp.withView { (view) throws(VideoError) in
            try FrameConverter.copyOrScale(view, crop: CropRect(x: 0, y: 0, width: crop.width, height: crop.height),
                                           into: &output)
        }
        scratch = temp
    }

    /// Crops and scales (or copies) a borrowed I420 picture into `output`, which is replaced by a new buffer only if
    /// its size differs from the converter's.
    /// - Parameters:
    ///   - view: the input picture, any size.
    ///   - output: the destination; its storage is reused.
    /// - Throws: `VideoError.libyuv` if libyuv fails.
    public func convert(_ view: I420FrameView, into output: inout I420Frame) throws(VideoError) {
        if output.width != width || output.height != height {
            output = I420Frame(width: width, height: height)
        }
        let crop = CropRect.centred(sourceWidth: view.width, sourceHeight: view.height,
                                    targetWidth: width, targetHeight: height)
        try FrameConverter.copyOrScale(view, crop: crop, into: &output)
    }

    /// Converts `frame` into a new I420 frame (allocating form of `convert(_:into:)`).
    /// - Parameter frame: the input picture.
    /// - Returns: the converted picture.
    /// - Throws: `VideoError.libyuv` if a conversion fails.
    public mutating func convert(_ frame: VideoFrame) throws(VideoError) -> I420Frame {
        var output = I420Frame(width: width, height: height)
        try convert(frame, into: &output)
        return output
    }

    /// Moves the scratch buffer out (so that writing to it does not copy) or makes one of the needed size.
    private mutating func takeScratch(width: Int, height: Int) -> I420Frame {
        if let existing = scratch, existing.width == width, existing.height == height {
            scratch = nil
            return existing
        }
        return I420Frame(width: width, height: height)
    }

    private static func copyOrScale(_ source: I420FrameView, crop: CropRect, into output: inout I420Frame) throws(VideoError) {
        let sy = source.strideY, suv = source.strideUV
        let yOffset = crop.y * sy + crop.x
        let uvOffset = (crop.y / 2) * suv + crop.x / 2
        let dy = Int32(output.strideY), duv = Int32(output.strideUV)
        let dw = Int32(output.width), dh = Int32(output.height)
        let sameSize = crop.width == output.width && crop.height == output.height
        let (y, u, v) = (source.y, source.u, source.v)
        let status: Int32 = output.withUnsafeMutablePlanes { oy, ou, ov in
                if sameSize {
                    return I420Copy(y + yOffset, Int32(sy), u + uvOffset, Int32(suv), v + uvOffset, Int32(suv),
                                    oy, dy, ou, duv, ov, duv, dw, dh)
                }
                return I420Scale(y + yOffset, Int32(sy), u + uvOffset, Int32(suv), v + uvOffset, Int32(suv),
                                 Int32(crop.width), Int32(crop.height),
                                 oy, dy, ou, duv, ov, duv, dw, dh, kFilterBox)
        }
        try LibYUV.check(status, sameSize ? "I420Copy" : "I420Scale")
    }

    private static func nv12ToI420(_ source: NV12Frame, crop: CropRect, into output: inout I420Frame) throws(VideoError) {
        let yOffset = crop.y * source.strideY + crop.x
        let uvOffset = source.offsetUV + (crop.y / 2) * source.strideUV + crop.x  // x is even: 2 bytes per UV pair
        let sy = Int32(source.strideY), suv = Int32(source.strideUV)
        let dy = Int32(output.strideY), duv = Int32(output.strideUV)
        let status: Int32 = source.data.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            return output.withUnsafeMutablePlanes { oy, ou, ov in
                NV12ToI420(base + yOffset, sy, base + uvOffset, suv, oy, dy, ou, duv, ov, duv,
                           Int32(crop.width), Int32(crop.height))
            }
        }
        try LibYUV.check(status, "NV12ToI420")
    }

    private static func bgraToI420(_ source: BGRAFrame, crop: CropRect, into output: inout I420Frame) throws(VideoError) {
        let offset = crop.y * source.stride + crop.x * BGRAFrame.bytesPerPixel
        let stride = Int32(source.stride)
        let dy = Int32(output.strideY), duv = Int32(output.strideUV)
        let status: Int32 = source.data.withUnsafeBufferPointer { buffer in
            output.withUnsafeMutablePlanes { oy, ou, ov in
                // BGRA in memory is libyuv's "ARGB" (a little-endian 0xAARRGGBB word).
                ARGBToI420(buffer.baseAddress! + offset, stride, oy, dy, ou, duv, ov, duv,
                           Int32(crop.width), Int32(crop.height))
            }
        }
        try LibYUV.check(status, "ARGBToI420")
    }
}
