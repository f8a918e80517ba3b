/// The dependency descriptor as one packet of a frame carries it (`RTPPacketExtensions.dependencyDescriptor`): the
/// mandatory fields, and the extended fields already serialized for the frame, so that writing a packet copies bytes
/// and allocates nothing. `DependencyDescriptorSequence` makes one per frame; the packetizer sets `startOfFrame` and
/// `endOfFrame` on each packet and writes `firstPacketFields` on the frame's first packet (the structure, on a
/// keyframe), `laterPacketFields` on the others, as libwebrtc does (`rtp_sender_video.cc`: the structure only on the
/// first packet of a keyframe, the rest of the descriptor on every packet).
public struct DependencyDescriptorElement: Hashable, Sendable {
    /// The most bytes an element takes in the one-byte header form (RFC 8285 section 4.2), the only form the
    /// packetizer writes. libwebrtc's L1T3 structure on a keyframe takes exactly this many.
    public static let maximumSize = 16

    /// Whether the packet carries the frame's first byte.
    public var startOfFrame: Bool
    /// Whether the packet carries the frame's last byte.
    public var endOfFrame: Bool
    /// The wire template id (0-63).
    public var templateID: UInt8
    /// The frame's number.
    public var frameNumber: UInt16
    /// The bytes after the mandatory three on the frame's first packet (empty: none).
    public var firstPacketFields: [UInt8]
    /// The bytes after the mandatory three on the frame's other packets (empty: none).
    public var laterPacketFields: [UInt8]

    /// Creates an element.
    /// - Parameters:
    ///   - startOfFrame: whether the packet starts the frame.
    ///   - endOfFrame: whether the packet ends the frame.
    ///   - templateID: the wire template id (0-63; higher bits are dropped when written).
    ///   - frameNumber: the frame number.
    ///   - firstPacketFields: the extended fields of the frame's first packet.
    ///   - laterPacketFields: the extended fields of its other packets.
    public init(
        startOfFrame: Bool = true, endOfFrame: Bool = true, templateID: UInt8, frameNumber: UInt16,
        firstPacketFields: [UInt8] = [], laterPacketFields: [UInt8] = []
    ) {
        self.startOfFrame = startOfFrame
        self.endOfFrame = endOfFrame
        self.templateID = templateID
        self.frameNumber = frameNumber
        self.firstPacketFields = firstPacketFields
        self.laterPacketFields = laterPacketFields
    }

    /// The extended fields this packet carries.
    var extendedFields: [UInt8] { startOfFrame ? firstPacketFields : laterPacketFields }

    /// The element's data size in bytes on this packet.
    public var size: Int { DependencyDescriptor.mandatorySize + extendedFields.count }

    /// The largest data size over the frame's packets.
    var largestSize: Int { DependencyDescriptor.mandatorySize + max(firstPacketFields.count, laterPacketFields.count) }

    /// Writes the element's data (mandatory fields, then the extended fields of this packet).
    func write(to w: inout ByteWriter) {
        w.u8((startOfFrame ? 0x80 : 0) | (endOfFrame ? 0x40 : 0) | templateID & 0x3F)
        w.u16(frameNumber)
        let fields = extendedFields
        if !fields.isEmpty { fields.withUnsafeBytes { w.raw($0) } }
    }
}
