/// A parsed sequence parameter set (H.264 7.3.2.1.1), up to `vui_parameters_present_flag` (the VUI itself is not
/// parsed).
public struct SequenceParameterSet: Hashable, Sendable {
    /// `profile_idc` (66 Baseline, 77 Main, 88 Extended, 100 High, 110 High 10, 122 High 4:2:2, 244 High 4:4:4, ...).
    public var profileIdc: UInt8
    /// The byte after `profile_idc`: `constraint_set0_flag` (bit 7) ... `constraint_set5_flag` (bit 2) and
    /// `reserved_zero_2bits`; RFC 6184 calls it `profile-iop`.
    public var constraintFlags: UInt8
    /// `level_idc`: ten times the level number (31 for 3.1); 9 or 11 with constraint_set3 can mean level 1b.
    public var levelIdc: UInt8
    /// `seq_parameter_set_id` (0...31).
    public var id: Int
    /// `chroma_format_idc` (0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4); 1 when not coded.
    public var chromaFormatIdc: Int
    /// `separate_colour_plane_flag` (only with 4:4:4).
    public var separateColourPlaneFlag: Bool
    /// BitDepthY = 8 + `bit_depth_luma_minus8`.
    public var bitDepthLuma: Int
    /// BitDepthC = 8 + `bit_depth_chroma_minus8`.
    public var bitDepthChroma: Int
    /// `qpprime_y_zero_transform_bypass_flag`.
    public var qpprimeYZeroTransformBypassFlag: Bool
    /// The scaling lists when `seq_scaling_matrix_present_flag` is 1 (8 lists, or 12 for 4:4:4); nil otherwise.
    public var scalingLists: [ScalingList]?
    /// `log2_max_frame_num_minus4 + 4` (4...16).
    public var log2MaxFrameNum: Int
    /// `pic_order_cnt_type` (0...2).
    public var picOrderCntType: Int
    /// `log2_max_pic_order_cnt_lsb_minus4 + 4` when `pic_order_cnt_type` is 0.
    public var log2MaxPicOrderCntLsb: Int?
    /// `delta_pic_order_always_zero_flag` (`pic_order_cnt_type` 1; false otherwise).
    public var deltaPicOrderAlwaysZeroFlag: Bool
    /// `offset_for_non_ref_pic` (`pic_order_cnt_type` 1; 0 otherwise).
    public var offsetForNonRefPic: Int
    /// `offset_for_top_to_bottom_field` (`pic_order_cnt_type` 1; 0 otherwise).
    public var offsetForTopToBottomField: Int
    /// `offset_for_ref_frame[i]` (`pic_order_cnt_type` 1; empty otherwise).
    public var offsetsForRefFrame: [Int]
    /// `max_num_ref_frames`.
    public var maxNumRefFrames: Int
    /// `gaps_in_frame_num_value_allowed_flag`.
    public var gapsInFrameNumValueAllowedFlag: Bool
    /// PicWidthInMbs = `pic_width_in_mbs_minus1 + 1`.
    public var picWidthInMbs: Int
    /// PicHeightInMapUnits = `pic_height_in_map_units_minus1 + 1` (macroblock pairs when frame_mbs_only is 0).
    public var picHeightInMapUnits: Int
    /// `frame_mbs_only_flag`: false when the sequence may hold field pictures or MBAFF frames.
    public var frameMbsOnlyFlag: Bool
    /// `mb_adaptive_frame_field_flag` (false when frame_mbs_only).
    public var mbAdaptiveFrameFieldFlag: Bool
    /// `direct_8x8_inference_flag`.
    public var direct8x8InferenceFlag: Bool
    /// The crop offsets when `frame_cropping_flag` is 1; nil otherwise.
    public var frameCropping: FrameCropping?
    /// `vui_parameters_present_flag`.
    public var vuiParametersPresentFlag: Bool

    /// The profiles whose SPS carries `chroma_format_idc`, bit depths and scaling lists (H.264 7.3.2.1.1).
    public static let highProfileIdcs: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// `constraint_set0_flag` ... `constraint_set5_flag`, by index 0...5.
    /// - Parameter index: 0...5.
    public func constraintSetFlag(_ index: Int) -> Bool {
        constraintFlags >> (7 - UInt8(index)) & 1 == 1
    }

    /// ChromaArrayType (H.264 7.4.2.1.1): 0 for monochrome or separate colour planes, else `chroma_format_idc`.
    public var chromaArrayType: Int { separateColourPlaneFlag ? 0 : chromaFormatIdc }

    /// FrameHeightInMbs = (2 - frame_mbs_only_flag) * PicHeightInMapUnits (H.264 7-18).
    public var frameHeightInMbs: Int { (frameMbsOnlyFlag ? 1 : 2) * picHeightInMapUnits }

    /// Width of the decoded frame before cropping, in luma samples.
    public var codedWidth: Int { picWidthInMbs * 16 }

    /// Height of the decoded frame before cropping, in luma samples.
    public var codedHeight: Int { frameHeightInMbs * 16 }

    /// CropUnitX (H.264 7-19, 7-21): 1 without chroma arrays, else SubWidthC.
    public var cropUnitX: Int {
        switch chromaArrayType {
        case 1, 2: return 2  // SubWidthC for 4:2:0 and 4:2:2 (Table 6-1)
        default: return 1
        }
    }

    /// CropUnitY (H.264 7-20, 7-22): (2 - frame_mbs_only_flag), times SubHeightC when there are chroma arrays.
    public var cropUnitY: Int {
        let fieldFactor = frameMbsOnlyFlag ? 1 : 2
        return chromaArrayType == 1 ? 2 * fieldFactor : fieldFactor  // SubHeightC is 2 only for 4:2:0 (Table 6-1)
    }

    /// Width of the output picture after frame cropping, in luma samples.
    public var width: Int {
        codedWidth - cropUnitX * ((frameCropping?.left ?? 0) + (frameCropping?.right ?? 0))
    }

    /// Height of the output picture after frame cropping, in luma samples.
    public var height: Int {
        codedHeight - cropUnitY * ((frameCropping?.top ?? 0) + (frameCropping?.bottom ?? 0))
    }

    /// The RFC 6184 `profile-level-id` of this SPS: `profile_idc`, the constraint byte and `level_idc`.
    public var profileLevelID: ProfileLevelID {
        ProfileLevelID(profileIdc: profileIdc, profileIOP: constraintFlags, levelIdc: levelIdc)
    }
}
