/// The `frame_crop_*_offset` fields of a sequence parameter set (H.264 7.4.2.1.1), in crop units
/// (``SequenceParameterSet/cropUnitX`` and ``SequenceParameterSet/cropUnitY`` samples each).
public struct FrameCropping: Hashable, Sendable {
    /// `frame_crop_left_offset`.
    public var left: Int
    /// `frame_crop_right_offset`.
    public var right: Int
    /// `frame_crop_top_offset`.
    public var top: Int
    /// `frame_crop_bottom_offset`.
    public var bottom: Int

    /// Creates crop offsets.
    /// - Parameters:
    ///   - left: `frame_crop_left_offset`.
    ///   - right: `frame_crop_right_offset`.
    ///   - top: `frame_crop_top_offset`.
    ///   - bottom: `frame_crop_bottom_offset`.
    public init(left: Int, right: Int, top: Int, bottom: Int) {
        self.left = left
        self.right = right
        self.top = top
        self.bottom = bottom
    }
}
