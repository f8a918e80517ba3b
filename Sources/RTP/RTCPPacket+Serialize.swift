extension RTCPPacket {
    /// Checks the fields that a count or length byte must hold, and that the packet fits its 16-bit length field.
    /// - Throws: `RTCPError.tooManyEntries`, `.valueOutOfRange`, `.sdesItemLength` or `.packetTooLarge`.
    public func validate() throws(RTCPError) {
        guard serializedSize <= RTCPCommonHeader.maxPacketSize else { throw .packetTooLarge(size: serializedSize) }
        switch self {
        case .senderReport(let p): try p.validate()
        case .receiverReport(let p): try p.validate()
        case .sourceDescription(let p): try p.validate()
        case .goodbye(let p): try p.validate()
        case .remb(let p): try p.validate()
        case .transportFeedback(let p): try p.validate()
        case .extendedReport(let p): try p.validate()
        case .unknown(let p): try p.validate()
        case .nack, .tmmbr, .tmmbn, .pli, .fir: break
        }
    }

    func write(to w: inout ByteWriter) {
        switch self {
        case .senderReport(let p): p.write(to: &w)
        case .receiverReport(let p): p.write(to: &w)
        case .sourceDescription(let p): p.write(to: &w)
        case .goodbye(let p): p.write(to: &w)
        case .nack(let p): p.write(to: &w)
        case .tmmbr(let p): p.write(to: &w, format: RTCPPacketType.tmmbrFormat)
        case .tmmbn(let p): p.write(to: &w, format: RTCPPacketType.tmmbnFormat)
        case .pli(let p): p.write(to: &w)
        case .fir(let p): p.write(to: &w)
        case .remb(let p): p.write(to: &w)
        case .transportFeedback(let p): p.write(to: &w)
        case .extendedReport(let p): p.write(to: &w)
        case .unknown(let p): p.write(to: &w)
        }
    }

    /// The size of a compound packet made of `packets`.
    /// - Parameter packets: the packets.
    public static func serializedSize(of packets: [RTCPPacket]) -> Int {
        packets.reduce(0) { $0 + $1.serializedSize }
    }

    /// Writes packets back to back (a compound packet, RFC 3550 section 6.1, or a reduced-size one, RFC 5506) at
    /// the start of the caller's buffer, leaving `reservedTrailer` bytes free for the SRTCP trailer (index and tag,
    /// RFC 3711 section 3.4).
    /// - Parameters:
    ///   - packets: the packets, in order (an SR or RR first for a compound packet).
    ///   - buffer: the destination.
    ///   - reservedTrailer: bytes that must remain free after the packets.
    /// - Returns: the number of bytes written.
    /// - Throws: `RTCPError.bufferTooSmall`, or a validation error of one packet.
    public static func serialize(
        _ packets: [RTCPPacket], into buffer: UnsafeMutableRawBufferPointer, reservedTrailer: Int = 0
    ) throws(RTCPError) -> Int {
        for packet in packets { try packet.validate() }
        let size = serializedSize(of: packets)
        guard buffer.count >= size + reservedTrailer else {
            throw .bufferTooSmall(needed: size + reservedTrailer, available: buffer.count)
        }
        var w = ByteWriter(buffer)
        for packet in packets { packet.write(to: &w) }
        return w.offset
    }

    /// Writes packets into an array at `offset`; the array must already be large enough.
    /// - Parameters:
    ///   - packets: the packets.
    ///   - buffer: the destination array.
    ///   - offset: where to start writing.
    ///   - reservedTrailer: bytes that must remain free after the packets.
    /// - Returns: the number of bytes written.
    /// - Throws: `RTCPError.bufferTooSmall`, or a validation error.
    public static func serialize(
        _ packets: [RTCPPacket], into buffer: inout [UInt8], at offset: Int = 0, reservedTrailer: Int = 0
    ) throws -> Int {
        guard offset >= 0, offset <= buffer.count else {
            throw RTCPError.bufferTooSmall(needed: offset, available: buffer.count)
        }
        return try buffer.withUnsafeMutableBytes { raw in
            try serialize(packets, into: UnsafeMutableRawBufferPointer(rebasing: raw[offset...]), reservedTrailer: reservedTrailer)
        }
    }

    /// Returns the packets as a new array (the allocating form).
    /// - Parameter packets: the packets.
    /// - Returns: the compound packet bytes.
    /// - Throws: a validation error of one packet.
    public static func serialized(_ packets: [RTCPPacket]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: serializedSize(of: packets))
        _ = try serialize(packets, into: &out)
        return out
    }

    /// This packet alone as a new array.
    /// - Returns: the bytes.
    /// - Throws: a validation error.
    public func serialized() throws -> [UInt8] {
        try Self.serialized([self])
    }
}
