/// Builds FlexFEC-03 packets (`FlexFECHeader`) over batches of one stream's media packets, as libwebrtc's
/// `FlexfecSender` does: each media packet is added as it leaves (plain RTP, before SRTP, its transport-wide sequence
/// number zeroed as the receiver zeroes it), and at the end of a batch `encode(count:)` turns it into k FEC
/// packets (the caller's choice, at most one per media packet), media packet i protected by FEC packet `i % k` (the
/// interleaved mask libwebrtc uses above 12 packets and Pion always; it repairs any burst of up to k losses). The FEC
/// packets are kept, numbered in the FEC stream, until the pacer lets them go (`writePacket`).
///
/// All memory is allocated at creation: adding, encoding and writing copy into it and allocate nothing. Pure.
public struct FlexFECEncoder: Sendable {
    /// The most media packets one batch protects (libwebrtc's `kUlpfecMaxMediaPackets`, 48).
    public static let maximumMediaPackets = 48
    /// Bytes a FEC packet adds to the largest packet it protects: the longest FlexFEC header and a header extension
    /// block for the transport-wide sequence number (libwebrtc `FlexfecSender::MaxPacketOverhead`). Media packets must
    /// be this much under the MTU.
    public static let packetOverhead = FlexFECHeader.maximumSize + 8

    /// The protected media SSRC.
    public let protectedSSRC: SSRC
    /// The FEC stream's SSRC (`a=ssrc-group:FEC-FR <media> <fec>`).
    public let ssrc: SSRC
    /// The negotiated `flexfec-03` payload type.
    public let payloadType: PayloadType
    /// The FEC stream's first sequence number.
    public let firstSequenceNumber: SequenceNumber
    /// The largest media packet taken, in bytes.
    public let maximumPacketSize: Int
    /// The transport-wide sequence number's extension ID: zeroed in the copies (it is written as each packet leaves,
    /// after FEC, and the receiver zeroes it before recovering); nil when the extension is off.
    public let transportSequenceExtensionID: UInt8?

    private var media: [UInt8]
    private var mediaLengths: [Int]
    private var fec: [UInt8]
    private var fecLengths: [Int]
    private var fecTimestamps: [RTPTimestamp]
    /// The first sequence number of the batch.
    private var base = SequenceNumber(0)
    /// The RTP timestamp of the batch's last packet: its FEC packets carry it.
    private var lastTimestamp = RTPTimestamp(0)
    /// Media packets in the batch.
    public private(set) var mediaCount = 0
    /// The slot size of one media packet's bytes after its fixed header.
    private var mediaSlot: Int { maximumPacketSize - RTPHeader.fixedSize }
    private var fecSlot: Int { FlexFECHeader.maximumSize + mediaSlot }

    /// Creates an encoder; its memory (a batch of `maximumMediaPackets` and `fecCapacity` FEC packets) is allocated
    /// here.
    /// - Parameters:
    ///   - protectedSSRC: the media SSRC.
    ///   - ssrc: the FEC stream's SSRC.
    ///   - payloadType: the `flexfec-03` payload type.
    ///   - firstSequenceNumber: the FEC stream's first sequence number.
    ///   - maximumPacketSize: the largest media packet, at least 13 bytes.
    ///   - transportSequenceExtensionID: the transport-wide sequence number's ID, or nil.
    public init(
        protectedSSRC: SSRC, ssrc: SSRC, payloadType: PayloadType, firstSequenceNumber: SequenceNumber,
        maximumPacketSize: Int, transportSequenceExtensionID: UInt8?
    ) {
        self.protectedSSRC = protectedSSRC
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.firstSequenceNumber = firstSequenceNumber
        self.maximumPacketSize = max(maximumPacketSize, RTPHeader.fixedSize + 1)
        self.transportSequenceExtensionID = transportSequenceExtensionID
        let slot = self.maximumPacketSize - RTPHeader.fixedSize
        media = [UInt8](repeating: 0, count: Self.maximumMediaPackets * (8 + slot))
        mediaLengths = [Int](repeating: 0, count: Self.maximumMediaPackets)
        fec = [UInt8](repeating: 0, count: Self.fecCapacity * (FlexFECHeader.maximumSize + slot))
        fecLengths = [Int](repeating: 0, count: Self.fecCapacity)
        fecTimestamps = [RTPTimestamp](repeating: RTPTimestamp(0), count: Self.fecCapacity)
    }

    /// Adds a media packet of the protected stream to the batch: the batch's next sequence number (any, when empty).
    /// - Parameter packet: the whole RTP packet, before SRTP.
    /// - Throws: `FlexFECError.batchRefused` for another SSRC, a sequence gap, a packet over `maximumPacketSize` or a
    ///   full batch (nothing is added; the caller encodes or resets).
    public mutating func add(_ packet: UnsafeRawBufferPointer) throws(FlexFECError) {
        guard packet.count >= RTPHeader.fixedSize, packet.count <= maximumPacketSize,
              mediaCount < Self.maximumMediaPackets
        else { throw .batchRefused }
        let reader = ByteReader(buffer: packet)
        guard SSRC(reader.u32(8)) == protectedSSRC else { throw .batchRefused }
        let sequenceNumber = SequenceNumber(reader.u16(2))
        if mediaCount == 0 {
            base = sequenceNumber
        } else if sequenceNumber != base + mediaCount {
            throw .batchRefused
        }
        let slot = 8 + mediaSlot
        let index = mediaCount
        media.withUnsafeMutableBytes { storage in
            // The slot: the first 8 header bytes (length recovery in place of the sequence number), then the rest.
            let start = index * slot
            let target = UnsafeMutableRawBufferPointer(rebasing: storage[start..<(start + 8 + packet.count - 12)])
            target.copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[0..<8]))
            UnsafeMutableRawBufferPointer(rebasing: target[8...])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[12...]))
            var writer = ByteWriter(target, offset: 2)
            writer.u16(UInt16(packet.count - RTPHeader.fixedSize))
            if let id = transportSequenceExtensionID {
                // The packet again with its fixed header, to find the element: zero it in the copy.
                Self.zeroTransportSequence(in: packet, copy: UnsafeMutableRawBufferPointer(rebasing: target[8...]), id: id)
            }
        }
        mediaLengths[index] = packet.count - RTPHeader.fixedSize
        lastTimestamp = RTPTimestamp(reader.u32(4))
        mediaCount += 1
    }

    /// Zeroes the transport-wide sequence number element of `packet` in `copy` (its bytes after the fixed header).
    private static func zeroTransportSequence(
        in packet: UnsafeRawBufferPointer, copy: UnsafeMutableRawBufferPointer, id: UInt8
    ) {
        guard let layout = try? RTPPacketLayout(packet),
              let range = try? layout.extensionElement(id: id, in: packet)
        else { return }
        for offset in range where offset >= RTPHeader.fixedSize { copy[offset - RTPHeader.fixedSize] = 0 }
    }

    /// The FEC packets `protection` asks for over n media packets: `(n x protection + 128) >> 8`, at least one when
    /// `protection` is above 0, at most n.
    /// - Parameters:
    ///   - n: the media packets protected.
    ///   - protection: FEC packets per media packet in 1/256 (0-255).
    public static func fecPacketCount(mediaCount n: Int, protection: Int) -> Int {
        guard n > 0, protection > 0 else { return 0 }
        return min(n, max(1, (n * min(protection, 255) + 128) >> 8))
    }

    /// Ends the batch: builds `count` FEC packets over it (at most one per media packet), carrying the RTP timestamp
    /// of the batch's last packet, numbered on from the last built (index i is `firstSequenceNumber + i`) and kept
    /// for `writePacket` until `fecCapacity` newer ones overwrite them, and empties the batch.
    /// - Parameter count: the FEC packets wanted (`fecPacketCount`, or the caller's own count); 0 builds none.
    /// - Returns: the indexes of the FEC packets built (empty when none).
    @discardableResult
    public mutating func encode(count: Int) -> Range<Int> {
        let timestamp = lastTimestamp
        let n = mediaCount
        let k = min(max(count, 0), n)
        mediaCount = 0
        let first = encodedCount
        guard k > 0 else { return first..<first }
        let mediaSlot = 8 + self.mediaSlot
        let fecSlot = self.fecSlot
        let base = self.base
        let ssrc = protectedSSRC
        media.withUnsafeBytes { media in
            fec.withUnsafeMutableBytes { fec in
                for j in 0..<k {
                    var mask: UInt64 = 0
                    var longest = 0
                    for i in stride(from: j, to: n, by: k) {
                        mask |= 1 << UInt64(i)
                        longest = max(longest, mediaLengths[i])
                    }
                    let header = FlexFECHeader(protectedSSRC: ssrc, sequenceNumberBase: base, maskLow: mask)
                    let h = header.size
                    let slot = (first + j) % Self.fecCapacity
                    let out = UnsafeMutableRawBufferPointer(rebasing: fec[(slot * fecSlot)..<(slot * fecSlot + h + longest)])
                    out.initializeMemory(as: UInt8.self, repeating: 0)
                    for i in stride(from: j, to: n, by: k) {
                        let start = i * mediaSlot
                        for b in 0..<8 { out[b] ^= media[start + b] }
                        let length = mediaLengths[i]
                        let source = start + 8
                        for b in 0..<length { out[h + b] ^= media[source + b] }
                    }
                    // Bytes 8-11 held the SSRCs' XOR: the header's fields replace them.
                    try? header.write(into: out)
                    fecLengths[slot] = h + longest
                    fecTimestamps[slot] = timestamp
                }
            }
        }
        encodedCount += k
        return first..<(first + k)
    }

    /// Empties the batch without building FEC (after a refused packet).
    public mutating func reset() {
        mediaCount = 0
    }

    /// FEC packets kept for `writePacket`: two full batches.
    public static let fecCapacity = 2 * maximumMediaPackets

    /// The FEC packets built so far; packet i (counted from 0) has sequence number `firstSequenceNumber + i`.
    public private(set) var encodedCount = 0

    /// The index of the FEC packet numbered `sequenceNumber`, nil when it was not built or was overwritten.
    public func index(of sequenceNumber: SequenceNumber) -> Int? {
        guard encodedCount > 0 else { return nil }
        let newest = firstSequenceNumber + (encodedCount - 1)
        let back = Int(newest.rawValue &- sequenceNumber.rawValue)
        guard back < min(encodedCount, Self.fecCapacity) else { return nil }
        return encodedCount - 1 - back
    }

    /// The size of FEC packet `index`'s whole RTP packet (`writePacket`), nil when it was not built or was
    /// overwritten by newer ones.
    /// - Parameter index: a value of a range `encode` returned.
    public func packetSize(_ index: Int) -> Int? {
        guard index >= 0, index < encodedCount, encodedCount - index <= Self.fecCapacity else { return nil }
        return RTPHeader.fixedSize + (transportSequenceExtensionID != nil ? 8 : 0)
            + fecLengths[index % Self.fecCapacity]
    }

    /// Writes FEC packet `index`'s whole RTP packet: the FEC stream's SSRC, payload type and sequence number
    /// (`firstSequenceNumber + index`), its timestamp, a header extension with the transport-wide sequence number
    /// element (zero, stamped as it leaves) when `transportSequenceExtensionID` is set, then the payload.
    /// - Parameters:
    ///   - index: a value of a range `encode` returned.
    ///   - buffer: the packet's bytes are written at its start.
    /// - Returns: the packet's size.
    /// - Throws: `FlexFECError.truncated` when `buffer` is too small, `.batchRefused` when the packet was overwritten.
    public func writePacket(_ index: Int, into buffer: UnsafeMutableRawBufferPointer) throws(FlexFECError) -> Int {
        guard let size = packetSize(index) else { throw .batchRefused }
        guard buffer.count >= size else { throw .truncated(needed: size, available: buffer.count) }
        let slot = index % Self.fecCapacity
        let payload = fecLengths[slot]
        var writer = ByteWriter(buffer)
        writer.u8(transportSequenceExtensionID != nil ? 0x90 : 0x80)
        writer.u8(payloadType.rawValue & 0x7F)
        writer.u16((firstSequenceNumber + index).rawValue)
        writer.u32(fecTimestamps[slot].rawValue)
        writer.u32(ssrc.rawValue)
        if let id = transportSequenceExtensionID {
            writer.u16(0xBEDE)
            writer.u16(1)
            writer.u8(id << 4 | UInt8(TransportSequenceNumber.size - 1))
            writer.zeros(3)
        }
        let headerSize = size - payload
        let start = slot * fecSlot
        fec.withUnsafeBytes { fec in
            UnsafeMutableRawBufferPointer(rebasing: buffer[headerSize..<size])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: fec[start..<(start + payload)]))
        }
        return size
    }
}
