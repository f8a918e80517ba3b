/// Where the parts of an RTP packet lie, found from the raw bytes without decoding or copying anything (RFC 3550
/// section 5.1, RFC 3550 section 5.3.1 for the extension block). Used by code that rewrites packets in place (RTX,
/// the transport-wide sequence number), where `RTPPacketView` would copy the extension block.
struct RTPPacketLayout {
    /// Bytes of fixed header, CSRC list and extension block.
    var headerSize: Int
    /// Offset of the extension block's 4-byte header, when the X bit is set.
    var extensionOffset: Int?
    /// Padding bytes at the end (0 when the P bit is clear).
    var paddingLength: Int
    /// Total bytes of the packet.
    var count: Int

    /// The payload's range (padding excluded).
    var payloadRange: Range<Int> { headerSize..<(count - paddingLength) }

    /// Finds the layout, with the same checks as `RTPPacketView`.
    /// - Throws: `RTPError` naming the first field that does not fit.
    init(_ packet: UnsafeRawBufferPointer) throws(RTPError) {
        let r = ByteReader(buffer: packet)
        let count = r.count
        guard count >= RTPHeader.fixedSize else { throw .truncatedHeader(count: count) }
        let b0 = r.u8(0)
        guard b0 >> 6 == RTPHeader.version else { throw .unsupportedVersion(b0 >> 6) }
        let csrcCount = Int(b0 & 0x0F)
        var offset = RTPHeader.fixedSize
        guard offset + 4 * csrcCount <= count else {
            throw .truncatedCSRCList(csrcCount: csrcCount, available: count - offset)
        }
        offset += 4 * csrcCount
        var extensionOffset: Int?
        if b0 & 0x10 != 0 {
            guard offset + 4 <= count else { throw .truncatedHeaderExtension(declaredBytes: 4, available: count - offset) }
            let length = 4 * Int(r.u16(offset + 2))
            guard offset + 4 + length <= count else {
                throw .truncatedHeaderExtension(declaredBytes: 4 + length, available: count - offset)
            }
            extensionOffset = offset
            offset += 4 + length
        }
        var paddingLength = 0
        if b0 & 0x20 != 0 {
            guard count > offset else { throw .invalidPadding(count: 0, available: 0) }
            paddingLength = Int(r.u8(count - 1))
            guard paddingLength > 0, offset + paddingLength <= count else {
                throw .invalidPadding(count: paddingLength, available: count - offset)
            }
        }
        self.headerSize = offset
        self.extensionOffset = extensionOffset
        self.paddingLength = paddingLength
        self.count = count
    }
}

extension RTPPacketLayout {
    /// Finds an RFC 8285 element's data in the packet's extension block, without copying.
    /// - Parameters:
    ///   - id: the element's local identifier.
    ///   - packet: the packet this layout was found in.
    /// - Returns: the range of the element's data, or nil when the packet has no such element (or no RFC 8285 block).
    /// - Throws: `RTPError.malformedExtensionElement` when an element runs past the block.
    func extensionElement(id: UInt8, in packet: UnsafeRawBufferPointer) throws(RTPError) -> Range<Int>? {
        guard let start = extensionOffset, id != 0 else { return nil }
        let r = ByteReader(buffer: packet)
        let profile = r.u16(start)
        let end = headerSize
        var i = start + 4
        if profile == RTPHeaderExtension.oneByteProfile {
            while i < end {
                let byte = r.u8(i)
                if byte == 0 { i += 1; continue }
                let elementID = byte >> 4
                if elementID == RTPHeaderExtension.oneByteReservedID { return nil }
                let length = Int(byte & 0x0F) + 1
                guard i + 1 + length <= end else { throw .malformedExtensionElement(offset: i - start - 4) }
                if elementID == id { return (i + 1)..<(i + 1 + length) }
                i += 1 + length
            }
        } else if profile & RTPHeaderExtension.twoByteProfileMask == RTPHeaderExtension.twoByteProfileBase {
            while i < end {
                let elementID = r.u8(i)
                if elementID == 0 { i += 1; continue }
                guard i + 2 <= end else { throw .malformedExtensionElement(offset: i - start - 4) }
                let length = Int(r.u8(i + 1))
                guard i + 2 + length <= end else { throw .malformedExtensionElement(offset: i - start - 4) }
                if elementID == id { return (i + 2)..<(i + 2 + length) }
                i += 2 + length
            }
        }
        return nil
    }
}
