import RTP

/// The retransmission stream of one media stream (RFC 4588): its own SSRC, payload type and sequence numbers. Its
/// packets are written from the frame straight into the transport's buffer (`H264Packetizer.writeRetransmission`),
/// so it keeps no buffer of its own.
struct RTXStream {
    /// The RTX stream's SSRC.
    let ssrc: SSRC
    /// The RTX payload type (its `apt` is the media's).
    let payloadType: PayloadType
    /// The sequence number the next RTX packet gets.
    private(set) var nextSequenceNumber: SequenceNumber

    /// Creates a stream.
    /// - Parameters:
    ///   - ssrc: its SSRC.
    ///   - payloadType: its payload type.
    ///   - firstSequenceNumber: its first sequence number (random).
    init(ssrc: SSRC, payloadType: PayloadType, firstSequenceNumber: SequenceNumber) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.nextSequenceNumber = firstSequenceNumber
    }

    /// Moves to the next sequence number, once an RTX packet was written with `nextSequenceNumber`.
    mutating func advance() {
        nextSequenceNumber += 1
    }
}
