/// A picture loss indication, PSFB (PT 206) FMT 1 (RFC 4585 section 6.3.1): the receiver lost picture data and
/// asks for a refresh; no FCI.
///
/// ```
/// |V=2|P|  FMT=1  |    PT=206     |          length=2             |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source                         |
/// ```
public struct PictureLossIndication: Hashable, Sendable {
    /// The receiver sending the PLI.
    public var senderSSRC: SSRC
    /// The media stream that needs a keyframe.
    public var mediaSSRC: SSRC

    /// Creates a PLI.
    /// - Parameters:
    ///   - senderSSRC: the receiver.
    ///   - mediaSSRC: the media stream.
    public init(senderSSRC: SSRC, mediaSSRC: SSRC) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    /// Bytes on the wire (always 12).
    public var serializedSize: Int { RTCPCommonHeader.size + 8 }

    init(reader r: ByteReader, body: Range<Int>) {
        self.init(senderSSRC: SSRC(r.u32(body.lowerBound)), mediaSSRC: SSRC(r.u32(body.lowerBound + 4)))
    }

    func write(to w: inout ByteWriter) {
        RTCPCommonHeader.write(
            to: &w, count: RTCPPacketType.pliFormat, packetType: RTCPPacketType.payloadFeedback, size: serializedSize)
        w.u32(senderSSRC.rawValue)
        w.u32(mediaSSRC.rawValue)
    }
}
