import H264

/// Reads the QP each picture starts with from the bitstream: `SliceQPY = 26 + pic_init_qp_minus26 + slice_qp_delta`
/// (H.264 7.4.2.2, 7.4.3) of the first slice, parsed from its header with the SPS and PPS in use.
///
/// Why: OpenH264 2.3.1 leaves `SEncoderStatistics.uiAverageFrameQP` at 0, so the bitstream is the only place the
/// QP rate control chose can be read. OpenH264 adjusts QP per group of macroblock rows around the slice QP and
/// adaptive quantisation adds per-macroblock deltas, so this is the picture's starting QP, a close proxy for its
/// average (WebRTC's H.264 QP parser reads the same field, plus the macroblock deltas).
///
/// Keeps one scratch buffer for the unescaped header, so reading a QP allocates nothing in steady state.
struct SliceQPReader {
    private var sequenceParameterSet: SequenceParameterSet?
    private var pictureParameterSet: PictureParameterSet?
    private var scratch: [UInt8] = []

    /// Escaped header bytes read at most: a slice header of OpenH264's output fits in a few dozen bytes; 96 leaves
    /// room for the longest `ue(v)` fields and emulation prevention.
    static let headerBytesLimit = 96

    /// `slice_type % 5` values (H.264 Table 7-6).
    enum SliceKind: Int { case p = 0, b = 1, i = 2, sp = 3, si = 4 }

    /// Takes the SPS and PPS of an access unit, if it has them (OpenH264 writes both ahead of every IDR).
    /// - Parameters:
    ///   - bytes: the access unit.
    ///   - nalUnits: its NAL units.
    mutating func updateParameterSets(bytes: [UInt8], nalUnits: [NALUnitLocation]) {
        for nal in nalUnits {
            let unit = bytes[nal.range]
            if nal.type == .sps, let sps = try? SequenceParameterSet(nalUnit: unit) {
                sequenceParameterSet = sps
            } else if nal.type == .pps, let pps = try? PictureParameterSet(
                nalUnit: unit, chromaFormatIdc: sequenceParameterSet?.chromaFormatIdc) {
                pictureParameterSet = pps
            }
        }
    }

    /// The QP of the first slice of an access unit, or nil when it has none or the header cannot be read (no
    /// parameter sets yet, weighted prediction, a header beyond `headerBytesLimit`).
    /// - Parameters:
    ///   - bytes: the access unit.
    ///   - nalUnits: its NAL units.
    mutating func qp(bytes: [UInt8], nalUnits: [NALUnitLocation]) -> Int? {
        guard let sps = sequenceParameterSet, let pps = pictureParameterSet,
              let slice = nalUnits.first(where: { $0.type == .idrSlice || $0.type == .nonIDRSlice }) else { return nil }
        let header = NALUnitHeader(byte: bytes[slice.offset])
        let payload = bytes[(slice.offset + 1)..<(slice.offset + min(slice.length, Self.headerBytesLimit))]
        unescape(payload)
        var reader = BitReader(scratch)
        guard let delta = try? Self.sliceQPDelta(&reader, header: header, sps: sps, pps: pps) else { return nil }
        let qp = 26 + pps.picInitQpMinus26 + delta
        return (0...51).contains(qp) ? qp : nil
    }

    /// Removes emulation prevention bytes (00 00 03 -> 00 00) into `scratch`, reusing its storage.
    private mutating func unescape(_ escaped: ArraySlice<UInt8>) {
        scratch.removeAll(keepingCapacity: true)
        var zeros = 0
        for byte in escaped {
            if zeros >= 2 && byte == RBSP.emulationPreventionByte {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            scratch.append(byte)
        }
    }

    /// Reads a slice header (H.264 7.3.3) up to `slice_qp_delta`.
    static func sliceQPDelta(_ r: inout BitReader, header: NALUnitHeader, sps: SequenceParameterSet,
                             pps: PictureParameterSet) throws -> Int {
        _ = try r.ue()                                           // first_mb_in_slice
        guard let kind = SliceKind(rawValue: Int(try r.ue()) % 5) else { throw H264Error.endOfData(offset: 0) }
        _ = try r.ue()                                           // pic_parameter_set_id
        if sps.separateColourPlaneFlag { try r.skip(2) }         // colour_plane_id
        try r.skip(sps.log2MaxFrameNum)                          // frame_num
        var fieldPic = false
        if !sps.frameMbsOnlyFlag {
            fieldPic = try r.flag()                              // field_pic_flag
            if fieldPic { try r.skip(1) }                        // bottom_field_flag
        }
        if header.type == .idrSlice { _ = try r.ue() }           // idr_pic_id
        if sps.picOrderCntType == 0 {
            try r.skip(sps.log2MaxPicOrderCntLsb ?? 4)           // pic_order_cnt_lsb
            if pps.bottomFieldPicOrderInFramePresentFlag && !fieldPic { _ = try r.se() }
        } else if sps.picOrderCntType == 1 && !sps.deltaPicOrderAlwaysZeroFlag {
            _ = try r.se()
            if pps.bottomFieldPicOrderInFramePresentFlag && !fieldPic { _ = try r.se() }
        }
        if pps.redundantPicCntPresentFlag { _ = try r.ue() }     // redundant_pic_cnt
        if kind == .b { try r.skip(1) }                          // direct_spatial_mv_pred_flag
        if kind == .p || kind == .sp || kind == .b {
            if try r.flag() {                                    // num_ref_idx_active_override_flag
                _ = try r.ue()
                if kind == .b { _ = try r.ue() }
            }
        }
        if kind != .i && kind != .si { try skipRefPicListModification(&r) }
        if kind == .b { try skipRefPicListModification(&r) }
        // pred_weight_table: OpenH264 never writes weighted prediction; not worth parsing here.
        if (pps.weightedPredFlag && (kind == .p || kind == .sp)) || (pps.weightedBipredIdc == 1 && kind == .b) {
            throw H264Error.endOfData(offset: 0)
        }
        if header.nalRefIdc != 0 {                               // dec_ref_pic_marking
            if header.type == .idrSlice {
                try r.skip(2)                                    // no_output_of_prior_pics, long_term_reference
            } else if try r.flag() {                             // adaptive_ref_pic_marking_mode_flag
                var operations = 0
                while operations < 64 {
                    let mmco = try r.ue()
                    if mmco == 0 { break }
                    if mmco == 1 || mmco == 3 { _ = try r.ue() }
                    if mmco == 2 { _ = try r.ue() }
                    if mmco == 3 || mmco == 6 { _ = try r.ue() }
                    if mmco == 4 { _ = try r.ue() }
                    operations += 1
                }
            }
        }
        if pps.entropyCodingModeFlag && kind != .i && kind != .si { _ = try r.ue() }  // cabac_init_idc
        return Int(try r.se())                                   // slice_qp_delta
    }

    private static func skipRefPicListModification(_ r: inout BitReader) throws {
        guard try r.flag() else { return }                      // ref_pic_list_modification_flag
        var entries = 0
        while entries < 64 {
            let idc = try r.ue()                                 // modification_of_pic_nums_idc
            if idc == 3 { return }
            _ = try r.ue()                                       // abs_diff_pic_num_minus1 or long_term_pic_num
            entries += 1
        }
    }
}
