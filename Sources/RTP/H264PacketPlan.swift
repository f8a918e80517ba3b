/// One RTP packet of an access unit as `H264Packetizer.plan` lays it out, without its bytes: the header fields that
/// change from packet to packet and where the payload lies in the frame (which NAL units, which range of a fragmented
/// one). With the frame it was planned from, it is everything needed to write the packet, as often as needed
/// (`H264Packetizer.write(_:of:into:)`, or `writeRetransmission` for RTX): the sender's packet history keeps plans
/// and the frame instead of packet bytes, so each packet is written once, straight into the transport's buffer.
///
/// The SSRC, payload type and fixed header extension block are the packetizer's, the per-frame elements the plan's;
/// the STAP-A and FU-A header bytes are derived from the NAL header bytes in the frame when the packet is written.
public struct H264PacketPlan: Hashable, Sendable {
    /// The packet's sequence number.
    public var sequenceNumber: SequenceNumber
    /// The RTP timestamp of its access unit.
    public var timestamp: RTPTimestamp
    /// The payload's structure and its place in the frame; `payload.isLastOfAccessUnit` is the marker bit.
    public var payload: H264PayloadDescriptor
    /// Bytes of the RTP header as written (fixed header and extension block).
    public var headerSize: Int
    /// The per-frame extension elements the packet carries (the capture time on a frame's first packet, the playout
    /// delay), written after the packetizer's fixed block.
    public var extensions: RTPPacketExtensions

    /// Creates a plan.
    /// - Parameters:
    ///   - sequenceNumber: the packet's sequence number.
    ///   - timestamp: its RTP timestamp.
    ///   - payload: its payload, by reference to the frame's NAL units.
    ///   - headerSize: bytes of its RTP header.
    ///   - extensions: its per-frame extension elements (none by default).
    public init(
        sequenceNumber: SequenceNumber, timestamp: RTPTimestamp, payload: H264PayloadDescriptor, headerSize: Int,
        extensions: RTPPacketExtensions = .none
    ) {
        self.extensions = extensions
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.payload = payload
        self.headerSize = headerSize
    }

    /// The RTP marker bit: set on the last packet of the access unit (RFC 6184 section 5.1).
    public var marker: Bool { payload.isLastOfAccessUnit }

    /// The whole packet's size in bytes (header and payload, before any SRTP trailer).
    public var size: Int { headerSize + payload.size }
}
