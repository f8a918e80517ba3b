extension InspectReport {
    /// One access unit.
    struct AccessUnit: Codable, Equatable, Sendable {
        /// Position in the stream, from 0.
        var index: Int
        /// Offset of its first byte (its first start code) in the stream.
        var offset: Int
        /// Its size in bytes, start codes included.
        var size: Int
        /// Whether it holds an IDR slice.
        var keyframe: Bool
        /// Its NAL units.
        var nalUnits: [NALUnit]
    }
}
