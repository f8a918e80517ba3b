/// Building and reading RTP retransmission packets (RFC 4588) in the caller's buffers, without allocating.
///
/// An RTX packet is the original packet sent on the retransmission stream: its own SSRC, payload type (the one whose
/// `a=fmtp:<pt> apt=` names the original) and sequence number space, the same timestamp, marker, CSRCs and header
/// extensions, and a payload that starts with the original sequence number (RFC 4588 section 4):
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         RTP Header                            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |            OSN                |                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               |
/// |                  Original RTP Packet Payload                  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The original's padding is not carried (the P bit is cleared). Header extensions are copied as they are; a
/// transport-wide sequence number in them must be rewritten per sent packet by the caller
/// (`TransportSequenceNumber.write`).
public enum RTXPacket {
    /// Bytes of the original sequence number at the start of the RTX payload (RFC 4588 section 4).
    public static let originalSequenceNumberSize = 2

    /// The RTX packet's size for an original packet (its padding dropped, 2 bytes added).
    /// - Parameter original: the original RTP packet.
    /// - Returns: the RTX packet's length, without any SRTP trailer.
    /// - Throws: `RTXError.invalidRTP` when the original is not valid RTP.
    public static func size(forOriginal original: UnsafeRawBufferPointer) throws(RTXError) -> Int {
        let layout = try layout(original)
        return layout.count - layout.paddingLength + originalSequenceNumberSize
    }

    /// Writes the RTX packet for `original` at the start of `buffer` (RFC 4588 section 4).
    /// - Parameters:
    ///   - original: the original RTP packet, unprotected (as kept by the packet history).
    ///   - ssrc: the retransmission stream's SSRC (`a=ssrc-group:FID <media> <rtx>`).
    ///   - payloadType: the RTX payload type (`a=rtpmap:<pt> rtx/90000`).
    ///   - sequenceNumber: the next sequence number of the retransmission stream, assigned when sent.
    ///   - buffer: the destination; must not overlap `original`.
    ///   - reservedTrailer: bytes that must remain free after the packet (the SRTP tag, RFC 3711 section 3.1).
    /// - Returns: the RTX packet's length.
    /// - Throws: `RTXError.invalidRTP` or `RTXError.bufferTooSmall`.
    public static func build(
        from original: UnsafeRawBufferPointer, ssrc: SSRC, payloadType: PayloadType, sequenceNumber: SequenceNumber,
        into buffer: UnsafeMutableRawBufferPointer, reservedTrailer: Int = 0
    ) throws(RTXError) -> Int {
        let layout = try layout(original)
        let payload = layout.payloadRange
        let total = layout.headerSize + originalSequenceNumberSize + payload.count
        guard reservedTrailer >= 0, buffer.count >= total + reservedTrailer else {
            throw .bufferTooSmall(needed: total + max(0, reservedTrailer), available: buffer.count)
        }
        let r = ByteReader(buffer: original)
        var w = ByteWriter(buffer)
        w.raw(UnsafeRawBufferPointer(rebasing: original[0..<layout.headerSize]))
        buffer[0] &= ~paddingBit
        buffer[1] = (buffer[1] & markerBit) | payloadType.rawValue
        var fields = ByteWriter(buffer, offset: 2)
        fields.u16(sequenceNumber.rawValue)
        fields = ByteWriter(buffer, offset: ssrcOffset)
        fields.u32(ssrc.rawValue)
        w.u16(r.u16(2))
        w.raw(UnsafeRawBufferPointer(rebasing: original[payload]))
        return w.offset
    }

    /// Reads the original sequence number of an RTX packet.
    /// - Parameter rtx: the RTX packet, unprotected.
    /// - Returns: the OSN.
    /// - Throws: `RTXError.invalidRTP` or `RTXError.missingOriginalSequenceNumber`.
    public static func originalSequenceNumber(of rtx: UnsafeRawBufferPointer) throws(RTXError) -> SequenceNumber {
        let layout = try layout(rtx)
        guard layout.payloadRange.count >= originalSequenceNumberSize else {
            throw .missingOriginalSequenceNumber(payloadSize: layout.payloadRange.count)
        }
        return SequenceNumber(ByteReader(buffer: rtx).u16(layout.headerSize))
    }

    /// Writes back the original packet carried by an RTX packet (RFC 4588 section 4): the media SSRC and payload
    /// type, the OSN as sequence number, the payload after the OSN; the RTX packet's padding is dropped.
    /// - Parameters:
    ///   - rtx: the RTX packet, unprotected.
    ///   - mediaSSRC: the original stream's SSRC (the FID group's first SSRC).
    ///   - payloadType: the original payload type (the RTX payload type's `apt=`).
    ///   - buffer: the destination; must not overlap `rtx`.
    /// - Returns: the original packet's length.
    /// - Throws: `RTXError.invalidRTP`, `RTXError.missingOriginalSequenceNumber` or `RTXError.bufferTooSmall`.
    public static func restore(
        from rtx: UnsafeRawBufferPointer, mediaSSRC: SSRC, payloadType: PayloadType,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTXError) -> Int {
        let layout = try layout(rtx)
        let payload = layout.payloadRange
        guard payload.count >= originalSequenceNumberSize else {
            throw .missingOriginalSequenceNumber(payloadSize: payload.count)
        }
        let total = layout.headerSize + payload.count - originalSequenceNumberSize
        guard buffer.count >= total else { throw .bufferTooSmall(needed: total, available: buffer.count) }
        let r = ByteReader(buffer: rtx)
        var w = ByteWriter(buffer)
        w.raw(UnsafeRawBufferPointer(rebasing: rtx[0..<layout.headerSize]))
        w.raw(UnsafeRawBufferPointer(rebasing: rtx[(payload.lowerBound + originalSequenceNumberSize)..<payload.upperBound]))
        buffer[0] &= ~paddingBit
        buffer[1] = (buffer[1] & markerBit) | payloadType.rawValue
        var fields = ByteWriter(buffer, offset: 2)
        fields.u16(r.u16(layout.headerSize))
        fields = ByteWriter(buffer, offset: ssrcOffset)
        fields.u32(mediaSSRC.rawValue)
        return w.offset
    }

    /// Array forms for tests and tools (they allocate).
    /// - Parameters:
    ///   - original: the original packet.
    ///   - ssrc: the RTX SSRC.
    ///   - payloadType: the RTX payload type.
    ///   - sequenceNumber: the RTX sequence number.
    /// - Returns: the RTX packet.
    /// - Throws: `RTXError.invalidRTP`.
    public static func build(
        from original: [UInt8], ssrc: SSRC, payloadType: PayloadType, sequenceNumber: SequenceNumber
    ) throws(RTXError) -> [UInt8] {
        let needed = original.withUnsafeBytes { src in Result { () throws(RTXError) in try size(forOriginal: src) } }
        var out = [UInt8](repeating: 0, count: try needed.get())
        let result = original.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                Result { () throws(RTXError) in
                    try build(from: src, ssrc: ssrc, payloadType: payloadType, sequenceNumber: sequenceNumber, into: dst)
                }
            }
        }
        out.removeLast(out.count - (try result.get()))
        return out
    }

    /// The original packet carried by an RTX packet, as a new array.
    /// - Parameters:
    ///   - rtx: the RTX packet.
    ///   - mediaSSRC: the media SSRC.
    ///   - payloadType: the media payload type.
    /// - Returns: the original packet.
    /// - Throws: `RTXError.invalidRTP` or `RTXError.missingOriginalSequenceNumber`.
    public static func restore(from rtx: [UInt8], mediaSSRC: SSRC, payloadType: PayloadType) throws(RTXError)
        -> [UInt8]
    {
        var out = [UInt8](repeating: 0, count: rtx.count)
        let result = rtx.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                Result { () throws(RTXError) in
                    try restore(from: src, mediaSSRC: mediaSSRC, payloadType: payloadType, into: dst)
                }
            }
        }
        out.removeLast(out.count - (try result.get()))
        return out
    }

    /// The P bit in the first header byte (RFC 3550 section 5.1).
    static let paddingBit: UInt8 = 0x20
    /// The M bit in the second header byte.
    static let markerBit: UInt8 = 0x80
    /// Offset of the SSRC in the fixed header.
    static let ssrcOffset = 8

    private static func layout(_ packet: UnsafeRawBufferPointer) throws(RTXError) -> RTPPacketLayout {
        do { return try RTPPacketLayout(packet) } catch { throw .invalidRTP(error) }
    }
}
