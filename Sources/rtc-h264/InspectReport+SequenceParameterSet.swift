extension InspectReport {
    /// One sequence parameter set; each field is described in Docs/Inspect.md (`sequenceParameterSets[]`).
    struct SequenceParameterSet: Codable, Equatable, Sendable {
        /// Offset of its NAL header byte in the stream.
        var offset: Int
        var id: Int
        var profileIdc: Int
        /// The profile named by RFC 6184 Table 5, or "profile_idc N".
        var profile: String
        /// The constraint-flag byte (`profile-iop`).
        var constraintFlags: Int
        var levelIdc: Int
        /// "3.1", "1b", ...
        var level: String
        /// RFC 6184 `profile-level-id`, six hex digits.
        var profileLevelId: String
        var chromaFormatIdc: Int
        var bitDepthLuma: Int
        var bitDepthChroma: Int
        var scalingMatrixPresent: Bool
        var log2MaxFrameNum: Int
        var picOrderCntType: Int
        var maxNumRefFrames: Int
        var frameMbsOnly: Bool
        var mbAdaptiveFrameField: Bool
        var direct8x8Inference: Bool
        /// Frame size before cropping, in luma samples.
        var codedWidth: Int
        var codedHeight: Int
        /// Crop offsets in crop units, when frame cropping is on.
        var crop: Crop?
        /// Output size after cropping, in luma samples.
        var width: Int
        var height: Int
        var vuiPresent: Bool
    }
}
