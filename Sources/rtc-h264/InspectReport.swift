import H264

/// What `rtc-h264 inspect` reports about an Annex-B stream; encoded as JSON for `--json` (shape: Docs/Inspect.md).
struct InspectReport: Codable, Equatable, Sendable {
    /// One NAL unit.
    struct NALUnit: Codable, Equatable, Sendable {
        /// `nal_unit_type` (0...31).
        var type: Int
        /// Short name: "sps", "pps", "sei", "idr", "slice", "aud", ...
        var name: String
        /// Offset of the NAL header byte in the stream.
        var offset: Int
        /// Size in bytes, header included, start code and trailing zeros excluded.
        var size: Int
        /// `nal_ref_idc`.
        var nalRefIdc: Int
    }

    /// One access unit.
    struct AccessUnit: Codable, Equatable, Sendable {
        /// Position in the stream, from 0.
        var index: Int
        /// Offset of its first byte (its first start code) in the stream.
        var offset: Int
        /// Its size in bytes, start codes included.
        var size: Int
        /// Whether it holds an IDR slice.
        var keyframe: Bool
        /// Its NAL units.
        var nalUnits: [NALUnit]
    }

    /// One sequence parameter set.
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

    /// Frame crop offsets, in crop units.
    struct Crop: Codable, Equatable, Sendable {
        var left: Int
        var right: Int
        var top: Int
        var bottom: Int
    }

    /// One picture parameter set.
    struct PictureParameterSet: Codable, Equatable, Sendable {
        /// Offset of its NAL header byte in the stream.
        var offset: Int
        var id: Int
        var spsId: Int
        /// "cabac" or "cavlc".
        var entropyCoding: String
        var bottomFieldPicOrderInFramePresent: Bool
        var numSliceGroups: Int
        var transform8x8Mode: Bool
        var scalingMatrixPresent: Bool
    }

    /// Size of the input in bytes.
    var byteCount: Int
    /// Number of NAL units.
    var nalUnitCount: Int
    /// The access units, in order.
    var accessUnits: [AccessUnit]
    /// Every SPS of the stream in order of appearance (repeats included).
    var sequenceParameterSets: [SequenceParameterSet]
    /// Every PPS of the stream in order of appearance (repeats included).
    var pictureParameterSets: [PictureParameterSet]
}
