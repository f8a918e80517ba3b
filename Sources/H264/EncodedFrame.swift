/// One encoded access unit as contiguous Annex-B bytes, with the index of its NAL units so that later stages
/// (packetizer, writer, SDP) never scan it again.
///
/// The encoder puts SPS and PPS ahead of every IDR, so a keyframe is self-contained.
public struct EncodedFrame: Sendable {
    /// The access unit in Annex-B form (each NAL preceded by a start code).
    public var bytes: [UInt8]
    /// The NAL units inside `bytes`, in order.
    public var nalUnits: [NALUnitLocation]
    /// Whether the access unit holds an IDR slice.
    public var isKeyframe: Bool
    /// Presentation time in 90 kHz units, monotonic and not wrapped (the RTP layer maps it to a 32-bit timestamp).
    public var timestamp: Int64
    /// The temporal layer of the frame (0 is the base layer): a frame is predicted only from frames of its own or a
    /// lower layer. Always 0 for an encoder with one temporal layer.
    public var temporalLayer: Int

    /// Creates a frame from bytes and an already-known NAL index.
    /// - Parameters:
    ///   - bytes: Annex-B bytes.
    ///   - nalUnits: the NAL units in `bytes`.
    ///   - isKeyframe: whether an IDR slice is present.
    ///   - timestamp: 90 kHz presentation time.
    ///   - temporalLayer: the frame's temporal layer (0, the base layer, by default).
    public init(bytes: [UInt8], nalUnits: [NALUnitLocation], isKeyframe: Bool, timestamp: Int64, temporalLayer: Int = 0) {
        self.bytes = bytes
        self.nalUnits = nalUnits
        self.isKeyframe = isKeyframe
        self.timestamp = timestamp
        self.temporalLayer = temporalLayer
    }

    /// Creates a frame by indexing Annex-B bytes; `isKeyframe` is derived from the presence of an IDR slice.
    /// - Parameters:
    ///   - annexB: one access unit in Annex-B form.
    ///   - timestamp: 90 kHz presentation time.
    public init(annexB: [UInt8], timestamp: Int64) {
        let units = AnnexB.nalUnitLocations(in: annexB)
        self.init(bytes: annexB, nalUnits: units, isKeyframe: units.contains { $0.type == .idrSlice }, timestamp: timestamp)
    }

    /// The bytes of NAL unit `index` (header included), as a slice of `bytes`, not a copy.
    /// - Parameter index: position in `nalUnits`.
    public func nalUnit(_ index: Int) -> ArraySlice<UInt8> {
        bytes[nalUnits[index].range]
    }

    /// The number of bytes of the access unit.
    public var size: Int { bytes.count }
}
