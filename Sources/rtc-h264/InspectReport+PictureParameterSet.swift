extension InspectReport {
    /// One picture parameter set; each field is described in Docs/Inspect.md (`pictureParameterSets[]`).
    struct PictureParameterSet: Codable, Equatable, Sendable {
        /// Offset of its NAL header byte in the stream.
        var offset: Int
        var id: Int
        var spsId: Int
        /// "cabac" or "cavlc".
        var entropyCoding: String
        var bottomFieldPicOrderInFramePresent: Bool
        var numSliceGroups: Int
        var transform8x8Mode: Bool
        var scalingMatrixPresent: Bool
    }
}
