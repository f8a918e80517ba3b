import Testing
import H264

@Suite struct PictureParameterSetTests {
    /// The PPS of Fixtures/baseline-aud.h264.
    static let baselinePPS: [UInt8] = [0x68, 0xCE, 0x02, 0x5C, 0x80]
    /// The PPS of Fixtures/high-slices.h264.
    static let highPPS: [UInt8] = [0x68, 0xEF, 0x82, 0x5C, 0xB0]
    /// The PPS of Fixtures/high422-interlaced.h264: picture scaling lists (x264 `cqm4=...`).
    static let high422PPS: [UInt8] = [
        0x68, 0xFE, 0x82, 0x5C, 0xF2, 0x49, 0x93, 0x93, 0x24, 0x86, 0x49, 0x32, 0x72, 0x64, 0x90, 0x84, 0x01, 0x0C,
        0x20, 0x08, 0x70,
    ]

    @Test func baselineFixture() throws {
        let pps = try PictureParameterSet(nalUnit: Self.baselinePPS)
        #expect(pps.id == 0 && pps.sequenceParameterSetID == 0)
        #expect(!pps.entropyCodingModeFlag && !pps.bottomFieldPicOrderInFramePresentFlag)
        #expect(pps.numSliceGroups == 1 && pps.sliceGroupMapType == nil)
        #expect(pps.numRefIdxL0DefaultActive == 1 && pps.numRefIdxL1DefaultActive == 1)
        #expect(!pps.weightedPredFlag && pps.weightedBipredIdc == 0)
        #expect(pps.picInitQpMinus26 == 9 && pps.picInitQsMinus26 == 0 && pps.chromaQpIndexOffset == 0)
        #expect(pps.deblockingFilterControlPresentFlag && !pps.constrainedIntraPredFlag && !pps.redundantPicCntPresentFlag)
        #expect(!pps.transform8x8ModeFlag && !pps.picScalingMatrixPresentFlag)
        #expect(pps.secondChromaQpIndexOffset == 0)
    }

    @Test func highFixture() throws {
        let pps = try PictureParameterSet(nalUnit: Self.highPPS)
        #expect(pps.entropyCodingModeFlag && !pps.bottomFieldPicOrderInFramePresentFlag)
        #expect(pps.weightedPredFlag && pps.weightedBipredIdc == 2)
        #expect(pps.picInitQpMinus26 == 9)
        #expect(pps.transform8x8ModeFlag && !pps.picScalingMatrixPresentFlag && pps.scalingLists == nil)
        #expect(pps.secondChromaQpIndexOffset == 0)
    }

    @Test func scalingListsNeedTheChromaFormat() throws {
        let blind = try PictureParameterSet(nalUnit: Self.high422PPS)
        #expect(blind.entropyCodingModeFlag && blind.bottomFieldPicOrderInFramePresentFlag)
        #expect(blind.transform8x8ModeFlag && blind.picScalingMatrixPresentFlag)
        #expect(blind.scalingLists == nil && blind.secondChromaQpIndexOffset == nil)

        let pps = try PictureParameterSet(nalUnit: Self.high422PPS, chromaFormatIdc: 2)
        // x264 wrote the cqm4 matrix (8 + 2 * (row + column)) in zig-zag order for intra and inter luma, left the
        // chroma lists to fall back to luma, and flat 16 for the two 8x8 lists (4:2:2 has two).
        let luma4x4: [UInt8] = [8, 10, 10, 12, 12, 12, 14, 14, 14, 14, 16, 16, 16, 18, 18, 20]
        let flat8x8 = [UInt8](repeating: 16, count: 64)
        #expect(pps.scalingLists == [
            .explicit(luma4x4), .notPresent, .notPresent, .explicit(luma4x4), .notPresent, .notPresent,
            .explicit(flat8x8), .explicit(flat8x8),
        ])
        #expect(pps.secondChromaQpIndexOffset == 0)
    }

    @Test(arguments: [0, 2, 3, 6]) func flexibleMacroblockOrderingIsSkippedExactly(_ mapType: Int) throws {
        var w = BitWriter()
        w.ue(7)  // pic_parameter_set_id
        w.ue(31)  // seq_parameter_set_id
        w.bit(false)
        w.bit(true)
        w.ue(2)  // num_slice_groups_minus1: three groups
        w.ue(UInt64(mapType))
        switch mapType {
        case 0: w.ue(4); w.ue(5); w.ue(6)
        case 2: w.ue(1); w.ue(9); w.ue(2); w.ue(10)
        case 3: w.bit(true); w.ue(12)
        default: w.ue(5); for id in [0, 1, 2, 0, 1, 2] as [UInt64] { w.u(2, id) }  // 6 map units, 2 bits each
        }
        w.ue(3)  // num_ref_idx_l0_default_active_minus1
        w.ue(0)
        w.bit(false)
        w.u(2, 0)
        w.se(-3)
        w.se(2)
        w.se(-12)
        w.bit(true); w.bit(true); w.bit(false)
        let pps = try PictureParameterSet(nalUnit: w.nalUnit(header: 0x68))
        #expect(pps.id == 7 && pps.sequenceParameterSetID == 31 && pps.bottomFieldPicOrderInFramePresentFlag)
        #expect(pps.numSliceGroups == 3 && pps.sliceGroupMapType == mapType)
        #expect(pps.numRefIdxL0DefaultActive == 4 && pps.numRefIdxL1DefaultActive == 1)
        #expect(pps.picInitQpMinus26 == -3 && pps.picInitQsMinus26 == 2 && pps.chromaQpIndexOffset == -12)
        #expect(pps.deblockingFilterControlPresentFlag && pps.constrainedIntraPredFlag)
        #expect(!pps.transform8x8ModeFlag && pps.secondChromaQpIndexOffset == -12)
    }

    static let malformed: [(name: String, nal: [UInt8], error: H264Error)] = [
        ("an SPS", [0x67, 0x42, 0xC0, 0x0A], .unexpectedNALUnitType(offset: 0, expected: .pps, found: .sps)),
        ("header only", [0x68], .endOfData(offset: 1)),
        ("cut after the first byte", [0x68, 0xCE], .endOfData(offset: 2)),
        ("pps id 256", [0x68, 0x00, 0x80, 0x80], .valueOutOfRange(offset: 1, field: "pic_parameter_set_id", value: 256)),
        ("sps id 32", [0x68, 0x82, 0x18], .valueOutOfRange(offset: 1, field: "seq_parameter_set_id", value: 32)),
        ("nine slice groups", [0x68, 0xC1, 0x20], .valueOutOfRange(offset: 1, field: "num_slice_groups_minus1", value: 8)),
        // Map type 6 announcing 2^20 map units in a 9-byte NAL unit: refused before reading them.
        ("slice group ids beyond the data", [0x68, 0xC4, 0x70, 0x00, 0x00, 0x80, 0x00, 0x00, 0x08],
            .valueOutOfRange(offset: 2, field: "pic_size_in_map_units_minus1", value: 1_048_575)),
    ]

    @Test(arguments: 0..<malformed.count) func malformedPPS(_ index: Int) {
        let c = Self.malformed[index]
        #expect(throws: c.error, "\(c.name)") { try PictureParameterSet(nalUnit: c.nal) }
    }
}
