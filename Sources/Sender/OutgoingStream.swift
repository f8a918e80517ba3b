import Codec
import CongestionControl
import H264
import MediaTime
import RTP

/// One outgoing RTP stream of a `SenderSession` and its retransmission stream: everything that belongs to one media
/// SSRC. The session holds an ordered list of them (`SenderSession.streams`, the first always present) and keeps what
/// the transport shares: the pacer, the congestion controller and bitrate controller, the transport-wide sequence
/// numbers, the report timer and the routing of feedback to the stream whose SSRC it names.
///
/// A session has one stream today. A second one (a simulcast layer, issue 23: one encoder per layer, each layer its
/// own SSRC and RTX SSRC, one transport) is added by passing its `StreamIdentity` in the session's
/// `additionalStreams`; its encoder's outputs then go to `SenderSession.handle(encoded:stream:now:)` with its index.
/// Each stream has its own sequence numbers, history and NACK budget (at the session's whole target: sharing the
/// target between layers is the layer allocation's job), and its own Sender Reports; the encoder commands and the
/// encoder's statistics are still the session's (one encoder), and probes repeat the first stream's packets.
///
/// Not `Sendable`: its session owns it.
struct OutgoingStream {
    /// What one stream has sent: the counts its Sender Reports carry and the session's statistics add up.
    struct Counters {
        /// Frames whose packets were planned (`framesSent`).
        var framesSent = 0
        /// Keyframes among them.
        var keyFramesSent = 0
        /// Media packets planned (`packetsSent`).
        var packetsSent = 0
        /// RTP payload bytes of those packets (`bytesSent`).
        var bytesSent = 0
        /// RTP header bytes of those packets (`headerBytesSent`).
        var headerBytesSent = 0
        /// Packets resent in answer to NACKs, on the RTX stream when there is one.
        var retransmittedPacketsSent = 0
        /// Bytes of the packets resent.
        var retransmittedBytesSent = 0
        /// Probe padding packets sent (recent media packets again).
        var probePacketsSent = 0
        /// FlexFEC packets sent.
        var fecPacketsSent = 0
        /// Bytes of the FlexFEC packets sent (whole RTP packets).
        var fecBytesSent = 0
    }

    /// The FlexFEC stream of this stream: the encoder and the batch it is gathering.
    struct FECStream {
        /// The XOR of the batch, and the FEC packets built until they leave.
        var encoder: FlexFECEncoder
        /// Frames whose last packet is in the batch.
        var framesInBatch = 0
        /// Whether a keyframe packet is in the batch (keyframe protection then).
        var batchHasKeyframe = false
        /// FEC packets owed by earlier batches but not sent, in 1/256 of a packet: rounding carries over, so that
        /// the FEC packets sent match the rate over time.
        var credit = 0

        /// Adds a media packet that leaves; at the end of a frame (or a full batch) decides whether to close the
        /// batch and builds its FEC packets.
        /// - Parameters:
        ///   - packet: the whole RTP packet, before SRTP.
        ///   - isKeyframe: whether it belongs to a keyframe.
        ///   - rates: the protection now.
        /// - Returns: the indexes of the FEC packets built (empty when the batch stays open or none are due).
        mutating func protect(
            _ packet: UnsafeRawBufferPointer, isKeyframe: Bool, rates: FECProtection.Rates
        ) -> Range<Int> {
            let rate = (isKeyframe || batchHasKeyframe) ? rates.key : rates.delta
            let none = encoder.encodedCount..<encoder.encodedCount
            guard rate > 0 || encoder.mediaCount > 0 else { return none }
            var built = none
            do {
                try encoder.add(packet)
            } catch {
                // A gap (a packet dropped before it left), or a full batch: the batch so far is closed first.
                built = close(rates: rates, force: true)
                guard (try? encoder.add(packet)) != nil else { return built }
            }
            if isKeyframe { batchHasKeyframe = true }
            let marker = packet.count > 1 && packet[1] & 0x80 != 0
            if marker { framesInBatch += 1 }
            guard marker || encoder.mediaCount == FlexFECEncoder.maximumMediaPackets else { return built }
            let more = close(
                rates: rates,
                force: framesInBatch >= rates.maximumFrames || encoder.mediaCount == FlexFECEncoder.maximumMediaPackets)
            return built.isEmpty ? more : built.lowerBound..<more.upperBound
        }

        /// Closes the batch when its FEC packets come to at least one whole packet (or `force`, then at least one),
        /// carrying the fraction over.
        private mutating func close(rates: FECProtection.Rates, force: Bool) -> Range<Int> {
            let n = encoder.mediaCount
            let rate = batchHasKeyframe ? rates.key : rates.delta
            let owed = credit + n * rate
            var count = owed >> 8
            if count == 0 {
                guard force else { return encoder.encodedCount..<encoder.encodedCount }
                count = rate > 0 ? 1 : 0
            }
            count = min(count, n)
            credit = min(max(owed - count << 8, 0), 255)
            framesInBatch = 0
            batchHasKeyframe = false
            return encoder.encode(count: count)
        }
    }

    /// The media SSRC.
    let ssrc: SSRC
    /// The simulcast encoding's RTP stream id, or nil for a single stream.
    let rid: String?
    /// The size of the encoder's pictures (0 before its first).
    var frameSize = (width: 0, height: 0)
    /// The bytes sent at the last report, for the layer's bitrate.
    var bytesAtLastReport = 0
    /// The bitrate over the last report interval.
    var actualBitrate = 0
    /// The sequence numbers; plans each packet and writes it from its frame, as media or RTX.
    var packetizer: H264Packetizer
    /// Sent packets (plans and their frames, no bytes): what the pacer releases, what a NACK resends and a probe
    /// repeats. Also the staging for unpaced packets between `SenderSession.handle(encoded:)` and `pollTransmit`.
    var history: PacketHistory
    /// Picks what to resend of this stream; consulted only with NACK on.
    var responder: NACKResponder
    /// The newest media packet that has left (the pacer released it and it was written), nil before the first: what
    /// a probe may repeat. A packet still in the pacer's queue must not be repeated ahead of itself: its copy would
    /// reach the receiver first, show it a gap behind the packet before it, and draw a NACK whose answer (the
    /// original, one pacing interval later) reads as a round trip of a few milliseconds.
    var newestSentMedia: SequenceNumber?
    /// The retransmission stream (RFC 4588), when negotiated: its own SSRC, payload type and sequence numbers.
    var rtx: RTXStream?
    /// The FlexFEC stream, when configured.
    var fec: FECStream?
    /// The random timestamp offset (the first frame's RTP timestamp).
    let timestampOffset: UInt32
    /// Capture time -> RTP time, from the first frame on; nil before it.
    private(set) var rtpClock: RTPClock?
    /// The last frame's RTP timestamp: the next one must come after it.
    private var lastTimestamp: RTPTimestamp?
    /// Which frames carry the capture time and the playout delay.
    var extensionSchedule: HeaderExtensionSchedule
    /// RTT and loss from the reception reports about this stream.
    var link = LinkQuality()
    /// A keyframe request waiting for this stream's IDR's first packet to leave (its arrival time).
    var keyframeRequestPending: MonotonicTime?
    /// What this stream has sent.
    var counters = Counters()

    /// Creates a stream.
    /// - Parameters:
    ///   - identity: its SSRCs, first sequence numbers and timestamp offset.
    ///   - configuration: the sender's configuration (payload type, packetization mode, header extension, RTX, NACK).
    ///   - payloadLimit: the MTU, IP version and SRTP trailer the packets must fit.
    /// - Throws: what `H264Packetizer` and `PacketHistory` refuse.
    init(identity: StreamIdentity, configuration: SenderConfiguration, payloadLimit: RTPPayloadLimit) throws {
        ssrc = identity.ssrc
        rid = identity.rid
        // A FEC packet is as large as the largest packet it protects plus its own header: media leaves room for it.
        let fecRoom = configuration.fec != nil ? FlexFECEncoder.packetOverhead : 0
        packetizer = try H264Packetizer(
            ssrc: identity.ssrc, payloadType: configuration.payloadType,
            firstSequenceNumber: identity.firstSequenceNumber, mode: configuration.packetizationMode,
            mtu: payloadLimit.mtu - fecRoom, ipVersion: payloadLimit.ipVersion, srtpTrailerSize: payloadLimit.srtpTrailerSize,
            headerExtension: configuration.headerExtension(rid: identity.rid), extensionIDs: configuration.packetExtensionIDs,
            retransmissionHeaderExtension: identity.rid == nil || configuration.repairedRIDExtensionID == nil ? nil
                : configuration.headerExtension(rid: identity.rid, repaired: true))
        timestampOffset = identity.timestampOffset
        let ids = configuration.packetExtensionIDs
        extensionSchedule = HeaderExtensionSchedule(
            sendsAbsoluteCaptureTime: ids.absoluteCaptureTime != nil,
            playoutDelay: ids.playoutDelay != nil ? configuration.playoutDelay : nil,
            dependencyDescriptors: ids.dependencyDescriptor == nil ? nil
                : DependencyStructure.singleSpatialLayer(temporalLayers: configuration.encoder.temporalLayers).map {
                    DependencyDescriptorSequence(structure: $0, firstFrameNumber: identity.firstFrameNumber)
                })
        // The history holds plans and frames, not packet bytes: its memory does not grow with the MTU.
        history = try PacketHistory()
        responder = NACKResponder(mediaSSRC: identity.ssrc, targetBitrate: configuration.encoder.targetBitrate)
        if configuration.nack, let rtx = configuration.rtx, let rtxSSRC = identity.rtxSSRC {
            self.rtx = RTXStream(
                ssrc: rtxSSRC, payloadType: rtx.payloadType, firstSequenceNumber: identity.rtxFirstSequenceNumber)
        }
        if let fec = configuration.fec, let fecSSRC = identity.fecSSRC {
            self.fec = FECStream(encoder: FlexFECEncoder(
                protectedSSRC: identity.ssrc, ssrc: fecSSRC, payloadType: fec.payloadType,
                firstSequenceNumber: identity.fecFirstSequenceNumber, maximumPacketSize: payloadLimit.mtu,
                transportSequenceExtensionID: configuration.transportWideCCExtensionID))
        }
    }

    /// The RTP timestamp of a frame captured at `captureTime`; the first frame starts the clock.
    ///
    /// Timestamps only move forward: a capture time at or before the last frame's (a clock stepped back), or so far
    /// ahead that 32 bits read it as behind (a jump of more than 2^31 ticks, about 6.6 hours), re-anchors the clock
    /// one tick after the last timestamp at this capture time, and the frames after it follow from there. Sender
    /// Reports map through the re-anchored clock, as do the frames they describe.
    /// - Parameter captureTime: the frame's capture time.
    mutating func timestamp(at captureTime: MonotonicTime) -> RTPTimestamp {
        var clock = rtpClock ?? RTPClock(offset: timestampOffset, origin: captureTime)
        var timestamp = clock.timestamp(at: captureTime)
        if let last = lastTimestamp, Int32(bitPattern: timestamp.rawValue &- last.rawValue) <= 0 {
            clock = RTPClock(offset: last.rawValue &+ 1, origin: captureTime)
            timestamp = clock.timestamp(at: captureTime)
        }
        rtpClock = clock
        lastTimestamp = timestamp
        return timestamp
    }

    /// Plans one access unit's packets and stores each in the history (plan and frame, no bytes).
    /// - Parameters:
    ///   - frame: the encoded frame.
    ///   - timestamp: its RTP timestamp.
    ///   - extensions: its per-frame header extension values (`extensionSchedule`).
    ///   - now: the time the packets count as sent from.
    ///   - stored: receives each packet's plan once it is in the history.
    /// - Throws: what the packetizer refuses (packets planned before stay in the history, unsent).
    mutating func plan(
        _ frame: EncodedFrame, timestamp: RTPTimestamp, extensions: RTPPacketExtensions = .none, now: MonotonicTime,
        stored: (H264PacketPlan) -> Void
    ) throws {
        try packetizer.plan(frame, timestamp: timestamp, extensions: extensions) { packet in
            history.store(packet, of: frame, now: now)
            stored(packet)
        }
    }

    /// Picks what to resend for `nack` (once per RTT, within the budget) and marks it in the history.
    /// - Parameters:
    ///   - nack: a NACK naming this stream's SSRC.
    ///   - now: the current time.
    ///   - retransmit: receives the sequence numbers to resend (emptied first; its capacity is kept).
    mutating func respond(to nack: GenericNACK, now: MonotonicTime, retransmit: inout [SequenceNumber]) {
        retransmit.removeAll(keepingCapacity: true)
        responder.respond(to: nack, now: now, history: &history, retransmit: &retransmit)
    }

    /// Reads a reception report block about this stream; its RTT, once known, sets the history's retention and the
    /// responder's resend guard.
    /// - Parameters:
    ///   - block: the block.
    ///   - arrival: when its RTCP packet arrived (wall clock, NTP format).
    /// - Returns: the latest RTT, if one is known.
    mutating func update(with block: ReportBlock, arrival: NTPTimestamp) -> Duration? {
        link.update(with: block, arrival: arrival)
        guard let rtt = link.roundTripTime else { return nil }
        history.roundTripTime = rtt
        responder.updateRoundTripTime(rtt)
        return rtt
    }

    /// This stream's Sender Report at `now` (RFC 3550 section 6.4.1: NTP and RTP time of the same instant), or nil
    /// before its first frame (no RTP time to map yet).
    /// - Parameters:
    ///   - now: the monotonic time now.
    ///   - wallClock: the wall clock at `now`, in NTP format.
    func senderReport(now: MonotonicTime, wallClock: NTPTimestamp) -> SenderReport? {
        guard let rtpClock else { return nil }
        return SenderReport(
            ssrc: ssrc, ntpTimestamp: wallClock, rtpTimestamp: rtpClock.timestamp(at: now),
            packetCount: UInt32(truncatingIfNeeded: counters.packetsSent),
            octetCount: UInt32(truncatingIfNeeded: counters.bytesSent))
    }
}
