/// One scaling list of a sequence or picture parameter set (H.264 7.3.2.1.1.1, 7.4.2.1.1).
public enum ScalingList: Hashable, Sendable {
    /// `*_scaling_list_present_flag` is 0: the fall-back rule of H.264 Table 7-2 applies.
    case notPresent
    /// The list was coded with `useDefaultScalingMatrixFlag` = 1: the default list of H.264 Table 7-3/7-4 applies.
    case useDefault
    /// Explicit weights (16 for a 4x4 list, 64 for 8x8), in the zig-zag order in which they are coded.
    case explicit([UInt8])

    /// Reads `scaling_list(scalingList, sizeOfScalingList, useDefaultScalingMatrixFlag)` (H.264 7.3.2.1.1.1).
    /// - Parameters:
    ///   - reader: positioned after the list's present flag (which was 1).
    ///   - size: 16 or 64.
    /// - Throws: ``H264Error/valueOutOfRange(offset:field:value:)`` for `delta_scale` outside -128...127, or reader errors.
    static func read(from reader: inout BitReader, size: Int) throws(H264Error) -> ScalingList {
        var list: [UInt8] = []
        list.reserveCapacity(size)
        var lastScale = 8
        var nextScale = 8
        for j in 0..<size {
            if nextScale != 0 {
                let delta = try reader.se("delta_scale", in: -128...127)
                nextScale = (lastScale + delta + 256) % 256
                if j == 0 && nextScale == 0 { return .useDefault }
            }
            let value = nextScale == 0 ? lastScale : nextScale
            list.append(UInt8(value))
            lastScale = value
        }
        return .explicit(list)
    }

    /// Reads the present flags and lists of a scaling matrix: the first six lists are 4x4, the rest 8x8.
    /// - Parameters:
    ///   - reader: positioned at the first `*_scaling_list_present_flag`.
    ///   - count: the number of lists (6, 8 or 12).
    /// - Throws: as ``read(from:size:)``.
    static func readMatrix(from reader: inout BitReader, count: Int) throws(H264Error) -> [ScalingList] {
        var lists: [ScalingList] = []
        for i in 0..<count {
            if try reader.flag() {
                lists.append(try read(from: &reader, size: i < 6 ? 16 : 64))
            } else {
                lists.append(.notPresent)
            }
        }
        return lists
    }
}
