import H264

/// Turns encoded access units into RTP packets (RFC 6184), written straight into the caller's buffers (a packet
/// history's slots) or into one reusable `PacketBuffer`.
///
/// The packetizer is the single owner of the stream's sequence number; SSRC, payload type and the first sequence
/// number are injected (the caller draws them at random, RFC 3550 section 5.1). It never reads a clock: the RTP
/// timestamp of each frame is passed in.
public struct H264Packetizer: Sendable {
    /// The stream's SSRC.
    public let ssrc: SSRC
    /// The payload type.
    public let payloadType: PayloadType
    /// The packetization mode.
    public let mode: H264PacketizationMode
    /// The sequence number the next packet will carry.
    public private(set) var nextSequenceNumber: SequenceNumber
    /// The header extension block written on every packet, if any (its size is part of the payload limit).
    public let headerExtension: RTPHeaderExtension?
    /// The size limit; its `rtpHeaderSize` is derived from the header actually written.
    public let limit: RTPPayloadLimit

    /// Creates a packetizer.
    /// - Parameters:
    ///   - ssrc: the stream's SSRC.
    ///   - payloadType: the payload type negotiated for H.264.
    ///   - firstSequenceNumber: the first packet's sequence number (random; the sender keeps it below 2^15).
    ///   - mode: the packetization mode (default 1, non-interleaved).
    ///   - mtu: the IP-level MTU (default 1200, as libwebrtc).
    ///   - ipVersion: the IP version of the path.
    ///   - srtpTrailerSize: bytes to keep free after each packet for SRTP (default 10; 0 for plain RTP).
    ///   - headerExtension: an extension block to send on every packet.
    /// - Throws: `H264PayloadError.payloadLimitTooSmall` when the MTU leaves fewer than 3 payload bytes,
    ///   `.mtuTooLarge` above 65535 (see `RTPPayloadLimit.validate()`).
    public init(
        ssrc: SSRC, payloadType: PayloadType, firstSequenceNumber: SequenceNumber,
        mode: H264PacketizationMode = .nonInterleaved, mtu: Int = RTPPayloadLimit.defaultMTU,
        ipVersion: RTPPayloadLimit.IPVersion = .v4, srtpTrailerSize: Int = RTPPayloadLimit.defaultSRTPTrailerSize,
        headerExtension: RTPHeaderExtension? = nil
    ) throws(H264PayloadError) {
        let headerSize = RTPHeader.fixedSize + (headerExtension?.serializedSize ?? 0)
        let limit = RTPPayloadLimit(
            mtu: mtu, ipVersion: ipVersion, rtpHeaderSize: headerSize, srtpTrailerSize: srtpTrailerSize)
        try limit.validate()
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.mode = mode
        self.nextSequenceNumber = firstSequenceNumber
        self.headerExtension = headerExtension
        self.limit = limit
    }

    /// The largest RTP payload this packetizer writes.
    public var maxPayloadSize: Int { limit.maxPayloadSize }

    /// Makes a buffer large enough for any packet plus the SRTP trailer.
    public func makePacketBuffer() -> PacketBuffer {
        PacketBuffer(capacity: limit.maxPacketSize + limit.srtpTrailerSize, reservedTrailer: limit.srtpTrailerSize)
    }

    /// Packetizes one access unit, writing each packet into `buffer` and calling `emit` once per packet, in order.
    ///
    /// Nothing is allocated per packet: the header, the payload structure bytes and the NAL data are written
    /// straight into `buffer.storage`. The frame is validated before the first packet, so an error never leaves
    /// half a frame sent; sequence numbers advance only for packets handed to `emit`.
    /// - Parameters:
    ///   - frame: the access unit (Annex-B bytes and its NAL index).
    ///   - timestamp: the RTP timestamp of the frame (see `RTPTimestampMapper`).
    ///   - buffer: a buffer from `makePacketBuffer()` (or at least as large), reused for every packet.
    ///   - emit: receives the buffer holding one packet (`buffer.count` bytes); it may protect and send it.
    /// - Returns: the number of packets emitted.
    /// - Throws: `H264PayloadError` for a frame that cannot be sent, `RTPError.bufferTooSmall` for a small
    ///   buffer, or what `emit` throws (then the remaining packets are not written).
    @discardableResult
    public mutating func packetize(
        _ frame: EncodedFrame, timestamp: RTPTimestamp, into buffer: inout PacketBuffer,
        emit: (inout PacketBuffer) throws -> Void
    ) throws -> Int {
        let needed = limit.maxPacketSize + limit.srtpTrailerSize
        // The writer form validates the frame first, so a bad frame is reported before a small buffer, as ever.
        return try packetize(frame, timestamp: timestamp) { _, write in
            guard buffer.capacity >= needed else {
                throw RTPError.bufferTooSmall(needed: needed, available: buffer.capacity)
            }
            buffer.withUnsafeMutableBytes { raw, length in length = write(raw) }
            try emit(&buffer)
        }
    }

    /// Packetizes one access unit straight into buffers the caller owns (a packet history's slots), so that the
    /// frame's bytes are copied once on their way there. For each packet, in order, `emit` gets its sequence number
    /// and `write`, which writes the whole packet into a buffer of at least `limit.maxPacketSize` bytes and returns
    /// its size. The frame is validated before the first packet; sequence numbers advance only for packets emitted.
    /// - Parameters:
    ///   - frame: the access unit (Annex-B bytes and its NAL index).
    ///   - timestamp: the RTP timestamp of the frame.
    ///   - emit: receives each packet's sequence number and writer; `write` must be called once, during `emit`.
    /// - Returns: the number of packets emitted.
    /// - Throws: `H264PayloadError` for a frame that cannot be sent; what `emit` throws.
    @discardableResult
    public mutating func packetize(
        _ frame: EncodedFrame, timestamp: RTPTimestamp,
        emit: (_ sequenceNumber: SequenceNumber, _ write: (UnsafeMutableRawBufferPointer) -> Int) throws -> Void
    ) throws -> Int {
        var plan = try H264Payloader.Plan(nalUnits: frame.nalUnits, maxPayloadSize: maxPayloadSize, mode: mode)
        var header = RTPHeader(
            payloadType: payloadType, sequenceNumber: nextSequenceNumber, timestamp: timestamp, ssrc: ssrc,
            headerExtension: headerExtension)
        let maxPacketSize = limit.maxPacketSize
        var emitted = 0
        try frame.bytes.withUnsafeBytes { source in
            while let payload = plan.next() {
                header.sequenceNumber = nextSequenceNumber
                header.marker = payload.isLastOfAccessUnit
                let packetHeader = header
                try emit(nextSequenceNumber) { buffer in
                    precondition(buffer.count >= maxPacketSize, "packet buffer smaller than the packetizer's limit")
                    var w = ByteWriter(buffer)
                    packetHeader.write(to: &w, hasPadding: false)
                    Self.writePayload(payload, nalUnits: frame.nalUnits, source: source, to: &w)
                    return w.offset
                }
                nextSequenceNumber += 1
                emitted += 1
            }
        }
        return emitted
    }

    /// Packetizes one access unit into new arrays (the allocating form, for tests and tools).
    /// - Parameters:
    ///   - frame: the access unit.
    ///   - timestamp: its RTP timestamp.
    /// - Returns: the RTP packets, without SRTP trailer room.
    /// - Throws: `H264PayloadError` for a frame that cannot be sent.
    public mutating func packetize(_ frame: EncodedFrame, timestamp: RTPTimestamp) throws -> [[UInt8]] {
        var buffer = [UInt8](repeating: 0, count: limit.maxPacketSize)
        var packets: [[UInt8]] = []
        try packetize(frame, timestamp: timestamp) { _, write in
            let size = buffer.withUnsafeMutableBytes { write($0) }
            packets.append(Array(buffer[0..<size]))
        }
        return packets
    }

    /// Writes the payload of one planned packet.
    ///
    /// STAP-A (RFC 6184 section 5.7.1), F = OR of the aggregated F bits, NRI = their maximum (section 5.7):
    /// ```
    ///  0                   1                   2                   3
    ///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
    /// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    /// |F|NRI| Type=24 |         NALU 1 Size           | NALU 1 HDR    |
    /// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    /// |                         NALU 1 Data ...                       |
    /// +               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    /// |               | NALU 2 Size                   | NALU 2 HDR    |
    /// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    /// ```
    /// FU-A (RFC 6184 section 5.8), indicator F and NRI copied from the NAL header, FU header type = NAL type:
    /// ```
    /// +---------------+---------------+
    /// |0|1|2|3|4|5|6|7|0|1|2|3|4|5|6|7|
    /// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    /// |F|NRI| Type=28 |S|E|R|  Type   |
    /// +---------------+---------------+
    /// ```
    @inline(__always)
    static func writePayload(
        _ payload: H264PayloadDescriptor, nalUnits: [NALUnitLocation], source: UnsafeRawBufferPointer,
        to w: inout ByteWriter
    ) {
        switch payload.kind {
        case .single(let index):
            w.raw(UnsafeRawBufferPointer(rebasing: source[nalUnits[index].range]))
        case .stapA(let indices):
            var forbidden: UInt8 = 0
            var nri: UInt8 = 0
            for i in indices {
                let byte = source[nalUnits[i].offset]
                forbidden |= byte & H264PayloadHeader.forbiddenMask
                nri = max(nri, byte & H264PayloadHeader.nriMask)
            }
            w.u8(forbidden | nri | NALUnitType.stapA.rawValue)
            for i in indices {
                let nal = nalUnits[i]
                w.u16(UInt16(nal.length))
                w.raw(UnsafeRawBufferPointer(rebasing: source[nal.range]))
            }
        case .fuA(let index, let range, let isStart, let isEnd):
            let nal = nalUnits[index]
            let byte = source[nal.offset]
            w.u8(byte & (H264PayloadHeader.forbiddenMask | H264PayloadHeader.nriMask) | NALUnitType.fuA.rawValue)
            w.u8((isStart ? H264PayloadHeader.fuStartBit : 0) | (isEnd ? H264PayloadHeader.fuEndBit : 0)
                | (byte & H264PayloadHeader.typeMask))
            w.raw(UnsafeRawBufferPointer(rebasing: source[(nal.offset + range.lowerBound)..<(nal.offset + range.upperBound)]))
        }
    }
}
