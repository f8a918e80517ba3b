/// One access unit found in an Annex-B stream: the NAL units of one primary coded picture plus the parameter sets,
/// SEI and delimiters that precede it (H.264 7.4.1.2.3).
public struct AccessUnit: Hashable, Sendable {
    /// Where the access unit lies in the stream: from its first start code (or the stream start) to the next access
    /// unit's first start code (or the stream end), as ffmpeg's H.264 parser cuts packets.
    public var byteRange: Range<Int>
    /// Its NAL units, in order, with offsets into the stream.
    public var nalUnits: [NALUnitLocation]

    /// Creates an access unit.
    /// - Parameters:
    ///   - byteRange: the bytes of the stream it covers.
    ///   - nalUnits: its NAL units.
    public init(byteRange: Range<Int>, nalUnits: [NALUnitLocation]) {
        self.byteRange = byteRange
        self.nalUnits = nalUnits
    }

    /// Whether it holds an IDR slice.
    public var isKeyframe: Bool { nalUnits.contains { $0.type == .idrSlice } }
}
