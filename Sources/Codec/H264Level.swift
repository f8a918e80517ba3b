/// An H.264 level and its limits from ITU-T H.264 Table A-1.
public struct H264Level: Sendable, Hashable, CustomStringConvertible {
    /// `level_idc` as written in the SPS: ten times the level number (31 for level 3.1).
    public let levelIdc: UInt8
    /// MaxMBPS: maximum macroblock processing rate, macroblocks per second.
    public let maxMacroblocksPerSecond: Int
    /// MaxFS: maximum frame size, macroblocks.
    public let maxFrameSizeMacroblocks: Int
    /// MaxBR in units of `cpbBrVclFactor` bits per second (kbit/s for Baseline).
    public let maxBitrateUnits: Int

    /// Creates a level from Table A-1 values.
    /// - Parameters:
    ///   - levelIdc: `level_idc`.
    ///   - maxMacroblocksPerSecond: MaxMBPS.
    ///   - maxFrameSizeMacroblocks: MaxFS.
    ///   - maxBitrateUnits: MaxBR.
    public init(levelIdc: UInt8, maxMacroblocksPerSecond: Int, maxFrameSizeMacroblocks: Int, maxBitrateUnits: Int) {
        self.levelIdc = levelIdc
        self.maxMacroblocksPerSecond = maxMacroblocksPerSecond
        self.maxFrameSizeMacroblocks = maxFrameSizeMacroblocks
        self.maxBitrateUnits = maxBitrateUnits
    }

    /// Level 3 (Table A-1: MaxMBPS 40500, MaxFS 1620, MaxBR 10000).
    public static let level3_0 = H264Level(levelIdc: 30, maxMacroblocksPerSecond: 40_500, maxFrameSizeMacroblocks: 1_620,
                                           maxBitrateUnits: 10_000)
    /// Level 3.1 (Table A-1: MaxMBPS 108000, MaxFS 3600, MaxBR 14000), the default: 1280x720 at 30 fps.
    public static let level3_1 = H264Level(levelIdc: 31, maxMacroblocksPerSecond: 108_000,
                                           maxFrameSizeMacroblocks: 3_600, maxBitrateUnits: 14_000)
    /// Level 3.2 (Table A-1: MaxMBPS 216000, MaxFS 5120, MaxBR 20000).
    public static let level3_2 = H264Level(levelIdc: 32, maxMacroblocksPerSecond: 216_000,
                                           maxFrameSizeMacroblocks: 5_120, maxBitrateUnits: 20_000)
    /// Level 4 (Table A-1: MaxMBPS 245760, MaxFS 8192, MaxBR 20000).
    public static let level4_0 = H264Level(levelIdc: 40, maxMacroblocksPerSecond: 245_760,
                                           maxFrameSizeMacroblocks: 8_192, maxBitrateUnits: 20_000)
    /// Level 4.1 (Table A-1: MaxMBPS 245760, MaxFS 8192, MaxBR 50000).
    public static let level4_1 = H264Level(levelIdc: 41, maxMacroblocksPerSecond: 245_760,
                                           maxFrameSizeMacroblocks: 8_192, maxBitrateUnits: 50_000)
    /// Level 4.2 (Table A-1: MaxMBPS 522240, MaxFS 8704, MaxBR 50000).
    public static let level4_2 = H264Level(levelIdc: 42, maxMacroblocksPerSecond: 522_240,
                                           maxFrameSizeMacroblocks: 8_704, maxBitrateUnits: 50_000)
    /// Level 5 (Table A-1: MaxMBPS 589824, MaxFS 22080, MaxBR 135000).
    public static let level5_0 = H264Level(levelIdc: 50, maxMacroblocksPerSecond: 589_824,
                                           maxFrameSizeMacroblocks: 22_080, maxBitrateUnits: 135_000)
    /// Level 5.1 (Table A-1: MaxMBPS 983040, MaxFS 36864, MaxBR 240000).
    public static let level5_1 = H264Level(levelIdc: 51, maxMacroblocksPerSecond: 983_040,
                                           maxFrameSizeMacroblocks: 36_864, maxBitrateUnits: 240_000)

    /// The levels this encoder can be configured with.
    public static let all: [H264Level] = [level3_0, level3_1, level3_2, level4_0, level4_1, level4_2, level5_0, level5_1]

    /// The level with `levelIdc`, if supported.
    /// - Parameter levelIdc: e.g. 31.
    public init?(levelIdc: UInt8) {
        guard let level = H264Level.all.first(where: { $0.levelIdc == levelIdc }) else { return nil }
        self = level
    }

    /// MaxBR in bits per second for `profile` (MaxBR x cpbBrVclFactor, Table A-2).
    /// - Parameter profile: the profile.
    /// Saturates at `Int.max` for a made-up level whose product would overflow.
    public func maxBitrate(for profile: EncoderProfile) -> Int {
        let (product, overflow) = maxBitrateUnits.multipliedReportingOverflow(by: profile.bitrateFactor)
        return overflow ? .max : product
    }

    /// The largest width or height in macroblocks, `Sqrt(MaxFS * 8)` (H.264 A.3.1 items f and g), computed without
    /// overflow for any MaxFS.
    public var maxDimensionMacroblocks: Int {
        let product = Double(max(0, maxFrameSizeMacroblocks)) * 8
        let root = product.squareRoot().rounded(.down)
        return root < 1e15 ? Int(root) : Int(1e15)
    }

    /// The level as written by people: "3.1".
    public var description: String {
        levelIdc % 10 == 0 ? "\(levelIdc / 10)" : "\(levelIdc / 10).\(levelIdc % 10)"
    }
}
