extension InspectReport {
    /// Frame crop offsets (`frame_crop_*_offset`), in crop units.
    struct Crop: Codable, Equatable, Sendable {
        var left: Int
        var right: Int
        var top: Int
        var bottom: Int
    }
}
