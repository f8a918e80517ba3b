import STUN

/// Cuts a TCP or TLS byte stream from a TURN server into frames (RFC 8656 section 12.5): STUN messages (20-byte header
/// plus its length) and ChannelData messages (4-byte header plus its length, padded to a multiple of 4).
///
/// Bytes are appended as they arrive; `nextFrame()` returns whole frames in order. A stream whose next byte starts
/// neither is broken for good (the connection must be closed): the framer then throws on every call.
public struct TURNStreamFramer: Sendable {
    /// The largest frame: a STUN message with the 16-bit length's maximum.
    public static let maximumFrameSize = STUNMessage.headerLength + Int(UInt16.max)

    private var buffer: [UInt8] = []
    private var start = 0
    private var broken: TURNError?

    /// Creates an empty framer.
    public init() {}

    /// The bytes held that do not yet make a whole frame.
    public var pendingCount: Int { buffer.count - start }

    /// Adds bytes read from the stream.
    /// - Parameter bytes: The bytes, in stream order.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer += bytes
    }

    /// The next whole frame, or nil until more bytes arrive.
    /// - Returns: One STUN message or one ChannelData message (with its padding).
    /// - Throws: `TURNError.malformed` when the stream holds neither; every later call throws the same.
    public mutating func nextFrame() throws(TURNError) -> [UInt8]? {
        if let broken { throw broken }
        let available = buffer.count - start
        guard available >= 4 else { return nil }
        let first = buffer[start]
        let length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
        let frameSize: Int
        if first & 0xC0 == 0 {
            guard length % 4 == 0 else { return try fail("a STUN message of length \(length), not a multiple of 4") }
            frameSize = STUNMessage.headerLength + length
        } else if ChannelData.startsChannelData(first) {
            frameSize = ChannelData.wireSize(payloadCount: length, padded: true)
        } else {
            return try fail("byte 0x\(String(first, radix: 16)) starts neither STUN nor ChannelData")
        }
        guard available >= frameSize else { return nil }
        let frame = Array(buffer[start..<(start + frameSize)])
        start += frameSize
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        return frame
    }

    private mutating func fail(_ reason: String) throws(TURNError) -> [UInt8]? {
        let error = TURNError.malformed("TURN stream: \(reason)")
        broken = error
        buffer.removeAll()
        start = 0
        throw error
    }
}
