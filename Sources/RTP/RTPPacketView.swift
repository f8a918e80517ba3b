/// A parsed RTP packet that refers to the caller's bytes instead of copying the payload.
///
/// `payloadRange` and `paddingLength` are in the index space of the parsed collection (for an `ArraySlice`, its own
/// indices), so `bytes[view.payloadRange]` is the payload without a copy.
public struct RTPPacketView: Hashable, Sendable {
    /// The decoded header (CSRC list and extension copied; both are absent on most packets).
    public var header: RTPHeader
    /// The number of header bytes (fixed header, CSRCs and extension block).
    public var headerSize: Int
    /// Where the payload lies in the parsed bytes (padding excluded).
    public var payloadRange: Range<Int>
    /// The number of padding bytes at the end (0 when the P bit is clear).
    public var paddingLength: Int

    /// Parses an RTP packet (RFC 3550 section 5.1), validating the version, the CSRC list, the extension block
    /// length and the padding count.
    /// - Parameter bytes: one whole packet.
    /// - Throws: `RTPError` naming the first field that does not fit.
    public init(parsing bytes: [UInt8]) throws(RTPError) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RTPError) in try RTPPacketView(raw: raw, base: 0) }
        }
        self = try result.get()
    }

    /// Parses an RTP packet held in a slice; ranges are in the slice's indices.
    /// - Parameter bytes: one whole packet.
    /// - Throws: `RTPError` naming the first field that does not fit.
    public init(parsing bytes: ArraySlice<UInt8>) throws(RTPError) {
        let base = bytes.startIndex
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RTPError) in try RTPPacketView(raw: raw, base: base) }
        }
        self = try result.get()
    }

    /// Parses an RTP packet held in raw memory; ranges are offsets into `buffer`.
    /// - Parameter buffer: one whole packet.
    /// - Throws: `RTPError` naming the first field that does not fit.
    public init(parsing buffer: UnsafeRawBufferPointer) throws(RTPError) {
        self = try RTPPacketView(raw: buffer, base: 0)
    }

    private init(raw: UnsafeRawBufferPointer, base: Int) throws(RTPError) {
        let r = ByteReader(buffer: raw)
        let count = r.count
        guard count >= RTPHeader.fixedSize else { throw .truncatedHeader(count: count) }
        let b0 = r.u8(0)
        let version = b0 >> 6
        guard version == RTPHeader.version else { throw .unsupportedVersion(version) }
        let hasPadding = b0 & 0x20 != 0
        let hasExtension = b0 & 0x10 != 0
        let csrcCount = Int(b0 & 0x0F)
        let b1 = r.u8(1)
        var offset = RTPHeader.fixedSize
        guard offset + 4 * csrcCount <= count else {
            throw .truncatedCSRCList(csrcCount: csrcCount, available: count - offset)
        }
        var csrcs: [SSRC] = []
        if csrcCount > 0 {
            csrcs.reserveCapacity(csrcCount)
            for i in 0..<csrcCount { csrcs.append(SSRC(r.u32(offset + 4 * i))) }
            offset += 4 * csrcCount
        }
        var headerExtension: RTPHeaderExtension?
        if hasExtension {
            guard offset + 4 <= count else { throw .truncatedHeaderExtension(declaredBytes: 4, available: count - offset) }
            let profile = r.u16(offset)
            let length = 4 * Int(r.u16(offset + 2))
            guard offset + 4 + length <= count else {
                throw .truncatedHeaderExtension(declaredBytes: 4 + length, available: count - offset)
            }
            headerExtension = RTPHeaderExtension(profile: profile, data: r.bytes((offset + 4)..<(offset + 4 + length)))
            offset += 4 + length
        }
        var paddingLength = 0
        if hasPadding {
            guard count > offset else { throw .invalidPadding(count: 0, available: 0) }
            paddingLength = Int(r.u8(count - 1))
            guard paddingLength > 0, offset + paddingLength <= count else {
                throw .invalidPadding(count: paddingLength, available: count - offset)
            }
        }
        self.header = RTPHeader(
            marker: b1 & 0x80 != 0, payloadType: PayloadType(b1 & 0x7F), sequenceNumber: SequenceNumber(r.u16(2)),
            timestamp: RTPTimestamp(r.u32(4)), ssrc: SSRC(r.u32(8)), csrcs: csrcs, headerExtension: headerExtension)
        self.headerSize = offset
        self.payloadRange = (base + offset)..<(base + count - paddingLength)
        self.paddingLength = paddingLength
    }
}
