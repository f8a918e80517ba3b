extension RTPHeader {
    /// Writes the header at the start of `buffer` (RFC 3550 section 5.1).
    /// - Parameters:
    ///   - buffer: the destination; must hold `serializedSize` bytes.
    ///   - hasPadding: the value of the P bit (the caller writes the padding after the payload).
    /// - Returns: the number of bytes written (`serializedSize`).
    /// - Throws: `RTPError.bufferTooSmall`, `RTPError.tooManyCSRCs` or `RTPError.headerExtensionLength`.
    public func serialize(into buffer: UnsafeMutableRawBufferPointer, hasPadding: Bool = false) throws(RTPError) -> Int {
        guard csrcs.count <= Self.maxCSRCCount else { throw .tooManyCSRCs(csrcs.count) }
        if let ext = headerExtension {
            // The length field counts 32-bit words in 16 bits (RFC 3550 section 5.3.1).
            guard ext.data.count % 4 == 0, ext.data.count / 4 <= Int(UInt16.max) else {
                throw .headerExtensionLength(ext.data.count)
            }
        }
        let size = serializedSize
        guard buffer.count >= size else { throw .bufferTooSmall(needed: size, available: buffer.count) }
        var w = ByteWriter(buffer)
        write(to: &w, hasPadding: hasPadding)
        return w.offset
    }

    /// Writes the header without checks; callers have validated the CSRC count and the buffer size.
    @inline(__always)
    func write(to w: inout ByteWriter, hasPadding: Bool) {
        w.u8(Self.version << 6 | (hasPadding ? 0x20 : 0) | (headerExtension != nil ? 0x10 : 0) | UInt8(csrcs.count))
        w.u8((marker ? 0x80 : 0) | payloadType.rawValue)
        w.u16(sequenceNumber.rawValue)
        w.u32(timestamp.rawValue)
        w.u32(ssrc.rawValue)
        for csrc in csrcs { w.u32(csrc.rawValue) }
        if let ext = headerExtension {
            w.u16(ext.profile)
            w.u16(UInt16(ext.data.count / 4))
            w.bytes(ext.data)
        }
    }

    /// Writes a whole packet (header, payload, padding) into the caller's buffer, leaving `reservedTrailer` bytes
    /// free after it for the SRTP authentication tag (RFC 3711 section 3.1), so protection can happen in place.
    ///
    /// Padding (RFC 3550 section 5.1) is `paddingLength - 1` zero bytes followed by the count.
    /// - Parameters:
    ///   - payload: the payload bytes.
    ///   - buffer: the destination.
    ///   - paddingLength: 0 (no padding) or 1...255.
    ///   - reservedTrailer: bytes that must remain free after the packet.
    /// - Returns: the packet length (without the trailer).
    /// - Throws: `RTPError.bufferTooSmall`, `RTPError.paddingOutOfRange`, `RTPError.tooManyCSRCs`.
    public func serializePacket(
        payload: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer, paddingLength: Int = 0,
        reservedTrailer: Int = 0
    ) throws(RTPError) -> Int {
        guard (0...255).contains(paddingLength) else { throw .paddingOutOfRange(paddingLength) }
        let total = serializedSize + payload.count + paddingLength
        guard buffer.count >= total + reservedTrailer else {
            throw .bufferTooSmall(needed: total + reservedTrailer, available: buffer.count)
        }
        var w = ByteWriter(buffer, offset: try serialize(into: buffer, hasPadding: paddingLength > 0))
        w.raw(payload)
        if paddingLength > 0 {
            w.zeros(paddingLength - 1)
            w.u8(UInt8(paddingLength))
        }
        return w.offset
    }

    /// Writes a whole packet into `buffer` starting at `offset`, growing nothing: the array must already be large
    /// enough for the packet and `reservedTrailer` bytes.
    /// - Parameters:
    ///   - payload: the payload bytes.
    ///   - buffer: the destination array.
    ///   - offset: where the packet starts in `buffer`.
    ///   - paddingLength: 0 or 1...255.
    ///   - reservedTrailer: bytes that must remain free after the packet.
    /// - Returns: the packet length.
    /// - Throws: `RTPError.bufferTooSmall`, `RTPError.paddingOutOfRange`, `RTPError.tooManyCSRCs`.
    public func serializePacket(
        payload: [UInt8], into buffer: inout [UInt8], at offset: Int = 0, paddingLength: Int = 0,
        reservedTrailer: Int = 0
    ) throws -> Int {
        guard offset >= 0, offset <= buffer.count else {
            throw RTPError.bufferTooSmall(needed: offset, available: buffer.count)
        }
        return try payload.withUnsafeBytes { src in
            try buffer.withUnsafeMutableBytes { dst in
                try serializePacket(
                    payload: src, into: UnsafeMutableRawBufferPointer(rebasing: dst[offset...]),
                    paddingLength: paddingLength, reservedTrailer: reservedTrailer)
            }
        }
    }

    /// Returns a whole packet as a new array (the allocating form of `serializePacket(payload:into:...)`).
    /// - Parameters:
    ///   - payload: the payload bytes.
    ///   - paddingLength: 0 or 1...255.
    /// - Returns: the packet bytes.
    /// - Throws: `RTPError.paddingOutOfRange`, `RTPError.tooManyCSRCs`.
    public func serializedPacket(payload: [UInt8], paddingLength: Int = 0) throws -> [UInt8] {
        guard (0...255).contains(paddingLength) else { throw RTPError.paddingOutOfRange(paddingLength) }
        var out = [UInt8](repeating: 0, count: serializedSize + payload.count + paddingLength)
        _ = try serializePacket(payload: payload, into: &out, paddingLength: paddingLength)
        return out
    }
}
