import H264

/// Turns encoded access units into RTP packets (RFC 6184): planned (`plan`: each packet's header fields and where its
/// payload lies in the frame, no bytes) and written from the frame into the caller's buffer (`write`, as media or as
/// RTX), or both at once into one reusable `PacketBuffer` or new arrays. One packetizing loop (`plan`) serves every
/// form.
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
    /// The block written instead on retransmissions (RTX), if it differs: a simulcast layer's `rtp-stream-id` element
    /// becomes `repaired-rtp-stream-id` there (RFC 8852 section 3.2). The same size and form as `headerExtension`.
    public let retransmissionHeaderExtension: RTPHeaderExtension?
    /// The IDs of the per-frame extensions a plan may carry (`RTPPacketExtensions`), written in the one-byte form
    /// after the elements of `headerExtension`.
    public let extensionIDs: RTPPacketExtensionIDs
    /// The size limit; its `rtpHeaderSize` is the largest header written (every configured extension present), so
    /// that the payload limit holds whatever a packet carries.
    public let limit: RTPPayloadLimit
    /// Bytes of `headerExtension`'s data up to the end of its last element (its padding left out), where the
    /// per-frame elements follow.
    private let fixedElementBytes: Int

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
    ///   - extensionIDs: the IDs of the per-frame extensions (none by default).
    ///   - retransmissionHeaderExtension: the block for retransmissions, when it differs from `headerExtension`.
    /// - Throws: `H264PayloadError.payloadLimitTooSmall` when the MTU leaves fewer than 3 payload bytes,
    ///   `.mtuTooLarge` above 65535 (see `RTPPayloadLimit.validate()`); `.invalidExtensionIDs` when a per-frame ID is
    ///   outside 1...14, two are equal or one is used by `headerExtension`, or `headerExtension` is not one-byte form
    ///   (RFC 8285 section 4.2) while a per-frame ID is given, or `retransmissionHeaderExtension` differs from
    ///   `headerExtension` in size, profile or the IDs it uses.
    public init(
        ssrc: SSRC, payloadType: PayloadType, firstSequenceNumber: SequenceNumber,
        mode: H264PacketizationMode = .nonInterleaved, mtu: Int = RTPPayloadLimit.defaultMTU,
        ipVersion: RTPPayloadLimit.IPVersion = .v4, srtpTrailerSize: Int = RTPPayloadLimit.defaultSRTPTrailerSize,
        headerExtension: RTPHeaderExtension? = nil, extensionIDs: RTPPacketExtensionIDs = .none,
        retransmissionHeaderExtension: RTPHeaderExtension? = nil
    ) throws(H264PayloadError) {
        let fixedElementBytes = try Self.validate(extensionIDs, fixed: headerExtension)
        if let repaired = retransmissionHeaderExtension {
            guard let fixed = headerExtension, repaired.profile == fixed.profile, repaired.data.count == fixed.data.count,
                  let ours = try? fixed.elements(), let theirs = try? repaired.elements(),
                  ours.map({ ($0.data.count) }) == theirs.map({ ($0.data.count) }),
                  Set(theirs.map(\.id)).isDisjoint(with: extensionIDs.given)
            else { throw .invalidExtensionIDs }
        }
        let headerSize = Self.headerBytes(
            fixed: headerExtension, fixedElementBytes: fixedElementBytes, elementBytes: extensionIDs.maximumElementBytes)
        let limit = RTPPayloadLimit(
            mtu: mtu, ipVersion: ipVersion, rtpHeaderSize: headerSize, srtpTrailerSize: srtpTrailerSize)
        try limit.validate()
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.mode = mode
        self.nextSequenceNumber = firstSequenceNumber
        self.headerExtension = headerExtension
        self.retransmissionHeaderExtension = retransmissionHeaderExtension
        self.extensionIDs = extensionIDs
        self.fixedElementBytes = fixedElementBytes
        self.limit = limit
    }

    /// The largest RTP header a packetizer with this fixed block and these per-frame IDs writes: what its payload
    /// limit reserves.
    /// - Parameters:
    ///   - headerExtension: the block written on every packet, if any.
    ///   - extensionIDs: the IDs of the per-frame extensions.
    /// - Returns: bytes of the header with every configured element present.
    /// - Throws: `H264PayloadError.invalidExtensionIDs` as `init` does.
    public static func maximumHeaderSize(
        headerExtension: RTPHeaderExtension?, extensionIDs: RTPPacketExtensionIDs
    ) throws(H264PayloadError) -> Int {
        let fixedElementBytes = try validate(extensionIDs, fixed: headerExtension)
        return headerBytes(
            fixed: headerExtension, fixedElementBytes: fixedElementBytes, elementBytes: extensionIDs.maximumElementBytes)
    }

    /// Checks the per-frame IDs against each other and the fixed block.
    /// - Returns: bytes of the fixed block's data up to the end of its last element.
    private static func validate(
        _ ids: RTPPacketExtensionIDs, fixed: RTPHeaderExtension?
    ) throws(H264PayloadError) -> Int {
        let given = ids.given
        guard !given.isEmpty else { return fixed?.data.count ?? 0 }
        guard given.allSatisfy(RTPHeaderExtension.oneByteIDRange.contains), Set(given).count == given.count else {
            throw .invalidExtensionIDs
        }
        guard let fixed else { return 0 }
        guard fixed.isOneByteForm, let elements = try? fixed.elements(),
              !elements.contains(where: { given.contains($0.id) })
        else { throw .invalidExtensionIDs }
        // The fixed elements written back to back, as `RTPHeaderExtension.oneByte` lays them out.
        return elements.reduce(0) { $0 + 1 + $1.data.count }
    }

    /// Bytes of an RTP header: 12, plus the extension block (4 + the elements, padded to whole words) when any.
    private static func headerBytes(fixed: RTPHeaderExtension?, fixedElementBytes: Int, elementBytes: Int) -> Int {
        guard elementBytes > 0 else { return RTPHeader.fixedSize + (fixed?.serializedSize ?? 0) }
        return RTPHeader.fixedSize + 4 + (fixedElementBytes + elementBytes + 3) / 4 * 4
    }

    /// The per-frame elements a packet gets of `extensions`: those this packetizer has an ID for, the capture time
    /// in the short form.
    private func written(_ extensions: RTPPacketExtensions) -> RTPPacketExtensions {
        var result = RTPPacketExtensions.none
        if extensionIDs.absoluteCaptureTime != nil, let time = extensions.absoluteCaptureTime {
            result.absoluteCaptureTime = AbsoluteCaptureTime(captureTimestamp: time.captureTimestamp)
        }
        if extensionIDs.playoutDelay != nil { result.playoutDelay = extensions.playoutDelay }
        if extensionIDs.dependencyDescriptor != nil, let descriptor = extensions.dependencyDescriptor,
           descriptor.largestSize <= DependencyDescriptorElement.maximumSize
        {
            result.dependencyDescriptor = descriptor
        }
        return result
    }

    /// Bytes of the per-frame elements of `extensions` (each with its one-byte header).
    private static func elementBytes(_ extensions: RTPPacketExtensions) -> Int {
        (extensions.absoluteCaptureTime != nil ? 1 + AbsoluteCaptureTime.shortSize : 0)
            + (extensions.playoutDelay != nil ? 1 + PlayoutDelay.size : 0)
            + (extensions.dependencyDescriptor.map { 1 + $0.size } ?? 0)
    }

    /// Bytes of the RTP header of a packet carrying `extensions` (as `written(_:)` leaves them).
    func headerSize(carrying extensions: RTPPacketExtensions) -> Int {
        Self.headerBytes(
            fixed: headerExtension, fixedElementBytes: fixedElementBytes, elementBytes: Self.elementBytes(extensions))
    }

    /// The largest RTP payload this packetizer writes.
    public var maxPayloadSize: Int { limit.maxPayloadSize }

    /// Makes a buffer large enough for any packet plus the SRTP trailer.
    public func makePacketBuffer() -> PacketBuffer {
        PacketBuffer(capacity: limit.maxPacketSize + limit.srtpTrailerSize, reservedTrailer: limit.srtpTrailerSize)
    }

    /// Plans one access unit's packets (RFC 6184) without writing a byte: for each packet, in order, `emit` gets its
    /// `H264PacketPlan` (sequence number, timestamp, and where its payload lies in `frame`), which
    /// `write(_:of:into:)` turns into the packet's bytes, now or later and as often as needed. Every byte-writing
    /// form of the packetizer goes through this loop. The frame is validated before the first packet, so an error
    /// never leaves half a frame planned; sequence numbers advance only for packets handed to `emit`.
    ///
    /// The per-frame extensions go where libwebrtc puts them (`rtp_sender_video.cc`, `AddRtpHeaderExtensions`): the
    /// capture time on the frame's first packet only, the playout delay on every packet of the frame, the dependency
    /// descriptor on every packet with its start and end of frame bits set per packet and its first-packet fields
    /// (the structure, on a keyframe) on the first packet only. Whether a frame carries them at all is the caller's
    /// decision.
    /// - Parameters:
    ///   - frame: the access unit (Annex-B bytes and its NAL index).
    ///   - timestamp: the RTP timestamp of the frame (see `RTPTimestampMapper`).
    ///   - extensions: the frame's per-frame extension values (only those with a configured ID are written).
    ///   - emit: receives each packet's plan.
    /// - Returns: the number of packets emitted.
    /// - Throws: `H264PayloadError` for a frame that cannot be sent (also `.nalUnitOutsideFrame` for an index that
    ///   does not match the bytes); what `emit` throws (then the remaining packets are not planned).
    @discardableResult
    public mutating func plan(
        _ frame: EncodedFrame, timestamp: RTPTimestamp, extensions: RTPPacketExtensions = .none,
        emit: (H264PacketPlan) throws -> Void
    ) throws -> Int {
        var payloads = try H264Payloader.Plan(nalUnits: frame.nalUnits, maxPayloadSize: maxPayloadSize, mode: mode)
        let count = frame.bytes.count
        let nalUnits = frame.nalUnits
        // Indexed rather than `for (index, nal) in ...enumerated()`: an unoptimized build allocates an iterator box.
        var index = 0
        while index < nalUnits.count {
            guard Self.fits(nalUnits[index], in: count) else { throw H264PayloadError.nalUnitOutsideFrame(index: index) }
            index += 1
        }
        var first = written(extensions)
        first.dependencyDescriptor?.startOfFrame = true
        first.dependencyDescriptor?.endOfFrame = false
        var rest = first
        rest.absoluteCaptureTime = nil
        rest.dependencyDescriptor?.startOfFrame = false
        var emitted = 0
        while let payload = payloads.next() {
            var packetExtensions = emitted == 0 ? first : rest
            if payload.isLastOfAccessUnit { packetExtensions.dependencyDescriptor?.endOfFrame = true }
            try emit(H264PacketPlan(
                sequenceNumber: nextSequenceNumber, timestamp: timestamp, payload: payload,
                headerSize: headerSize(carrying: packetExtensions), extensions: packetExtensions))
            nextSequenceNumber += 1
            emitted += 1
        }
        return emitted
    }

    /// Writes one planned packet of `frame` at the start of `buffer`: the RTP header (this packetizer's SSRC,
    /// payload type and extension block; the plan's sequence number, timestamp and marker), then the payload read
    /// from the frame's bytes (the only copy of them on the way).
    /// - Parameters:
    ///   - packet: a plan from `plan(_:timestamp:emit:)` of this packetizer.
    ///   - frame: the frame it was planned from.
    ///   - buffer: the destination, at least `packet.size` bytes.
    /// - Returns: the packet's size (`packet.size`).
    /// - Throws: `H264PayloadError.bufferTooSmall`, or `.planDoesNotMatchFrame` when the plan does not fit `frame`
    ///   or this packetizer's header (nothing is written then).
    public func write(
        _ packet: H264PacketPlan, of frame: EncodedFrame, into buffer: UnsafeMutableRawBufferPointer
    ) throws(H264PayloadError) -> Int {
        try write(
            packet, of: frame, into: buffer, ssrc: ssrc, payloadType: payloadType,
            sequenceNumber: packet.sequenceNumber, retransmitting: false)
    }

    /// Writes one planned packet of `frame` as a retransmission (RFC 4588 section 4) at the start of `buffer`: the
    /// RTX stream's SSRC, payload type and sequence number, the original's timestamp, marker and extension block,
    /// then the original sequence number and the original payload, read from the frame. The same bytes as
    /// `RTXPacket.build` makes from the written original.
    /// - Parameters:
    ///   - packet: a plan from `plan(_:timestamp:emit:)` of this packetizer.
    ///   - frame: the frame it was planned from.
    ///   - ssrc: the retransmission stream's SSRC.
    ///   - payloadType: the RTX payload type.
    ///   - sequenceNumber: the retransmission stream's next sequence number.
    ///   - buffer: the destination, at least `packet.size + RTXPacket.originalSequenceNumberSize` bytes.
    /// - Returns: the RTX packet's size.
    /// - Throws: `H264PayloadError.bufferTooSmall` or `.planDoesNotMatchFrame` (nothing is written then).
    public func writeRetransmission(
        _ packet: H264PacketPlan, of frame: EncodedFrame, ssrc: SSRC, payloadType: PayloadType,
        sequenceNumber: SequenceNumber, into buffer: UnsafeMutableRawBufferPointer
    ) throws(H264PayloadError) -> Int {
        try write(
            packet, of: frame, into: buffer, ssrc: ssrc, payloadType: payloadType, sequenceNumber: sequenceNumber,
            retransmitting: true)
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
        let writer = self  // its header fields, read while `plan` advances the sequence number
        // The planning form validates the frame first, so a bad frame is reported before a small buffer, as ever.
        return try plan(frame, timestamp: timestamp) { packet in
            guard buffer.capacity >= needed else {
                throw RTPError.bufferTooSmall(needed: needed, available: buffer.capacity)
            }
            try buffer.withUnsafeMutableBytes { raw, length in length = try writer.write(packet, of: frame, into: raw) }
            try emit(&buffer)
        }
    }

    /// Packetizes one access unit straight into buffers the caller owns. For each packet, in order, `emit` gets its
    /// sequence number and `write`, which writes the whole packet into a buffer of at least `limit.maxPacketSize`
    /// bytes and returns its size. The frame is validated before the first packet; sequence numbers advance only for
    /// packets emitted.
    /// - Parameters:
    ///   - frame: the access unit (Annex-B bytes and its NAL index).
    ///   - timestamp: the RTP timestamp of the frame.
    ///   - emit: receives each packet's sequence number and writer; `write` throws
    ///     `H264PayloadError.bufferTooSmall` for a buffer smaller than the packet.
    /// - Returns: the number of packets emitted.
    /// - Throws: `H264PayloadError` for a frame that cannot be sent; what `emit` throws.
    @discardableResult
    public mutating func packetize(
        _ frame: EncodedFrame, timestamp: RTPTimestamp,
        emit: (_ sequenceNumber: SequenceNumber, _ write: (UnsafeMutableRawBufferPointer) throws -> Int) throws -> Void
    ) throws -> Int {
        let writer = self  // its header fields, read while `plan` advances the sequence number
        return try plan(frame, timestamp: timestamp) { packet in
            try emit(packet.sequenceNumber) { buffer in try writer.write(packet, of: frame, into: buffer) }
        }
    }

    /// Packetizes one access unit into new arrays (the allocating form, for tests and tools).
    /// - Parameters:
    ///   - frame: the access unit.
    ///   - timestamp: its RTP timestamp.
    ///   - extensions: its per-frame header extension values (none by default).
    /// - Returns: the RTP packets, without SRTP trailer room.
    /// - Throws: `H264PayloadError` for a frame that cannot be sent.
    public mutating func packetize(
        _ frame: EncodedFrame, timestamp: RTPTimestamp, extensions: RTPPacketExtensions = .none
    ) throws -> [[UInt8]] {
        var packets: [[UInt8]] = []
        let writer = self  // its header fields, read while `plan` advances the sequence number
        try plan(frame, timestamp: timestamp, extensions: extensions) { packet in
            var bytes = [UInt8](repeating: 0, count: packet.size)
            let size = try bytes.withUnsafeMutableBytes { raw throws(H264PayloadError) in
                try writer.write(packet, of: frame, into: raw)
            }
            packets.append(Array(bytes[0..<size]))
        }
        return packets
    }

    /// Whether a NAL unit's location lies inside `count` bytes (checked without overflow, so that no index can trap).
    static func fits(_ nal: NALUnitLocation, in count: Int) -> Bool {
        nal.offset >= 0 && nal.length >= 0 && nal.length <= count - nal.offset
    }

    /// The payload's size as planned, recomputed from `frame`; nil when the descriptor does not fit the frame.
    static func payloadSize(of payload: H264PayloadDescriptor, in frame: EncodedFrame) -> Int? {
        let nalUnits = frame.nalUnits
        let count = frame.bytes.count
        switch payload.kind {
        case .single(let index):
            guard nalUnits.indices.contains(index), fits(nalUnits[index], in: count), nalUnits[index].length > 0 else {
                return nil
            }
            return nalUnits[index].length
        case .stapA(let indices):
            guard !indices.isEmpty, indices.lowerBound >= 0, indices.upperBound <= nalUnits.count else { return nil }
            var size = H264Payloader.stapAHeaderSize
            var i = indices.lowerBound  // not `for i in indices`: an unoptimized build allocates its iterator
            while i < indices.upperBound {
                let nal = nalUnits[i]
                guard fits(nal, in: count), nal.length > 0, nal.length <= Int(UInt16.max) else { return nil }
                size += H264Payloader.stapASizeFieldSize + nal.length
                i += 1
            }
            return size
        case .fuA(let index, let range, _, _):
            guard nalUnits.indices.contains(index), fits(nalUnits[index], in: count), range.lowerBound >= 1,
                  range.upperBound <= nalUnits[index].length
            else { return nil }
            return H264Payloader.fuAHeaderSize + range.count
        }
    }

    /// Writes a planned packet, as media or as its RTX form (the original sequence number ahead of the payload).
    private func write(
        _ packet: H264PacketPlan, of frame: EncodedFrame, into buffer: UnsafeMutableRawBufferPointer, ssrc: SSRC,
        payloadType: PayloadType, sequenceNumber: SequenceNumber, retransmitting: Bool
    ) throws(H264PayloadError) -> Int {
        let perFrame = packet.extensions
        let fixed = retransmitting ? retransmissionHeaderExtension ?? headerExtension : headerExtension
        let header = RTPHeader(
            marker: packet.marker, payloadType: payloadType, sequenceNumber: sequenceNumber,
            timestamp: packet.timestamp, ssrc: ssrc, headerExtension: perFrame.isEmpty ? fixed : nil)
        guard written(perFrame) == perFrame, packet.headerSize == headerSize(carrying: perFrame),
              Self.payloadSize(of: packet.payload, in: frame) == packet.payload.size
        else { throw .planDoesNotMatchFrame }
        let size = packet.size + (retransmitting ? RTXPacket.originalSequenceNumberSize : 0)
        guard buffer.count >= size else { throw .bufferTooSmall(needed: size, available: buffer.count) }
        var w = ByteWriter(buffer)
        header.write(to: &w, hasPadding: false)
        if !perFrame.isEmpty {
            buffer[0] |= RTPHeader.extensionBit
            writeExtensionBlock(perFrame, fixed: fixed, headerSize: packet.headerSize, to: &w)
        }
        if retransmitting { w.u16(packet.sequenceNumber.rawValue) }
        frame.bytes.withUnsafeBytes { source in
            Self.writePayload(packet.payload, nalUnits: frame.nalUnits, source: source, to: &w)
        }
        return w.offset
    }

    /// Writes the one-byte-form block (RFC 8285 section 4.2) of a packet with per-frame elements: the fixed block's
    /// elements, then the capture time, the playout delay and the dependency descriptor, then zero padding to
    /// `headerSize`.
    /// ```
    /// |      0xBE     |      0xDE     |  length (32-bit words)        |
    /// | fixed elements (transport-wide sequence number) | ID | L | data ... | 0 padding |
    /// ```
    private func writeExtensionBlock(
        _ extensions: RTPPacketExtensions, fixed: RTPHeaderExtension?, headerSize: Int, to w: inout ByteWriter
    ) {
        w.u16(RTPHeaderExtension.oneByteProfile)
        w.u16(UInt16((headerSize - RTPHeader.fixedSize - 4) / 4))
        if let fixed, fixedElementBytes > 0 {
            fixed.data.withUnsafeBytes { w.raw(UnsafeRawBufferPointer(rebasing: $0[0..<fixedElementBytes])) }
        }
        if let id = extensionIDs.absoluteCaptureTime, let time = extensions.absoluteCaptureTime {
            w.u8(id << 4 | UInt8(AbsoluteCaptureTime.shortSize - 1))
            time.write(to: &w)
        }
        if let id = extensionIDs.playoutDelay, let delay = extensions.playoutDelay {
            w.u8(id << 4 | UInt8(PlayoutDelay.size - 1))
            delay.write(to: &w)
        }
        if let id = extensionIDs.dependencyDescriptor, let descriptor = extensions.dependencyDescriptor {
            w.u8(id << 4 | UInt8(descriptor.size - 1))
            descriptor.write(to: &w)
        }
        w.zeros(headerSize - w.offset)
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
