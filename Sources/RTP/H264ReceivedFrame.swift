import H264

/// An access unit rebuilt by the depacketizer, with the RTP fields it came with.
public struct H264ReceivedFrame: Sendable {
    /// The access unit as Annex-B (4-byte start codes) with its NAL index; `timestamp` is the RTP timestamp
    /// unwrapped to 64 bits (90 kHz), `isKeyframe` is true when an IDR slice is present.
    public var frame: EncodedFrame
    /// The RTP timestamp as received.
    public var rtpTimestamp: RTPTimestamp
    /// The SSRC of the stream.
    public var ssrc: SSRC
    /// The extended sequence number of the frame's first packet.
    public var firstSequenceNumber: Int64
    /// The extended sequence number of its last packet.
    public var lastSequenceNumber: Int64
    /// Whether the frame ended with the marker bit (otherwise a timestamp change or a flush ended it).
    public var hadMarker: Bool
}
