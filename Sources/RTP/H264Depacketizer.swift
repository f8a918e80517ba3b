import H264

/// Rebuilds H.264 access units from RTP packets (RFC 6184, packetization modes 0 and 1).
///
/// Packets go through a small reorder buffer keyed by extended sequence number: a packet is processed once all
/// earlier ones have arrived, or once the buffer spans `reorderWindow` packets, at which point the missing ones are
/// declared lost. A frame is emitted on its marker bit, or when the timestamp changes (a lost marker packet, or a
/// sender that does not set it). A frame with lost packets, a FU-A missing its start or end, or a malformed payload
/// is dropped and reported, so the receiver can send a PLI. Pure: no clock, no I/O.
public struct H264Depacketizer: Sendable {
    /// The default reorder window in packets.
    public static let defaultReorderWindow = 64

    /// How many packets may be held while waiting for a missing one.
    public let reorderWindow: Int
    /// The largest access unit accepted, in bytes; a larger one is dropped (`H264FrameDropReason.tooLarge`), so a
    /// sender that never ends its frames cannot make the receiver grow without bound.
    public let maxFrameSize: Int
    /// The default `maxFrameSize`: 16 MiB, far above any level 5.2 access unit at sane bitrates.
    public static let defaultMaxFrameSize = 16 << 20
    /// How many packets in a row must be older than the reorder window before the depacketizer concludes that the
    /// sender restarted its sequence numbers and starts over (a single stray old packet is only reported as late).
    public static let resynchronizationThreshold = 8

    private var tracker = ExtendedSequenceNumberTracker()
    private var expected: Int64?
    private var pending: [Int64: [UInt8]] = [:]
    private var lossBeforeNext = false
    private var assembly: Assembly?
    private var lastTimestamp: Int64?
    private var ssrc: SSRC?
    private var consecutiveStale = 0

    /// A frame being rebuilt.
    private struct Assembly {
        var rtpTimestamp: RTPTimestamp
        var ssrc: SSRC
        var bytes: [UInt8] = []
        var nalUnits: [NALUnitLocation] = []
        var broken: H264FrameDropReason?
        /// Offset in `bytes` of the header of the NAL unit being reassembled from FU-A fragments.
        var fragmentStart: Int?
        var firstSequenceNumber: Int64
        var lastSequenceNumber: Int64

        mutating func breakFrame(_ reason: H264FrameDropReason) {
            if broken == nil { broken = reason }
            fragmentStart = nil
        }

        mutating func appendNAL(_ nal: ArraySlice<UInt8>) {
            bytes.append(contentsOf: AnnexB.startCode)
            let offset = bytes.count
            bytes.append(contentsOf: nal)
            nalUnits.append(NALUnitLocation(offset: offset, length: nal.count, header: NALUnitHeader(byte: nal.first!)))
        }
    }

    /// Creates a depacketizer.
    /// - Parameters:
    ///   - reorderWindow: packets to hold while waiting for a missing one (default 64).
    ///   - maxFrameSize: the largest access unit accepted, in bytes (default 16 MiB).
    public init(reorderWindow: Int = defaultReorderWindow, maxFrameSize: Int = defaultMaxFrameSize) {
        self.reorderWindow = max(1, reorderWindow)
        self.maxFrameSize = maxFrameSize
    }

    /// Pushes one received RTP packet.
    /// - Parameter packet: the datagram (after SRTP unprotect).
    /// - Returns: the events it caused, in order (often none while a frame is in progress).
    public mutating func push(_ packet: [UInt8]) -> [H264DepacketizerEvent] {
        var events: [H264DepacketizerEvent] = []
        let view: RTPPacketView
        do {
            view = try RTPPacketView(parsing: packet)
        } catch {
            events.append(.malformedPacket(error))
            return events
        }
        if let known = ssrc, known != view.header.ssrc {
            resynchronize(to: view.header.ssrc, into: &events)
        }
        ssrc = view.header.ssrc
        var sequence = tracker.extend(view.header.sequenceNumber)
        if expected == nil { expected = sequence }
        if let next = expected, sequence < next - Int64(reorderWindow) {
            consecutiveStale += 1
            if consecutiveStale >= Self.resynchronizationThreshold {
                resynchronize(to: view.header.ssrc, into: &events)
                sequence = tracker.extend(view.header.sequenceNumber)
                expected = sequence
            }
        } else {
            consecutiveStale = 0
        }
        guard let next = expected, sequence >= next, pending[sequence] == nil else {
            events.append(.latePacket(view.header.sequenceNumber))
            return events
        }
        pending[sequence] = packet
        drain(into: &events, force: false)
        return events
    }

    /// Ends the current stream (its pending packets and frame are flushed) and starts over with no history.
    private mutating func resynchronize(to newSSRC: SSRC, into events: inout [H264DepacketizerEvent]) {
        events += flush()
        events.append(.resynchronized(newSSRC))
        tracker = ExtendedSequenceNumberTracker()
        expected = nil
        pending = [:]
        lossBeforeNext = false
        lastTimestamp = nil
        consecutiveStale = 0
        ssrc = newSSRC
    }

    /// Processes every held packet (declaring the gaps lost) and ends the frame in progress, e.g. at end of stream.
    /// - Returns: the events.
    public mutating func flush() -> [H264DepacketizerEvent] {
        var events: [H264DepacketizerEvent] = []
        drain(into: &events, force: true)
        finish(into: &events, marker: false)
        return events
    }

    private mutating func drain(into events: inout [H264DepacketizerEvent], force: Bool) {
        while var next = expected {
            if let packet = pending.removeValue(forKey: next) {
                process(packet, sequence: next, into: &events)
                expected = next + 1
                continue
            }
            guard !pending.isEmpty else { return }
            let highest = tracker.highest ?? next
            guard force || highest - next >= Int64(reorderWindow) else { return }
            let oldest = pending.keys.min()!
            events.append(.packetsLost(first: next, count: Int(oldest - next)))
            lossBeforeNext = true
            next = oldest
            expected = next
        }
    }

    private mutating func process(_ packet: [UInt8], sequence: Int64, into events: inout [H264DepacketizerEvent]) {
        // Parsed before being queued, so this cannot fail.
        guard let view = try? RTPPacketView(parsing: packet) else { return }
        let header = view.header
        if lossBeforeNext {
            lossBeforeNext = false
            assembly?.breakFrame(.packetLoss)
        }
        if let current = assembly, current.rtpTimestamp != header.timestamp {
            finish(into: &events, marker: false)
        }
        if view.payloadRange.isEmpty {
            // A padding-only packet (RFC 3550 section 5.1): it carries no media.
            if header.marker { finish(into: &events, marker: true) }
            return
        }
        if assembly == nil {
            assembly = Assembly(
                rtpTimestamp: header.timestamp, ssrc: header.ssrc, firstSequenceNumber: sequence,
                lastSequenceNumber: sequence)
        }
        assembly!.lastSequenceNumber = sequence
        if assembly!.broken == nil {
            append(packet[view.payloadRange])
            if assembly!.bytes.count > maxFrameSize { assembly!.breakFrame(.tooLarge(limit: maxFrameSize)) }
        }
        if assembly!.broken != nil, !assembly!.bytes.isEmpty {
            assembly!.bytes = []  // a dropped frame keeps no data while waiting for its end
            assembly!.nalUnits = []
        }
        if header.marker { finish(into: &events, marker: true) }
    }

    private mutating func append(_ payload: ArraySlice<UInt8>) {
        let parsed: H264PayloadView
        do {
            parsed = try H264PayloadView(parsing: payload)
        } catch {
            assembly!.breakFrame(.malformedPayload(error))
            return
        }
        switch parsed {
        case .single(let range):
            guard assembly!.fragmentStart == nil else { return assembly!.breakFrame(.missingFragmentEnd) }
            assembly!.appendNAL(payload[range])
        case .stapA(let ranges):
            guard assembly!.fragmentStart == nil else { return assembly!.breakFrame(.missingFragmentEnd) }
            for range in ranges { assembly!.appendNAL(payload[range]) }
        case .fuA(_, _, let data):
            if parsed.isFragmentStart {
                guard assembly!.fragmentStart == nil else { return assembly!.breakFrame(.missingFragmentEnd) }
                assembly!.bytes.append(contentsOf: AnnexB.startCode)
                assembly!.fragmentStart = assembly!.bytes.count
                assembly!.bytes.append(parsed.reconstructedNALHeader!)
            } else if assembly!.fragmentStart == nil {
                return assembly!.breakFrame(.missingFragmentStart)
            }
            assembly!.bytes.append(contentsOf: payload[data])
            if parsed.isFragmentEnd, let start = assembly!.fragmentStart {
                let length = assembly!.bytes.count - start
                assembly!.nalUnits.append(
                    NALUnitLocation(offset: start, length: length, header: NALUnitHeader(byte: assembly!.bytes[start])))
                assembly!.fragmentStart = nil
            }
        }
    }

    private mutating func finish(into events: inout [H264DepacketizerEvent], marker: Bool) {
        guard var current = assembly else { return }
        assembly = nil
        if current.broken == nil, current.fragmentStart != nil { current.breakFrame(.missingFragmentEnd) }
        if let reason = current.broken {
            events.append(.frameDropped(timestamp: current.rtpTimestamp, reason: reason))
            return
        }
        let raw = Int64(current.rtpTimestamp.rawValue)
        let unwrapped: Int64
        if let last = lastTimestamp {
            unwrapped = last + RTPTimestamp(UInt32(truncatingIfNeeded: last)).distance(to: current.rtpTimestamp)
        } else {
            unwrapped = raw
        }
        lastTimestamp = unwrapped
        let frame = EncodedFrame(
            bytes: current.bytes, nalUnits: current.nalUnits,
            isKeyframe: current.nalUnits.contains { $0.type == .idrSlice }, timestamp: unwrapped)
        events.append(
            .frame(
                H264ReceivedFrame(
                    frame: frame, rtpTimestamp: current.rtpTimestamp, ssrc: current.ssrc,
                    firstSequenceNumber: current.firstSequenceNumber, lastSequenceNumber: current.lastSequenceNumber,
                    hadMarker: marker)))
    }
}
