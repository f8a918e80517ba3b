/// TURN ChannelData framing (RFC 8656 section 12.4): a 4-byte header (channel number, length) in front of the
/// application data, instead of a Send or Data indication's 36 or more bytes.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |         Channel Number        |            Length             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                       Application Data                        |
/// ```
public enum ChannelData {
    /// The header's length.
    public static let headerSize = 4
    /// The channel numbers a client may bind (RFC 8656 section 12).
    public static let channelRange: ClosedRange<UInt16> = 0x4000...0x4FFF

    /// Whether a first byte starts ChannelData (0b01 in its two top bits) rather than STUN (0b00), RFC 7983's split.
    /// - Parameter firstByte: The first byte of a datagram or stream frame.
    /// - Returns: true for 64-127 (the channels 0x4000-0x7FFF; only 0x4000-0x4FFF are valid).
    public static func startsChannelData(_ firstByte: UInt8) -> Bool { firstByte & 0xC0 == 0x40 }

    /// The bytes a ChannelData message of `payloadCount` bytes occupies: over TCP and TLS padded to a multiple of 4
    /// (RFC 8656 section 12.5); over UDP not padded.
    /// - Parameters:
    ///   - payloadCount: The application data's length.
    ///   - padded: Whether the transport is a stream.
    /// - Returns: The message's length on the wire.
    public static func wireSize(payloadCount: Int, padded: Bool) -> Int {
        let size = headerSize + payloadCount
        return padded ? (size + 3) & ~3 : size
    }

    /// Writes the header for `payloadCount` bytes of data on `channel` into the first four bytes of `buffer`.
    /// - Parameters:
    ///   - channel: The bound channel number.
    ///   - payloadCount: The application data's length, at most 65535.
    ///   - buffer: At least four bytes.
    /// - Throws: `TURNError.payloadTooLarge` or `.bufferTooSmall`.
    public static func writeHeader(
        channel: UInt16, payloadCount: Int, into buffer: UnsafeMutableRawBufferPointer
    ) throws(TURNError) {
        guard payloadCount <= Int(UInt16.max) else { throw .payloadTooLarge(payloadCount) }
        guard buffer.count >= headerSize else { throw .bufferTooSmall(needed: headerSize, available: buffer.count) }
        buffer[0] = UInt8(channel >> 8)
        buffer[1] = UInt8(channel & 0xFF)
        buffer[2] = UInt8(payloadCount >> 8)
        buffer[3] = UInt8(payloadCount & 0xFF)
    }

    /// A whole ChannelData message.
    /// - Parameters:
    ///   - channel: The bound channel number.
    ///   - payload: The application data.
    ///   - padded: Whether to pad to a multiple of 4 (TCP and TLS).
    /// - Returns: The message.
    /// - Throws: `TURNError.payloadTooLarge` over 65535 bytes.
    public static func message(channel: UInt16, payload: some Collection<UInt8>, padded: Bool) throws(TURNError) -> [UInt8] {
        guard payload.count <= Int(UInt16.max) else { throw .payloadTooLarge(payload.count) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(wireSize(payloadCount: payload.count, padded: padded))
        bytes += [UInt8(channel >> 8), UInt8(channel & 0xFF), UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        bytes += payload
        if padded { bytes += repeatElement(0, count: (4 - payload.count % 4) % 4) }
        return bytes
    }

    /// Reads a ChannelData message's channel and where its data lies.
    /// - Parameter bytes: One message (a UDP datagram or one stream frame), padding allowed after the data.
    /// - Returns: The channel and the data's range in `bytes`' indices.
    /// - Throws: `TURNError.malformed` when the header is short, the channel is outside 0x4000-0x4FFF, or the length
    ///   runs past the end.
    public static func parse<Bytes: Collection<UInt8>>(
        _ bytes: Bytes
    ) throws(TURNError) -> (channel: UInt16, data: Range<Bytes.Index>) {
        guard bytes.count >= headerSize else { throw .malformed("ChannelData of \(bytes.count) bytes, shorter than its header") }
        let start = bytes.startIndex
        let b0 = bytes[start], b1 = bytes[bytes.index(start, offsetBy: 1)]
        let b2 = bytes[bytes.index(start, offsetBy: 2)], b3 = bytes[bytes.index(start, offsetBy: 3)]
        let channel = UInt16(b0) << 8 | UInt16(b1)
        let length = Int(b2) << 8 | Int(b3)
        guard channelRange.contains(channel) else {
            throw .malformed("ChannelData on channel 0x\(String(channel, radix: 16)), outside 0x4000-0x4fff")
        }
        guard length <= bytes.count - headerSize else {
            throw .malformed("ChannelData announces \(length) bytes, \(bytes.count - headerSize) present")
        }
        let dataStart = bytes.index(start, offsetBy: headerSize)
        return (channel, dataStart..<bytes.index(dataStart, offsetBy: length))
    }
}
