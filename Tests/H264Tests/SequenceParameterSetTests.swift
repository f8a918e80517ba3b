import Testing
import H264

@Suite struct SequenceParameterSetTests {
    /// The SPS of Fixtures/baseline-aud.h264 (x264, Constrained Baseline 1.0, 128x96).
    static let baselineSPS: [UInt8] = [
        0x67, 0x42, 0xC0, 0x0A, 0xDA, 0x08, 0x36, 0xC0, 0x44, 0x00, 0x00, 0x03, 0x00, 0x04, 0x00, 0x00, 0x03, 0x00,
        0xC8, 0x3C, 0x48, 0x9A, 0x80,
    ]
    /// The SPS of Fixtures/crop-1080p.h264 (1920x1088 coded, cropped to 1080).
    static let cropSPS: [UInt8] = [
        0x67, 0x42, 0xC0, 0x28, 0xDA, 0x01, 0xE0, 0x08, 0x9F, 0x97, 0x01, 0x10, 0x00, 0x00, 0x03, 0x00, 0x10, 0x00,
        0x00, 0x03, 0x03, 0x20, 0xF1, 0x83, 0x2A,
    ]
    /// The SPS of Fixtures/high-slices.h264 (High 1.1, 176x144).
    static let highSPS: [UInt8] = [
        0x67, 0x64, 0x00, 0x0B, 0xAC, 0xD9, 0x42, 0xC4, 0xEC, 0x04, 0x40, 0x00, 0x00, 0x03, 0x00, 0x40, 0x00, 0x00,
        0x0C, 0x83, 0xC5, 0x0A, 0x65, 0x80,
    ]
    /// The SPS of Fixtures/high422-interlaced.h264 (High 4:2:2 10-bit, MBAFF, 176x120 from 176x128).
    static let high422SPS: [UInt8] = [
        0x67, 0x7A, 0x00, 0x15, 0xB6, 0xCD, 0x94, 0x2C, 0x8F, 0xCB, 0x80, 0x88, 0x00, 0x00, 0x03, 0x00, 0x08, 0x00,
        0x00, 0x03, 0x01, 0x90, 0xF8, 0xA1, 0x4C, 0xB0,
    ]

    @Test func baselineFixture() throws {
        let sps = try SequenceParameterSet(nalUnit: Self.baselineSPS)
        #expect(sps.profileIdc == 66)
        #expect(sps.constraintFlags == 0xC0)
        #expect(sps.constraintSetFlag(0) && sps.constraintSetFlag(1) && !sps.constraintSetFlag(2))
        #expect(sps.levelIdc == 10)
        #expect(sps.id == 0)
        #expect(sps.chromaFormatIdc == 1)
        #expect(sps.bitDepthLuma == 8 && sps.bitDepthChroma == 8)
        #expect(sps.scalingLists == nil)
        #expect(sps.log2MaxFrameNum == 4)
        #expect(sps.picOrderCntType == 2)
        #expect(sps.log2MaxPicOrderCntLsb == nil)
        #expect(sps.maxNumRefFrames == 1)
        #expect(!sps.gapsInFrameNumValueAllowedFlag)
        #expect(sps.picWidthInMbs == 8 && sps.picHeightInMapUnits == 6)
        #expect(sps.frameMbsOnlyFlag && !sps.mbAdaptiveFrameFieldFlag && sps.direct8x8InferenceFlag)
        #expect(sps.frameCropping == nil)
        #expect(sps.vuiParametersPresentFlag)
        #expect(sps.width == 128 && sps.height == 96)
        #expect(sps.profileLevelID.description == "42c00a")
        #expect(sps.profileLevelID.profile == .constrainedBaseline)
    }

    @Test func croppedFixture() throws {
        let sps = try SequenceParameterSet(nalUnit: Self.cropSPS)
        #expect(sps.levelIdc == 40)
        #expect(sps.picWidthInMbs == 120 && sps.picHeightInMapUnits == 68)
        #expect(sps.codedWidth == 1920 && sps.codedHeight == 1088)
        #expect(sps.frameCropping == FrameCropping(left: 0, right: 0, top: 0, bottom: 4))
        #expect(sps.cropUnitX == 2 && sps.cropUnitY == 2)
        #expect(sps.width == 1920 && sps.height == 1080)
        #expect(sps.profileLevelID.description == "42c028")
    }

    @Test func highFixture() throws {
        let sps = try SequenceParameterSet(nalUnit: Self.highSPS)
        #expect(sps.profileIdc == 100 && sps.constraintFlags == 0 && sps.levelIdc == 11)
        #expect(sps.chromaFormatIdc == 1 && !sps.separateColourPlaneFlag)
        #expect(sps.bitDepthLuma == 8 && sps.bitDepthChroma == 8 && !sps.qpprimeYZeroTransformBypassFlag)
        #expect(sps.scalingLists == nil)
        #expect(sps.picOrderCntType == 0 && sps.log2MaxPicOrderCntLsb == 6)
        #expect(sps.maxNumRefFrames == 4)
        #expect(sps.width == 176 && sps.height == 144)
        #expect(sps.profileLevelID.description == "64000b")
        #expect(sps.profileLevelID.profile == .high)
    }

    @Test func high422InterlacedFixture() throws {
        let sps = try SequenceParameterSet(nalUnit: Self.high422SPS)
        #expect(sps.profileIdc == 122 && sps.levelIdc == 21)
        #expect(sps.chromaFormatIdc == 2 && sps.chromaArrayType == 2)
        #expect(sps.bitDepthLuma == 10 && sps.bitDepthChroma == 10)
        #expect(!sps.frameMbsOnlyFlag && sps.mbAdaptiveFrameFieldFlag)
        #expect(sps.picWidthInMbs == 11 && sps.picHeightInMapUnits == 4 && sps.frameHeightInMbs == 8)
        // 4:2:2 has SubHeightC 1; a non-frame-only sequence doubles it: CropUnitY = 2 (H.264 7-22).
        #expect(sps.cropUnitX == 2 && sps.cropUnitY == 2)
        #expect(sps.frameCropping == FrameCropping(left: 0, right: 0, top: 0, bottom: 4))
        #expect(sps.width == 176 && sps.height == 120)
        #expect(sps.profileLevelID.profile == .high422)
    }

    /// Builds an SPS field by field.
    static func makeSPS(
        profileIdc: UInt64 = 100, chromaFormatIdc: UInt64 = 1, separatePlanes: Bool = false,
        scalingLists: ((inout BitWriter) -> Void)? = nil, pocType: UInt64 = 0, widthMbs: UInt64 = 4,
        heightMapUnits: UInt64 = 3, frameMbsOnly: Bool = true, crop: (UInt64, UInt64, UInt64, UInt64)? = nil
    ) -> [UInt8] {
        var w = BitWriter()
        w.u(8, profileIdc)
        w.u(8, 0)
        w.u(8, 31)
        w.ue(3)  // seq_parameter_set_id
        if SequenceParameterSet.highProfileIdcs.contains(UInt8(profileIdc)) {
            w.ue(chromaFormatIdc)
            if chromaFormatIdc == 3 { w.bit(separatePlanes) }
            w.ue(1)  // bit_depth_luma_minus8
            w.ue(2)  // bit_depth_chroma_minus8
            w.bit(false)
            w.bit(scalingLists != nil)
            scalingLists?(&w)
        }
        w.ue(6)  // log2_max_frame_num_minus4
        w.ue(pocType)
        if pocType == 0 {
            w.ue(2)
        } else if pocType == 1 {
            w.bit(true)
            w.se(-5)
            w.se(7)
            w.ue(3)
            w.se(1); w.se(-2); w.se(100_000)
        }
        w.ue(2)  // max_num_ref_frames
        w.bit(true)  // gaps
        w.ue(widthMbs - 1)
        w.ue(heightMapUnits - 1)
        w.bit(frameMbsOnly)
        if !frameMbsOnly { w.bit(false) }
        w.bit(false)  // direct_8x8_inference_flag
        w.bit(crop != nil)
        if let crop { w.ue(crop.0); w.ue(crop.1); w.ue(crop.2); w.ue(crop.3) }
        w.bit(false)  // vui
        return w.nalUnit(header: 0x67)
    }

    /// Crop units per chroma format and frame_mbs_only (H.264 Table 6-1, equations 7-19 to 7-22).
    static let cropCases: [(chroma: UInt64, separate: Bool, frameMbsOnly: Bool, unitX: Int, unitY: Int)] = [
        (0, false, true, 1, 1), (0, false, false, 1, 2),
        (1, false, true, 2, 2), (1, false, false, 2, 4),
        (2, false, true, 2, 1), (2, false, false, 2, 2),
        (3, false, true, 1, 1), (3, false, false, 1, 2),
        (3, true, true, 1, 1), (3, true, false, 1, 2),
    ]

    @Test(arguments: 0..<cropCases.count) func cropUnits(_ index: Int) throws {
        let c = Self.cropCases[index]
        let sps = try SequenceParameterSet(nalUnit: Self.makeSPS(
            profileIdc: 244, chromaFormatIdc: c.chroma, separatePlanes: c.separate, widthMbs: 4, heightMapUnits: 3,
            frameMbsOnly: c.frameMbsOnly, crop: (1, 2, 1, 1)))
        #expect(sps.chromaFormatIdc == Int(c.chroma) && sps.separateColourPlaneFlag == c.separate)
        #expect(sps.cropUnitX == c.unitX && sps.cropUnitY == c.unitY)
        #expect(sps.width == 64 - 3 * c.unitX)
        #expect(sps.height == (c.frameMbsOnly ? 48 : 96) - 2 * c.unitY)
        #expect(sps.bitDepthLuma == 9 && sps.bitDepthChroma == 10)
        #expect(sps.id == 3 && sps.log2MaxFrameNum == 10 && sps.log2MaxPicOrderCntLsb == 6)
        #expect(sps.maxNumRefFrames == 2 && sps.gapsInFrameNumValueAllowedFlag && !sps.direct8x8InferenceFlag)
    }

    @Test func picOrderCountType1Fields() throws {
        let sps = try SequenceParameterSet(nalUnit: Self.makeSPS(profileIdc: 77, pocType: 1))
        #expect(sps.chromaFormatIdc == 1 && sps.bitDepthLuma == 8)  // not coded for Main: defaults
        #expect(sps.picOrderCntType == 1 && sps.log2MaxPicOrderCntLsb == nil)
        #expect(sps.deltaPicOrderAlwaysZeroFlag)
        #expect(sps.offsetForNonRefPic == -5 && sps.offsetForTopToBottomField == 7)
        #expect(sps.offsetsForRefFrame == [1, -2, 100_000])
        #expect(sps.maxNumRefFrames == 2 && sps.width == 64 && sps.height == 48)
    }

    @Test func scalingListsForFourTwoZeroAndFourFourFour() throws {
        // List 0: explicit 4x4, deltas +8 then 0 (all 16 = 16 once nextScale settles);
        // list 1: present with delta -8 -> useDefaultScalingMatrixFlag; list 2: not present;
        // list 6 (8x8): a run: first delta 2 gives 10, then delta 0 forever -> all 10.
        func lists(count: Int) -> (inout BitWriter) -> Void {
            { w in
                for i in 0..<count {
                    switch i {
                    case 0: w.bit(true); w.se(8); for _ in 1..<16 { w.se(0) }
                    case 1: w.bit(true); w.se(-8)
                    case 6: w.bit(true); w.se(2); w.se(-10)  // nextScale 0 at j=1: the rest repeat lastScale
                    default: w.bit(false)
                    }
                }
            }
        }
        let sps420 = try SequenceParameterSet(nalUnit: Self.makeSPS(chromaFormatIdc: 1, scalingLists: lists(count: 8)))
        let expected420: [ScalingList] = [
            .explicit([UInt8](repeating: 16, count: 16)), .useDefault, .notPresent, .notPresent, .notPresent,
            .notPresent, .explicit([UInt8](repeating: 10, count: 64)), .notPresent,
        ]
        #expect(sps420.scalingLists == expected420)
        #expect(sps420.log2MaxFrameNum == 10)  // the fields after the lists are read in step

        let sps444 = try SequenceParameterSet(nalUnit: Self.makeSPS(
            profileIdc: 244, chromaFormatIdc: 3, scalingLists: lists(count: 12)))
        #expect(sps444.scalingLists?.count == 12)
        #expect(sps444.scalingLists?[6] == .explicit([UInt8](repeating: 10, count: 64)))
        #expect(sps444.log2MaxFrameNum == 10 && sps444.width == 64)
    }

    @Test func explicitScalingListFollowsDeltaCoding() throws {
        // delta_scale +2, +2, -4, then 0: 10, 12, 8, 8, 8, ...
        let sps = try SequenceParameterSet(nalUnit: Self.makeSPS(scalingLists: { w in
            w.bit(true); w.se(2); w.se(2); w.se(-4); for _ in 3..<16 { w.se(0) }
            for _ in 1..<8 { w.bit(false) }
        }))
        #expect(sps.scalingLists?[0] == .explicit([10, 12, 8] + [UInt8](repeating: 8, count: 13)))
    }

    /// Malformed SPS NAL units and their errors; offsets are bytes of the NAL unit (header = 0).
    static let malformed: [(name: String, nal: [UInt8], error: H264Error)] = [
        ("empty", [], .endOfData(offset: 0)),
        ("header only", [0x67], .endOfData(offset: 1)),
        ("a PPS", [0x68, 0xCE, 0x3C, 0x80], .unexpectedNALUnitType(offset: 0, expected: .sps, found: .pps)),
        ("forbidden bit", [0xE7, 0x42, 0xC0, 0x0A], .forbiddenZeroBit(offset: 0)),
        ("cut after level", [0x67, 0x42, 0xC0, 0x0A], .endOfData(offset: 4)),
        ("baseline fixture cut before vui_parameters_present_flag", Array(baselineSPS.prefix(7)), .endOfData(offset: 7)),
        // The offsets count the escaped bytes of the NAL unit, emulation prevention bytes included.
        ("truncated after an emulation prevention byte", [0x67, 0x42, 0x00, 0x00, 0x03, 0x01], .endOfData(offset: 6)),
        ("sps id 32 after an emulation prevention byte", [0x67, 0x42, 0x00, 0x00, 0x03, 0x04, 0x20, 0x80],
            .valueOutOfRange(offset: 5, field: "seq_parameter_set_id", value: 32)),
        ("sps id 32", [0x67, 0x42, 0xC0, 0x0A, 0x04, 0x20, 0x80],
            .valueOutOfRange(offset: 4, field: "seq_parameter_set_id", value: 32)),
        ("chroma_format_idc 4", [0x67, 0x64, 0x00, 0x1F, 0x94, 0x80],
            .valueOutOfRange(offset: 4, field: "chroma_format_idc", value: 4)),
        ("Exp-Golomb too long", [0x67, 0x42, 0xC0, 0x0A, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x80],
            .expGolombTooLong(offset: 4)),
        ("crop wider than the picture", makeSPS(widthMbs: 1, crop: (4, 4, 0, 0)),
            .valueOutOfRange(offset: 8, field: "frame_crop_left_offset + frame_crop_right_offset", value: 8)),
    ]

    @Test(arguments: 0..<malformed.count) func malformedSPS(_ index: Int) {
        let c = Self.malformed[index]
        #expect(throws: c.error, "\(c.name)") { try SequenceParameterSet(nalUnit: c.nal) }
    }
}
