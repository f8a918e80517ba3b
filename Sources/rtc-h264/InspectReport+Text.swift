extension InspectReport {
    /// The human-readable listing printed without `--json`.
    var text: String {
        var lines: [String] = []
        lines.append("\(byteCount) bytes, \(nalUnitCount) NAL units, \(accessUnits.count) access units")
        for sps in sequenceParameterSets {
            var line = "SPS id=\(sps.id) @\(sps.offset): \(sps.profile), level \(sps.level), \(sps.width)x\(sps.height)"
            if sps.codedWidth != sps.width || sps.codedHeight != sps.height {
                line += " (coded \(sps.codedWidth)x\(sps.codedHeight))"
            }
            line += ", profile-level-id \(sps.profileLevelId), chroma_format_idc \(sps.chromaFormatIdc)"
            line += ", \(sps.bitDepthLuma)-bit, \(sps.frameMbsOnly ? "progressive" : "interlaced")"
            line += ", max_num_ref_frames \(sps.maxNumRefFrames)"
            lines.append(line)
        }
        for pps in pictureParameterSets {
            lines.append(
                "PPS id=\(pps.id) @\(pps.offset): sps \(pps.spsId), \(pps.entropyCoding)"
                    + (pps.transform8x8Mode ? ", 8x8 transform" : ""))
        }
        for unit in accessUnits {
            let nals = unit.nalUnits.map { "\($0.name)(\($0.size))" }.joined(separator: " ")
            lines.append("AU \(unit.index) @\(unit.offset) \(unit.size) bytes\(unit.keyframe ? " key" : ""): \(nals)")
        }
        return lines.joined(separator: "\n")
    }
}
