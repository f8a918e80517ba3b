extension InspectReport {
    /// One NAL unit.
    struct NALUnit: Codable, Equatable, Sendable {
        /// `nal_unit_type` (0...31).
        var type: Int
        /// Short name: "sps", "pps", "sei", "idr", "slice", "aud", ...
        var name: String
        /// Offset of the NAL header byte in the stream.
        var offset: Int
        /// Size in bytes, header included, start code and trailing zeros excluded.
        var size: Int
        /// `nal_ref_idc`.
        var nalRefIdc: Int
    }
}
