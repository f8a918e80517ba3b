import RTP

/// The retransmission stream of one media stream (RFC 4588): its own SSRC, payload type and sequence numbers, and
/// the buffer each RTX packet is built in (reused: nothing is allocated per packet).
struct RTXStream {
    /// The RTX stream's SSRC.
    let ssrc: SSRC
    /// The RTX payload type (its `apt` is the media's).
    let payloadType: PayloadType
    /// The next RTX sequence number.
    private(set) var nextSequenceNumber: SequenceNumber
    private var buffer: [UInt8]

    /// Creates a stream.
    /// - Parameters:
    ///   - ssrc: its SSRC.
    ///   - payloadType: its payload type.
    ///   - firstSequenceNumber: its first sequence number (random).
    ///   - maximumPacketSize: the largest original packet it will carry.
    init(ssrc: SSRC, payloadType: PayloadType, firstSequenceNumber: SequenceNumber,
         maximumPacketSize: Int = PacketHistory.defaultSlotSize) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.nextSequenceNumber = firstSequenceNumber
        buffer = [UInt8](repeating: 0, count: maximumPacketSize + RTXPacket.originalSequenceNumberSize)
    }

    /// Builds the RTX packet of `original` (its sequence number first in the payload, RFC 4588 section 4) and hands
    /// it to `body`, mutable (the transport-wide number is written into it). The sequence number advances only for
    /// a packet built.
    /// - Parameters:
    ///   - original: the media packet to resend.
    ///   - body: receives the RTX packet, valid only during the call.
    /// - Throws: `RTXError` for an original that cannot be resent; what `body` throws.
    mutating func withPacket<R>(
        from original: UnsafeRawBufferPointer, _ body: (UnsafeMutableRawBufferPointer) throws -> R
    ) throws -> R {
        let sequenceNumber = nextSequenceNumber
        let (ssrc, payloadType) = (self.ssrc, self.payloadType)
        let length = try buffer.withUnsafeMutableBytes { raw in
            try RTXPacket.build(
                from: original, ssrc: ssrc, payloadType: payloadType, sequenceNumber: sequenceNumber, into: raw)
        }
        nextSequenceNumber += 1
        return try buffer.withUnsafeMutableBytes { raw in
            try body(UnsafeMutableRawBufferPointer(rebasing: raw[0..<length]))
        }
    }
}
