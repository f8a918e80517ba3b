/// A generic NACK, RTPFB (PT 205) FMT 1 (RFC 4585 section 6.2.1): the receiver lists lost packets.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=1  |    PT=205     |          length               |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source                         |
/// |            PID                |             BLP               |  (repeated)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct GenericNACK: Hashable, Sendable {
    /// The receiver sending the NACK.
    public var senderSSRC: SSRC
    /// The media stream the lost packets belong to.
    public var mediaSSRC: SSRC
    /// The FCI entries.
    public var pairs: [NACKPair]

    /// Creates a NACK from FCI entries.
    /// - Parameters:
    ///   - senderSSRC: the receiver.
    ///   - mediaSSRC: the media stream.
    ///   - pairs: the entries.
    public init(senderSSRC: SSRC, mediaSSRC: SSRC, pairs: [NACKPair]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.pairs = pairs
    }

    /// Creates a NACK from lost sequence numbers, packing each run of 17 into one entry.
    /// - Parameters:
    ///   - senderSSRC: the receiver.
    ///   - mediaSSRC: the media stream.
    ///   - lost: lost sequence numbers in sending order (wrap-aware: each is after the previous).
    public init(senderSSRC: SSRC, mediaSSRC: SSRC, lost: [SequenceNumber]) {
        var pairs: [NACKPair] = []
        for sequenceNumber in lost {
            if var last = pairs.last {
                let distance = last.packetID.distance(to: sequenceNumber)
                if (1...16).contains(distance) {
                    last.lostBitmask |= 1 << (distance - 1)
                    pairs[pairs.count - 1] = last
                    continue
                }
                if distance == 0 { continue }
            }
            pairs.append(NACKPair(packetID: sequenceNumber))
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, pairs: pairs)
    }

    /// Every sequence number reported lost, in order.
    public var lostSequenceNumbers: [SequenceNumber] { pairs.flatMap(\.sequenceNumbers) }

    /// Bytes on the wire, header included.
    public var serializedSize: Int { RTCPCommonHeader.size + 8 + 4 * pairs.count }

    init(reader r: ByteReader, body: Range<Int>) throws(RTCPError) {
        let o = body.lowerBound
        let fci = body.count - 8
        guard fci % 4 == 0 else {
            throw .invalidFCILength(
                packetType: RTCPPacketType.transportFeedback, format: RTCPPacketType.genericNACKFormat, length: fci)
        }
        self.init(
            senderSSRC: SSRC(r.u32(o)), mediaSSRC: SSRC(r.u32(o + 4)),
            pairs: (0..<(fci / 4)).map {
                NACKPair(packetID: SequenceNumber(r.u16(o + 8 + 4 * $0)), lostBitmask: r.u16(o + 10 + 4 * $0))
            })
    }

    func write(to w: inout ByteWriter) {
        RTCPCommonHeader.write(
            to: &w, count: RTCPPacketType.genericNACKFormat, packetType: RTCPPacketType.transportFeedback,
            size: serializedSize)
        w.u32(senderSSRC.rawValue)
        w.u32(mediaSSRC.rawValue)
        for pair in pairs {
            w.u16(pair.packetID.rawValue)
            w.u16(pair.lostBitmask)
        }
    }
}
