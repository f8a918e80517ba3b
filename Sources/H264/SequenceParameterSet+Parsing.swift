extension SequenceParameterSet {
    /// Largest `seq_parameter_set_id` (H.264 7.4.2.1.1).
    static let maxID = 31
    /// Largest `bit_depth_*_minus8` (H.264 7.4.2.1.1).
    static let maxBitDepthMinus8 = 6
    /// Largest `log2_max_frame_num_minus4` and `log2_max_pic_order_cnt_lsb_minus4` (H.264 7.4.2.1.1).
    static let maxLog2Minus4 = 12
    /// Largest `num_ref_frames_in_pic_order_cnt_cycle` (H.264 7.4.2.1.1).
    static let maxRefFramesInPicOrderCntCycle = 255
    /// Largest `max_num_ref_frames` (MaxDpbFrames is at most 16, H.264 A.3.1).
    static let maxNumRefFramesLimit = 16
    /// A bound on picture dimensions in macroblocks that keeps sample arithmetic far from overflow (the largest
    /// level, 6.2, allows 139264 macroblocks in a frame; a side of 2^16 macroblocks is far beyond that).
    static let maxMbsPerSide = 1 << 16

    /// Parses a sequence parameter set NAL unit (type 7).
    /// - Parameter nalUnit: the NAL unit, header byte first, with emulation prevention as in the stream.
    /// - Throws: ``H264Error/unexpectedNALUnitType(offset:expected:found:)``, ``H264Error/forbiddenZeroBit(offset:)``,
    ///   ``H264Error/endOfData(offset:)``, ``H264Error/expGolombTooLong(offset:)`` and
    ///   ``H264Error/valueOutOfRange(offset:field:value:)``; offsets are bytes of `nalUnit`.
    public init<S: Collection>(nalUnit: S) throws(H264Error) where S.Element == UInt8 {
        self = try BitReader.parsing(nalUnit: nalUnit, as: [.sps]) { (reader: inout BitReader) throws(H264Error) in
            try SequenceParameterSet(reading: &reader)
        }
    }

    /// Parses `seq_parameter_set_data()` (H.264 7.3.2.1.1) from an RBSP reader.
    /// - Parameter reader: positioned at `profile_idc`.
    /// - Throws: as ``init(nalUnit:)``, with RBSP offsets.
    public init(reading reader: inout BitReader) throws(H264Error) {
        profileIdc = UInt8(try reader.bits(8))
        constraintFlags = UInt8(try reader.bits(8))
        levelIdc = UInt8(try reader.bits(8))
        id = try reader.ue("seq_parameter_set_id", in: 0...Self.maxID)

        chromaFormatIdc = 1
        separateColourPlaneFlag = false
        bitDepthLuma = 8
        bitDepthChroma = 8
        qpprimeYZeroTransformBypassFlag = false
        scalingLists = nil
        if Self.highProfileIdcs.contains(profileIdc) {
            chromaFormatIdc = try reader.ue("chroma_format_idc", in: 0...3)
            if chromaFormatIdc == 3 {
                separateColourPlaneFlag = try reader.flag()
            }
            bitDepthLuma = 8 + (try reader.ue("bit_depth_luma_minus8", in: 0...Self.maxBitDepthMinus8))
            bitDepthChroma = 8 + (try reader.ue("bit_depth_chroma_minus8", in: 0...Self.maxBitDepthMinus8))
            qpprimeYZeroTransformBypassFlag = try reader.flag()
            if try reader.flag() {  // seq_scaling_matrix_present_flag
                scalingLists = try ScalingList.readMatrix(from: &reader, count: chromaFormatIdc != 3 ? 8 : 12)
            }
        }

        log2MaxFrameNum = 4 + (try reader.ue("log2_max_frame_num_minus4", in: 0...Self.maxLog2Minus4))
        picOrderCntType = try reader.ue("pic_order_cnt_type", in: 0...2)
        log2MaxPicOrderCntLsb = nil
        deltaPicOrderAlwaysZeroFlag = false
        offsetForNonRefPic = 0
        offsetForTopToBottomField = 0
        offsetsForRefFrame = []
        let int32Range = Int(Int32.min + 1)...Int(Int32.max)  // 2^31 - 1 in magnitude (H.264 7.4.2.1.1)
        if picOrderCntType == 0 {
            log2MaxPicOrderCntLsb =
                4 + (try reader.ue("log2_max_pic_order_cnt_lsb_minus4", in: 0...Self.maxLog2Minus4))
        } else if picOrderCntType == 1 {
            deltaPicOrderAlwaysZeroFlag = try reader.flag()
            offsetForNonRefPic = try reader.se("offset_for_non_ref_pic", in: int32Range)
            offsetForTopToBottomField = try reader.se("offset_for_top_to_bottom_field", in: int32Range)
            let cycle = try reader.ue(
                "num_ref_frames_in_pic_order_cnt_cycle", in: 0...Self.maxRefFramesInPicOrderCntCycle)
            for _ in 0..<cycle {
                offsetsForRefFrame.append(try reader.se("offset_for_ref_frame", in: int32Range))
            }
        }

        maxNumRefFrames = try reader.ue("max_num_ref_frames", in: 0...Self.maxNumRefFramesLimit)
        gapsInFrameNumValueAllowedFlag = try reader.flag()
        picWidthInMbs = 1 + (try reader.ue("pic_width_in_mbs_minus1", in: 0...(Self.maxMbsPerSide - 1)))
        picHeightInMapUnits = 1 + (try reader.ue("pic_height_in_map_units_minus1", in: 0...(Self.maxMbsPerSide - 1)))
        frameMbsOnlyFlag = try reader.flag()
        mbAdaptiveFrameFieldFlag = false
        if !frameMbsOnlyFlag {
            mbAdaptiveFrameFieldFlag = try reader.flag()
        }
        direct8x8InferenceFlag = try reader.flag()

        frameCropping = nil
        vuiParametersPresentFlag = false
        if try reader.flag() {  // frame_cropping_flag
            let start = reader.byteOffset
            let cropping = FrameCropping(
                left: try reader.ue("frame_crop_left_offset", in: 0...Int(UInt32.max)),
                right: try reader.ue("frame_crop_right_offset", in: 0...Int(UInt32.max)),
                top: try reader.ue("frame_crop_top_offset", in: 0...Int(UInt32.max)),
                bottom: try reader.ue("frame_crop_bottom_offset", in: 0...Int(UInt32.max)))
            frameCropping = cropping
            // H.264 7.4.2.1.1: the cropped picture keeps at least one sample in each direction.
            let horizontal = cropUnitX * (cropping.left + cropping.right)
            guard horizontal < codedWidth else {
                throw .valueOutOfRange(offset: start, field: "frame_crop_left_offset + frame_crop_right_offset",
                                       value: cropping.left + cropping.right)
            }
            let vertical = cropUnitY * (cropping.top + cropping.bottom)
            guard vertical < codedHeight else {
                throw .valueOutOfRange(offset: start, field: "frame_crop_top_offset + frame_crop_bottom_offset",
                                       value: cropping.top + cropping.bottom)
            }
        }
        vuiParametersPresentFlag = try reader.flag()
    }
}
