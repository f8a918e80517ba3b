/// Recovers lost media packets from FlexFEC-03 packets (`FlexFECHeader`), as libwebrtc's `FlexfecReceiver` does: it
/// keeps copies of the protected stream's recent packets (received or recovered, their transport-wide sequence
/// number zeroed as the sender's FEC was computed) and the recent FEC packets; whenever a FEC packet is missing
/// exactly one of the packets it protects, that packet is the XOR of the FEC payload and the others, and a recovered
/// packet may complete another FEC packet in turn.
///
/// Bounded: at most `maximumMediaPackets` media copies and `maximumFECPackets` FEC packets; a FEC packet whose
/// protected range reaches further back than the copies kept is dropped unused (a packet evicted from the copies is
/// not "missing"). Pure.
public struct FlexFECReceiver: Sendable {
    /// Media packets kept (libwebrtc `kMaxTrackedMediaPackets`, 192).
    public static let maximumMediaPackets = 192
    /// FEC packets kept (libwebrtc `kMaxFecPackets`, 48).
    public static let maximumFECPackets = 48
    /// How far behind the newest media packet a FEC packet's protected range may reach.
    static let reach = 128

    /// The protected media SSRC: packets of other SSRCs are ignored, FEC packets protecting another are refused.
    public var protectedSSRC: SSRC
    /// The transport-wide sequence number's extension ID: zeroed in the copies; nil when off.
    public let transportSequenceExtensionID: UInt8?

    private var media: [UInt16: [UInt8]] = [:]
    /// The copies' sequence numbers in arrival order (the oldest is evicted first).
    private var order: [UInt16] = []
    private var orderHead = 0
    private var fec: [(header: FlexFECHeader, payload: [UInt8])] = []
    /// The newest media sequence number seen, extended.
    private var newest: Int64?

    /// Creates a receiver.
    /// - Parameters:
    ///   - protectedSSRC: the media SSRC.
    ///   - transportSequenceExtensionID: the transport-wide sequence number's ID, or nil.
    public init(protectedSSRC: SSRC, transportSequenceExtensionID: UInt8?) {
        self.protectedSSRC = protectedSSRC
        self.transportSequenceExtensionID = transportSequenceExtensionID
    }

    /// Records a media packet of the protected stream (as received, or restored from RTX), and recovers what it
    /// completes.
    /// - Parameters:
    ///   - packet: the whole RTP packet, SRTP removed.
    ///   - recovered: receives each packet recovered, a whole RTP packet of the protected stream.
    public mutating func receivedMedia(_ packet: [UInt8], recovered: (_ packet: [UInt8]) -> Void) {
        guard packet.count >= RTPHeader.fixedSize else { return }
        let (sequenceNumber, ssrc) = packet.withUnsafeBytes { bytes in
            let reader = ByteReader(buffer: bytes)
            return (reader.u16(2), SSRC(reader.u32(8)))
        }
        guard ssrc == protectedSSRC, media[sequenceNumber] == nil else { return }
        store(packet, sequenceNumber: sequenceNumber)
        guard !fec.isEmpty else { return }
        recover(recovered)
    }

    /// Reads a FEC packet's payload and recovers what it (and the FEC packets kept) can.
    /// - Parameters:
    ///   - payload: the FEC packet's RTP payload (the FlexFEC header, then the XOR).
    ///   - recovered: receives each packet recovered.
    /// - Throws: `FlexFECError` for a header it cannot read or another protected SSRC (the packet is dropped).
    public mutating func receivedFEC(
        payload: UnsafeRawBufferPointer, recovered: (_ packet: [UInt8]) -> Void
    ) throws(FlexFECError) {
        let header = try FlexFECHeader(parsing: payload)
        guard header.protectedSSRC == protectedSSRC else { throw .unknownProtectedSSRC(header.protectedSSRC) }
        if fec.count >= Self.maximumFECPackets { fec.removeFirst() }
        fec.append((header, [UInt8](payload)))
        recover(recovered)
    }

    private mutating func store(_ packet: [UInt8], sequenceNumber: UInt16) {
        var copy = packet
        if let id = transportSequenceExtensionID {
            copy.withUnsafeMutableBytes { bytes in
                _ = try? TransportSequenceNumber.write(SequenceNumber(0), into: bytes, id: id)
            }
        }
        if order.count - orderHead >= Self.maximumMediaPackets {
            media[order[orderHead]] = nil
            orderHead += 1
            if orderHead >= Self.maximumMediaPackets {
                order.removeFirst(orderHead)
                orderHead = 0
            }
        }
        media[sequenceNumber] = copy
        order.append(sequenceNumber)
        if let newest {
            let delta = Int64(Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: newest)))
            if delta > 0 { self.newest = newest + delta }
        } else {
            newest = Int64(sequenceNumber)
        }
    }

    /// Recovers while some FEC packet misses exactly one packet; drops FEC packets with nothing missing or reaching
    /// too far back.
    private mutating func recover(_ recovered: (_ packet: [UInt8]) -> Void) {
        var progress = true
        while progress {
            progress = false
            var index = 0
            while index < fec.count {
                let header = fec[index].header
                if let newest, Int64(Int16(bitPattern: UInt16(truncatingIfNeeded: newest) &- header.sequenceNumberBase.rawValue)) > Self.reach {
                    fec.remove(at: index)
                    continue
                }
                var missing: UInt16?
                var missingCount = 0
                for offset in 0...(header.highestOffset ?? 0) where header.protects(offset: offset) {
                    let sequenceNumber = header.sequenceNumberBase.rawValue &+ UInt16(offset)
                    if media[sequenceNumber] == nil {
                        missingCount += 1
                        missing = sequenceNumber
                        if missingCount > 1 { break }
                    }
                }
                if missingCount == 0 {
                    fec.remove(at: index)
                    continue
                }
                if missingCount == 1, let missing {
                    let entry = fec.remove(at: index)
                    if let packet = Self.recover(missing, from: entry.header, payload: entry.payload, media: media) {
                        store(packet, sequenceNumber: missing)
                        recovered(packet)
                        progress = true
                        break
                    }
                    continue
                }
                index += 1
            }
        }
    }

    /// The packet `missing` as the XOR of the FEC payload and the other protected packets, or nil when the result
    /// is not an RTP packet of the stream.
    static func recover(
        _ missing: UInt16, from header: FlexFECHeader, payload: [UInt8], media: [UInt16: [UInt8]]
    ) -> [UInt8]? {
        let h = header.size
        guard payload.count >= h else { return nil }
        let protectionLength = payload.count - h
        var packet = [UInt8](repeating: 0, count: RTPHeader.fixedSize + protectionLength)
        for b in 0..<8 { packet[b] = payload[b] }
        for b in 0..<protectionLength { packet[RTPHeader.fixedSize + b] = payload[h + b] }
        for offset in 0...(header.highestOffset ?? 0) where header.protects(offset: offset) {
            let sequenceNumber = header.sequenceNumberBase.rawValue &+ UInt16(offset)
            guard sequenceNumber != missing, let other = media[sequenceNumber] else { continue }
            let length = other.count - RTPHeader.fixedSize
            // A protected packet longer than the FEC payload was not protected by it.
            guard length <= protectionLength else { return nil }
            // Bytes 0-7 with the length (less 12) in place of the sequence number, as the sender XORed them.
            packet[0] ^= other[0]
            packet[1] ^= other[1]
            packet[2] ^= UInt8(truncatingIfNeeded: length >> 8)
            packet[3] ^= UInt8(truncatingIfNeeded: length)
            for b in 4..<8 { packet[b] ^= other[b] }
            for b in 0..<length { packet[RTPHeader.fixedSize + b] ^= other[RTPHeader.fixedSize + b] }
        }
        packet[0] = (packet[0] | 0x80) & 0xBF
        let length = Int(packet.withUnsafeBytes { ByteReader(buffer: $0).u16(2) })
        guard length <= protectionLength else { return nil }
        packet.removeSubrange((RTPHeader.fixedSize + length)...)
        packet.withUnsafeMutableBytes { bytes in
            var writer = ByteWriter(bytes, offset: 2)
            writer.u16(missing)
            writer = ByteWriter(bytes, offset: 8)
            writer.u32(header.protectedSSRC.rawValue)
        }
        guard (try? RTPPacketView(parsing: packet)) != nil else { return nil }
        return packet
    }
}
