/// REMB, PSFB (PT 206) FMT 15 with the unique identifier 'REMB' (draft-alvestrand-rmcat-remb-03 section 2.2):
/// the receiver's estimate of the total bitrate the listed streams may use.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P| FMT=15  |   PT=206      |             length            |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source (0)                     |
/// |  Unique identifier 'R' 'E' 'M' 'B'                            |
/// |  Num SSRC     | BR Exp    |  BR Mantissa                      |
/// |   SSRC feedback                                               |  (Num SSRC times)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct ReceiverEstimatedMaximumBitrate: Hashable, Sendable {
    /// The unique identifier, ASCII "REMB".
    public static let identifier: UInt32 = 0x5245_4D42
    /// Bits of the mantissa field.
    static let mantissaBits = 18

    /// The receiver sending the estimate.
    public var senderSSRC: SSRC
    /// The media source field (0 per the draft).
    public var mediaSSRC: SSRC
    /// The estimated maximum bitrate, bits per second (rounded down to what exponent/mantissa can hold).
    public var bitrate: UInt64
    /// The streams the estimate applies to (at most 255).
    public var ssrcs: [SSRC]

    /// Creates a REMB; the bitrate is rounded down to the nearest encodable value.
    /// - Parameters:
    ///   - senderSSRC: the receiver.
    ///   - mediaSSRC: the media source field (0).
    ///   - bitrate: bits per second.
    ///   - ssrcs: the streams.
    public init(senderSSRC: SSRC, mediaSSRC: SSRC = SSRC(0), bitrate: UInt64, ssrcs: [SSRC]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        let (e, m) = ExponentialBitrate.encode(bitrate, mantissaBits: Self.mantissaBits)
        self.bitrate = ExponentialBitrate.decode(exponent: e, mantissa: m)
        self.ssrcs = ssrcs
    }

    /// Bytes on the wire, header included.
    public var serializedSize: Int { RTCPCommonHeader.size + 16 + 4 * ssrcs.count }

    /// Whether an application-layer feedback body carries the 'REMB' identifier.
    static func matches(reader r: ByteReader, body: Range<Int>) -> Bool {
        body.count >= 16 && r.u32(body.lowerBound + 8) == identifier
    }

    init(reader r: ByteReader, body: Range<Int>) throws(RTCPError) {
        let o = body.lowerBound
        let count = Int(r.u8(o + 12))
        guard body.count >= 16 + 4 * count else {
            throw .rembSSRCCountMismatch(declared: count, available: (body.count - 16) / 4)
        }
        let word = r.u24(o + 13)
        self.senderSSRC = SSRC(r.u32(o))
        self.mediaSSRC = SSRC(r.u32(o + 4))
        self.bitrate = ExponentialBitrate.decode(exponent: UInt8(word >> 18), mantissa: word & 0x3_FFFF)
        self.ssrcs = (0..<count).map { SSRC(r.u32(o + 16 + 4 * $0)) }
    }

    func validate() throws(RTCPError) {
        guard ssrcs.count <= 255 else { throw .tooManyEntries(ssrcs.count) }
    }

    func write(to w: inout ByteWriter) {
        RTCPCommonHeader.write(
            to: &w, count: RTCPPacketType.applicationLayerFeedbackFormat, packetType: RTCPPacketType.payloadFeedback,
            size: serializedSize)
        w.u32(senderSSRC.rawValue)
        w.u32(mediaSSRC.rawValue)
        w.u32(Self.identifier)
        let (e, m) = ExponentialBitrate.encode(bitrate, mantissaBits: Self.mantissaBits)
        w.u8(UInt8(ssrcs.count))
        w.u24(UInt32(e) << 18 | m)
        for ssrc in ssrcs { w.u32(ssrc.rawValue) }
    }
}
