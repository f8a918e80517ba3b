/// A TMMBR (RTPFB FMT 3, RFC 5104 section 4.2.1) or TMMBN (RTPFB FMT 4, section 4.2.2) message: the sender SSRC,
/// a media source field that is 0, and FCI entries of 8 bytes.
///
/// ```
/// |V=2|P| FMT=3/4 |    PT=205     |          length               |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source (0)                     |
/// |                  FCI entries (8 bytes each)                   |
/// ```
public struct TemporaryMaximumBitrateMessage: Hashable, Sendable {
    /// The sender of the message.
    public var senderSSRC: SSRC
    /// The media source field as received (0 when sent by us, RFC 5104 section 4.2.1.2).
    public var mediaSSRC: SSRC
    /// The entries (a TMMBN may have none).
    public var entries: [TemporaryMaximumBitrateEntry]

    /// Creates a message.
    /// - Parameters:
    ///   - senderSSRC: the sender.
    ///   - mediaSSRC: the media source field (0).
    ///   - entries: the entries.
    public init(senderSSRC: SSRC, mediaSSRC: SSRC = SSRC(0), entries: [TemporaryMaximumBitrateEntry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    /// Bytes on the wire, header included.
    public var serializedSize: Int { RTCPCommonHeader.size + 8 + 8 * entries.count }

    init(reader r: ByteReader, body: Range<Int>, format: UInt8) throws(RTCPError) {
        let o = body.lowerBound
        let fci = body.count - 8
        guard fci % 8 == 0 else {
            throw .invalidFCILength(packetType: RTCPPacketType.transportFeedback, format: format, length: fci)
        }
        self.init(
            senderSSRC: SSRC(r.u32(o)), mediaSSRC: SSRC(r.u32(o + 4)),
            entries: (0..<(fci / 8)).map { TemporaryMaximumBitrateEntry(reader: r, at: o + 8 + 8 * $0) })
    }

    func write(to w: inout ByteWriter, format: UInt8) {
        RTCPCommonHeader.write(
            to: &w, count: format, packetType: RTCPPacketType.transportFeedback, size: serializedSize)
        w.u32(senderSSRC.rawValue)
        w.u32(mediaSSRC.rawValue)
        for entry in entries { entry.write(to: &w) }
    }
}
