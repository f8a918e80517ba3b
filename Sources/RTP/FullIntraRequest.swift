/// A full intra request, PSFB (PT 206) FMT 4 (RFC 5104 section 4.3.1). The media source SSRC field is unused and
/// set to 0 (section 4.3.1.2); the targets are in the FCI entries.
///
/// ```
/// |V=2|P|  FMT=4  |    PT=206     |          length               |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source (0)                     |
/// |                              SSRC                             |  (FCI entries, repeated)
/// | Seq nr.       |    Reserved                                   |
/// ```
public struct FullIntraRequest: Hashable, Sendable {
    /// The requester.
    public var senderSSRC: SSRC
    /// The media source field as received (0 when sent by us).
    public var mediaSSRC: SSRC
    /// The FCI entries.
    public var entries: [FullIntraRequestEntry]

    /// Creates a FIR.
    /// - Parameters:
    ///   - senderSSRC: the requester.
    ///   - mediaSSRC: the media source field (RFC 5104 says 0).
    ///   - entries: the targets.
    public init(senderSSRC: SSRC, mediaSSRC: SSRC = SSRC(0), entries: [FullIntraRequestEntry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    /// Bytes on the wire, header included.
    public var serializedSize: Int { RTCPCommonHeader.size + 8 + 8 * entries.count }

    init(reader r: ByteReader, body: Range<Int>) throws(RTCPError) {
        let o = body.lowerBound
        let fci = body.count - 8
        guard fci % 8 == 0 else {
            throw .invalidFCILength(
                packetType: RTCPPacketType.payloadFeedback, format: RTCPPacketType.firFormat, length: fci)
        }
        self.init(
            senderSSRC: SSRC(r.u32(o)), mediaSSRC: SSRC(r.u32(o + 4)),
            entries: (0..<(fci / 8)).map {
                FullIntraRequestEntry(ssrc: SSRC(r.u32(o + 8 + 8 * $0)), sequenceNumber: r.u8(o + 12 + 8 * $0))
            })
    }

    func write(to w: inout ByteWriter) {
        RTCPCommonHeader.write(
            to: &w, count: RTCPPacketType.firFormat, packetType: RTCPPacketType.payloadFeedback, size: serializedSize)
        w.u32(senderSSRC.rawValue)
        w.u32(mediaSSRC.rawValue)
        for entry in entries {
            w.u32(entry.ssrc.rawValue)
            w.u8(entry.sequenceNumber)
            w.zeros(3)
        }
    }
}
