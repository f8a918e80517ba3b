/// What `rtc-h264 inspect` reports about an Annex-B stream; encoded as JSON for `--json` (shape: Docs/Inspect.md).
struct InspectReport: Codable, Equatable, Sendable {
    /// Size of the input in bytes.
    var byteCount: Int
    /// Number of NAL units.
    var nalUnitCount: Int
    /// The access units, in order.
    var accessUnits: [AccessUnit]
    /// Every SPS of the stream in order of appearance (repeats included).
    var sequenceParameterSets: [SequenceParameterSet]
    /// Every PPS of the stream in order of appearance (repeats included).
    var pictureParameterSets: [PictureParameterSet]
}
