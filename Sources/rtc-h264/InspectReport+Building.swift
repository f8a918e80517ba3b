import H264

extension InspectReport {
    /// Indexes and parses an Annex-B stream.
    /// - Parameter bytes: the whole stream.
    /// - Throws: ``H264Error`` with offsets into `bytes`.
    init(annexB bytes: [UInt8]) throws(H264Error) {
        let units = try AnnexB.accessUnits(in: bytes)
        var spsList: [SequenceParameterSet] = []
        var ppsList: [PictureParameterSet] = []
        var chromaFormats: [Int: Int] = [:]  // seq_parameter_set_id -> chroma_format_idc, for PPS scaling lists
        var accessUnits: [AccessUnit] = []
        var nalCount = 0
        for (index, unit) in units.enumerated() {
            var nals: [NALUnit] = []
            for location in unit.nalUnits {
                let nal = bytes[location.range]
                do {
                    if location.type == .sps {
                        let sps = try H264.SequenceParameterSet(nalUnit: nal)
                        chromaFormats[sps.id] = sps.chromaFormatIdc
                        spsList.append(SequenceParameterSet(sps, offset: location.offset))
                    } else if location.type == .pps {
                        let peek = try H264.PictureParameterSet(nalUnit: nal)
                        let pps = try H264.PictureParameterSet(
                            nalUnit: nal, chromaFormatIdc: chromaFormats[peek.sequenceParameterSetID])
                        ppsList.append(PictureParameterSet(pps, offset: location.offset))
                    }
                } catch {
                    throw error.shifted(by: location.offset)
                }
                nals.append(NALUnit(
                    type: Int(location.type.rawValue), name: location.type.description, offset: location.offset,
                    size: location.length, nalRefIdc: Int(location.header.nalRefIdc)))
            }
            nalCount += nals.count
            accessUnits.append(AccessUnit(
                index: index, offset: unit.byteRange.lowerBound, size: unit.byteRange.count,
                keyframe: unit.isKeyframe, nalUnits: nals))
        }
        self.init(
            byteCount: bytes.count, nalUnitCount: nalCount, accessUnits: accessUnits,
            sequenceParameterSets: spsList, pictureParameterSets: ppsList)
    }
}

extension InspectReport.SequenceParameterSet {
    /// The report entry for a parsed SPS.
    init(_ sps: H264.SequenceParameterSet, offset: Int) {
        let pli = sps.profileLevelID
        self.init(
            offset: offset, id: sps.id, profileIdc: Int(sps.profileIdc), profile: pli.profileName,
            constraintFlags: Int(sps.constraintFlags), levelIdc: Int(sps.levelIdc), level: pli.levelName,
            profileLevelId: pli.description, chromaFormatIdc: sps.chromaFormatIdc, bitDepthLuma: sps.bitDepthLuma,
            bitDepthChroma: sps.bitDepthChroma, scalingMatrixPresent: sps.scalingLists != nil,
            log2MaxFrameNum: sps.log2MaxFrameNum, picOrderCntType: sps.picOrderCntType,
            maxNumRefFrames: sps.maxNumRefFrames, frameMbsOnly: sps.frameMbsOnlyFlag,
            mbAdaptiveFrameField: sps.mbAdaptiveFrameFieldFlag, direct8x8Inference: sps.direct8x8InferenceFlag,
            codedWidth: sps.codedWidth, codedHeight: sps.codedHeight,
            crop: sps.frameCropping.map { InspectReport.Crop(left: $0.left, right: $0.right, top: $0.top, bottom: $0.bottom) },
            width: sps.width, height: sps.height, vuiPresent: sps.vuiParametersPresentFlag)
    }
}

extension InspectReport.PictureParameterSet {
    /// The report entry for a parsed PPS.
    init(_ pps: H264.PictureParameterSet, offset: Int) {
        self.init(
            offset: offset, id: pps.id, spsId: pps.sequenceParameterSetID,
            entropyCoding: pps.entropyCodingModeFlag ? "cabac" : "cavlc",
            bottomFieldPicOrderInFramePresent: pps.bottomFieldPicOrderInFramePresentFlag,
            numSliceGroups: pps.numSliceGroups, transform8x8Mode: pps.transform8x8ModeFlag,
            scalingMatrixPresent: pps.picScalingMatrixPresentFlag)
    }
}
