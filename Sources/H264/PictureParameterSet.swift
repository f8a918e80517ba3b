/// A parsed picture parameter set (H.264 7.3.2.2).
///
/// Everything up to `redundant_pic_cnt_present_flag` is parsed without context. The optional tail
/// (`transform_8x8_mode_flag` onwards) is parsed too; its scaling lists need the SPS's `chroma_format_idc`, so they
/// and `second_chroma_qp_index_offset` are only filled in when that is given (see ``init(nalUnit:chromaFormatIdc:)``).
public struct PictureParameterSet: Hashable, Sendable {
    /// `pic_parameter_set_id` (0...255).
    public var id: Int
    /// `seq_parameter_set_id` (0...31) of the SPS this PPS refers to.
    public var sequenceParameterSetID: Int
    /// `entropy_coding_mode_flag`: true for CABAC, false for CAVLC.
    public var entropyCodingModeFlag: Bool
    /// `bottom_field_pic_order_in_frame_present_flag`.
    public var bottomFieldPicOrderInFramePresentFlag: Bool
    /// `num_slice_groups_minus1 + 1` (1...8; more than one only in Baseline/Extended FMO).
    public var numSliceGroups: Int
    /// `slice_group_map_type` (0...6) when there is more than one slice group.
    public var sliceGroupMapType: Int?
    /// `num_ref_idx_l0_default_active_minus1 + 1` (1...32).
    public var numRefIdxL0DefaultActive: Int
    /// `num_ref_idx_l1_default_active_minus1 + 1` (1...32).
    public var numRefIdxL1DefaultActive: Int
    /// `weighted_pred_flag`.
    public var weightedPredFlag: Bool
    /// `weighted_bipred_idc` (0...2).
    public var weightedBipredIdc: Int
    /// `pic_init_qp_minus26` (-26...25 for 8-bit video).
    public var picInitQpMinus26: Int
    /// `pic_init_qs_minus26` (-26...25).
    public var picInitQsMinus26: Int
    /// `chroma_qp_index_offset` (-12...12).
    public var chromaQpIndexOffset: Int
    /// `deblocking_filter_control_present_flag`.
    public var deblockingFilterControlPresentFlag: Bool
    /// `constrained_intra_pred_flag`.
    public var constrainedIntraPredFlag: Bool
    /// `redundant_pic_cnt_present_flag`.
    public var redundantPicCntPresentFlag: Bool
    /// `transform_8x8_mode_flag` (false when the optional tail is absent).
    public var transform8x8ModeFlag: Bool
    /// `pic_scaling_matrix_present_flag` (false when the optional tail is absent).
    public var picScalingMatrixPresentFlag: Bool
    /// The picture scaling lists (6, 8 or 12) when present and the SPS chroma format was known; nil otherwise.
    public var scalingLists: [ScalingList]?
    /// `second_chroma_qp_index_offset`: coded in the optional tail, else equal to `chroma_qp_index_offset`; nil
    /// when the tail holds scaling lists and the chroma format was not given.
    public var secondChromaQpIndexOffset: Int?
}
