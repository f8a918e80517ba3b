/// A rectangle of a source picture, in luma samples, with an even origin so that 4:2:0 chroma stays aligned.
public struct CropRect: Sendable, Equatable {
    /// Left edge.
    public var x: Int
    /// Top edge.
    public var y: Int
    /// Width.
    public var width: Int
    /// Height.
    public var height: Int

    /// Creates a rectangle.
    /// - Parameters:
    ///   - x: left edge.
    ///   - y: top edge.
    ///   - width: width.
    ///   - height: height.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The largest centred rectangle of the source with the target's aspect ratio, as WebRTC's `VideoAdapter` crops
    /// before scaling: the source's longer dimension (relative to the target) is trimmed equally on both sides.
    /// Sizes are rounded down to even and the origin to even, so chroma planes crop at whole samples.
    /// - Parameters:
    ///   - sourceWidth: source width.
    ///   - sourceHeight: source height.
    ///   - targetWidth: target width.
    ///   - targetHeight: target height.
    public static func centred(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int) -> CropRect {
        var width = sourceWidth
        var height = sourceHeight
        // Compare aspect ratios without division: source wider than target when sw/sh > tw/th.
        if sourceWidth * targetHeight > sourceHeight * targetWidth {
            width = sourceHeight * targetWidth / targetHeight
        } else if sourceWidth * targetHeight < sourceHeight * targetWidth {
            height = sourceWidth * targetHeight / targetWidth
        }
        if width < sourceWidth { width &= ~1 }
        if height < sourceHeight { height &= ~1 }
        width = max(width, 1)
        height = max(height, 1)
        let x = ((sourceWidth - width) / 2) & ~1
        let y = ((sourceHeight - height) / 2) & ~1
        return CropRect(x: x, y: y, width: width, height: height)
    }
}
