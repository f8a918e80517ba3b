extension PictureParameterSet {
    /// Largest `pic_parameter_set_id` (H.264 7.4.2.2).
    static let maxID = 255
    /// Largest `num_slice_groups_minus1` (H.264 A.2.1: at most 8 slice groups).
    static let maxSliceGroupsMinus1 = 7
    /// Largest `num_ref_idx_lX_default_active_minus1` (H.264 7.4.2.2).
    static let maxRefIdxMinus1 = 31

    /// Parses a picture parameter set NAL unit (type 8).
    /// - Parameters:
    ///   - nalUnit: the NAL unit, header byte first, with emulation prevention as in the stream.
    ///   - chromaFormatIdc: the referenced SPS's `chroma_format_idc`, needed only to read picture scaling lists.
    /// - Throws: ``H264Error/unexpectedNALUnitType(offset:expected:found:)``, ``H264Error/forbiddenZeroBit(offset:)``,
    ///   ``H264Error/endOfData(offset:)``, ``H264Error/expGolombTooLong(offset:)`` and
    ///   ``H264Error/valueOutOfRange(offset:field:value:)``; offsets are bytes of `nalUnit`.
    public init<S: Collection>(nalUnit: S, chromaFormatIdc: Int? = nil) throws(H264Error) where S.Element == UInt8 {
        self = try BitReader.parsing(nalUnit: nalUnit, as: [.pps]) { (reader: inout BitReader) throws(H264Error) in
            try PictureParameterSet(reading: &reader, chromaFormatIdc: chromaFormatIdc)
        }
    }

    /// Parses `pic_parameter_set_rbsp()` (H.264 7.3.2.2) from an RBSP reader.
    /// - Parameters:
    ///   - reader: positioned at `pic_parameter_set_id`.
    ///   - chromaFormatIdc: the SPS's `chroma_format_idc`, if known.
    /// - Throws: as ``init(nalUnit:chromaFormatIdc:)``, with RBSP offsets.
    public init(reading reader: inout BitReader, chromaFormatIdc: Int? = nil) throws(H264Error) {
        id = try reader.ue("pic_parameter_set_id", in: 0...Self.maxID)
        sequenceParameterSetID = try reader.ue("seq_parameter_set_id", in: 0...SequenceParameterSet.maxID)
        entropyCodingModeFlag = try reader.flag()
        bottomFieldPicOrderInFramePresentFlag = try reader.flag()
        numSliceGroups = 1 + (try reader.ue("num_slice_groups_minus1", in: 0...Self.maxSliceGroupsMinus1))
        sliceGroupMapType = nil
        if numSliceGroups > 1 {
            let mapType = try reader.ue("slice_group_map_type", in: 0...6)
            sliceGroupMapType = mapType
            try Self.skipSliceGroupMap(type: mapType, groups: numSliceGroups, reader: &reader)
        }
        numRefIdxL0DefaultActive = 1 + (try reader.ue("num_ref_idx_l0_default_active_minus1", in: 0...Self.maxRefIdxMinus1))
        numRefIdxL1DefaultActive = 1 + (try reader.ue("num_ref_idx_l1_default_active_minus1", in: 0...Self.maxRefIdxMinus1))
        weightedPredFlag = try reader.flag()
        weightedBipredIdc = Int(try reader.bits(2))
        let bitDepthQpRange = -(26 + 6 * SequenceParameterSet.maxBitDepthMinus8)...25  // -(26 + QpBdOffsetY)...+25
        picInitQpMinus26 = try reader.se("pic_init_qp_minus26", in: bitDepthQpRange)
        picInitQsMinus26 = try reader.se("pic_init_qs_minus26", in: -26...25)
        chromaQpIndexOffset = try reader.se("chroma_qp_index_offset", in: -12...12)
        deblockingFilterControlPresentFlag = try reader.flag()
        constrainedIntraPredFlag = try reader.flag()
        redundantPicCntPresentFlag = try reader.flag()

        transform8x8ModeFlag = false
        picScalingMatrixPresentFlag = false
        scalingLists = nil
        secondChromaQpIndexOffset = chromaQpIndexOffset
        guard reader.moreRBSPData() else { return }
        transform8x8ModeFlag = try reader.flag()
        picScalingMatrixPresentFlag = try reader.flag()
        if picScalingMatrixPresentFlag {
            guard let chromaFormatIdc else {
                secondChromaQpIndexOffset = nil
                return
            }
            let count = 6 + (transform8x8ModeFlag ? (chromaFormatIdc != 3 ? 2 : 6) : 0)
            scalingLists = try ScalingList.readMatrix(from: &reader, count: count)
        }
        secondChromaQpIndexOffset = try reader.se("second_chroma_qp_index_offset", in: -12...12)
    }

    /// Reads past the slice group map of an FMO picture parameter set (H.264 7.3.2.2).
    private static func skipSliceGroupMap(type: Int, groups: Int, reader: inout BitReader) throws(H264Error) {
        switch type {
        case 0:
            for _ in 0..<groups { _ = try reader.ue() }  // run_length_minus1
        case 2:
            for _ in 0..<(groups - 1) {  // top_left, bottom_right
                _ = try reader.ue()
                _ = try reader.ue()
            }
        case 3, 4, 5:
            _ = try reader.flag()  // slice_group_change_direction_flag
            _ = try reader.ue()  // slice_group_change_rate_minus1
        case 6:
            let start = reader.byteOffset
            let mapUnits = Int(try reader.ue()) + 1  // pic_size_in_map_units_minus1 + 1
            var bitsPerID = 0  // Ceil(Log2(num_slice_groups_minus1 + 1))
            while 1 << bitsPerID < groups { bitsPerID += 1 }
            guard mapUnits * bitsPerID <= reader.bitsRemaining else {
                throw .valueOutOfRange(offset: start, field: "pic_size_in_map_units_minus1", value: mapUnits - 1)
            }
            try reader.skip(mapUnits * bitsPerID)  // slice_group_id[i]
        default:
            break  // type 1 (dispersed) has no parameters
        }
    }
}
