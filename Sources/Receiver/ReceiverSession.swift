import H264
import MediaTime
import RTP

/// One incoming H.264 stream's receive path, sans-IO: RTP, RTCP and time go in; access units to decode, RTCP to send
/// (reports, NACKs, PLIs, transport-wide feedback) and the next deadline come out. It never reads a clock and owns no
/// socket or timer, so that one driver (`ReceiverSessionDriver`) runs it over a `UDPTransport` and a simulation runs
/// the very same value over a simulated link on a virtual clock. Decoding is the owner's: it reports back what
/// became of each access unit (`handle(decodeFailed:)`, `handle(keyframeDecoded:)`, `handle(pictureShown:)`).
///
/// ```
/// handle(rtp:) -> (RTX restored, FlexFEC recovered) -> ReceptionStatistics, TransportFeedbackGenerator, NACKGenerator
///              -> JitterBuffer (with NACK) -> H264Depacketizer -> pollEvent() .decode(access unit)
/// handleTimeout() -> NACKs due, gaps given up, transport-wide feedback, every report interval RR (+ PLI)
/// handle(rtcp:)   -> SR (for LSR/DLSR), BYE
/// ```
/// Not `Sendable`: one owner drives it.
final class ReceiverSession {
    /// What the owner acts on.
    enum Event {
        /// An access unit to decode, in order.
        case decode(H264ReceivedFrame)
    }

    let configuration: ReceiverConfiguration
    let ssrc: SSRC
    private var depacketizer: H264Depacketizer
    /// Depacketizer events not yet taken: read one at a time by `pollEvent`, so that what the owner reported about
    /// the previous access unit (an IDR decoded) counts for the next.
    private var depacketized: [H264DepacketizerEvent] = []
    /// When each of `depacketized` may be handed on (`RepairPlayoutDelay`); nil at once.
    private var releases: [MonotonicTime?] = []
    private var depacketizedHead = 0
    /// Holds repaired frames' successors so that a repair a round trip late does not freeze the picture; nil when
    /// off (`ReceiverConfiguration.repairDelay`, or without NACK).
    private var playout: RepairPlayoutDelay?
    /// RTP timestamps of recent frames with a retransmitted or recovered packet (the last 64).
    private var repairedTimestamps: [UInt32] = []
    private var transmits: [[RTCPPacket]] = []

    // The sender's stream (learned from its first packet: symmetric RTP).
    private var senderSSRC: SSRC?
    private var mediaPayloadType: PayloadType?

    // Reception statistics for Receiver Reports (RFC 3550 appendix A.3 and A.8), once the sender is known.
    private var reception: ReceptionStatistics?
    private var lastSenderReportMiddle: UInt32 = 0
    private var lastSenderReportArrival = MonotonicTime.zero

    // Keyframe requests.
    private var needKeyframe = false
    private var lastPLI: MonotonicTime?
    private var decodedKeyframe = false

    // Lifecycle.
    private let start: MonotonicTime
    private var now: MonotonicTime
    private var nextReport: MonotonicTime
    /// Whether the next report is the early first one (RR without a report block, XR RRTR).
    private var earlyReport = false
    private var firstPacket: MonotonicTime?
    private var lastPacket = MonotonicTime.zero
    private(set) var finished = false
    private var stats = ReceiverStats()
    private var lastPictureSize: (width: Int, height: Int)?

    // Loss repair: NACKs, the jitter buffer that waits for their answers, freezes as browsers count them.
    private var nack: NACKGenerator?
    private var jitter: JitterBuffer<[UInt8]>?
    /// The first packet of the latest keyframe access unit buffered ahead of the next sequence number (its sequence
    /// number and RTP timestamp): once all of it is there, the jitter buffer skips the hole in front of it.
    private var keyframeAhead: (start: SequenceNumber, timestamp: RTPTimestamp)?
    private var nackList: [SequenceNumber] = []
    private var freezes = FreezeDetector()
    /// When each sequence number was first NACKed, or nil once it was asked again (its answer is then ambiguous), for
    /// the round-trip time the NACK repeats are spaced by.
    private var nackSentAt: [SequenceNumber: MonotonicTime?] = [:]
    /// The smoothed NACK -> retransmission time (RFC 6298's 1/8 gain), once measured.
    private var roundTripTime: Duration?
    /// The path's round trip from RTCP XR (RRTR/DLRR), once measured: no repair can come back faster.
    private var extendedReportRoundTripTime: Duration?
    /// The jitter buffer's wait for a missing packet, from the RTT and jitter.
    private let repairWait: RepairWait

    // Capture -> decoded times from the sender's abs-capture-time.
    private var captureLatency = CaptureLatencyTracker()
    /// The dependency descriptors read, when configured.
    private var dependencyDescriptors = DependencyDescriptorTracker()

    /// Recovers lost media packets from FlexFEC packets (with `fecPayloadType`, created with the first media packet,
    /// which names the SSRC it protects).
    private var fec: FlexFECReceiver?

    // Transport-wide congestion control feedback (created with the first packet, which names the media SSRC).
    private var transportFeedback: TransportFeedbackGenerator?
    private var transportFeedbackMessages: [TransportFeedback] = []

    /// False while there is nobody to send RTCP to (the sender's address is learned from its first packet). The
    /// owner keeps it current.
    var canSend = true

    /// Sequence numbers whose NACK time is remembered at most.
    static let maximumTrackedNACKs = 2048
    /// How long after the first packet NACK samples over RTX wait for the XR round trip (which bounds them from
    /// below) before they are taken without it: a sender that answers RRTRs does so within about a report interval.
    static let extendedReportGrace = Duration.seconds(3)
    /// How soon after the first packet the first report goes (at most the report interval).
    static let firstReportDelay = Duration.milliseconds(100)
    /// The longest NACK repeat interval the back-off reaches.
    static let maximumNACKBackoff = Duration.seconds(1)

    /// Creates a session.
    /// - Parameters:
    ///   - configuration: the receiver's configuration.
    ///   - ssrc: the receiver's own SSRC (for its RTCP).
    ///   - now: now.
    init(configuration: ReceiverConfiguration, ssrc: SSRC, now: MonotonicTime) throws {
        self.configuration = configuration
        self.ssrc = ssrc
        repairWait = RepairWait(minimum: configuration.jitterBufferWait, maximum: configuration.jitterBufferMaximumWait)
        if configuration.nack {
            // The jitter buffer hands packets over in order, so the depacketizer declares a gap lost at once.
            depacketizer = H264Depacketizer(reorderWindow: 1)
            nack = NACKGenerator()
            jitter = try JitterBuffer(maximumWait: repairWait.wait(roundTripTime: nil))
            nackList.reserveCapacity(256)
            if configuration.repairDelay { playout = RepairPlayoutDelay(maximum: configuration.jitterBufferMaximumWait) }
        } else {
            depacketizer = H264Depacketizer(reorderWindow: configuration.reorderWindow)
        }
        start = now
        self.now = now
        nextReport = now + configuration.reportInterval
    }

    private func advance(to time: MonotonicTime) {
        if time > now { now = time }
    }

    // MARK: Inputs

    /// One RTP packet (SRTP already removed).
    func handle(rtp bytes: UnsafeRawBufferPointer, now: MonotonicTime) {
        advance(to: now)
        guard !finished else { return }
        var packet = [UInt8](bytes)
        guard var view = try? RTPPacketView(parsing: packet) else {
            stats.malformedPackets += 1
            return
        }
        if let id = configuration.transportWideCCExtensionID {
            recordTransportSequence(bytes, id: id, ssrc: view.header.ssrc)
        }
        if let fecPT = configuration.fecPayloadType, view.header.payloadType.rawValue == fecPT {
            receivedFEC(packet, view: view, now: now)
            return
        }
        var isRetransmission = false
        if let rtxPT = configuration.rtxPayloadType, view.header.payloadType.rawValue == rtxPT {
            // RFC 4588: the original sequence number first in the payload, the media SSRC and payload type restored.
            guard let media = senderSSRC, let mediaPT = mediaPayloadType,
                  let original = try? RTXPacket.restore(from: packet, mediaSSRC: media, payloadType: mediaPT),
                  let restored = try? RTPPacketView(parsing: original)
            else {
                stats.malformedPackets += 1
                return
            }
            packet = original
            view = restored
            isRetransmission = true
        }
        if senderSSRC == nil {
            senderSSRC = view.header.ssrc
            mediaPayloadType = view.header.payloadType
            stats.ssrc = view.header.ssrc.rawValue
            reception = ReceptionStatistics(ssrc: view.header.ssrc)
            if configuration.fecPayloadType != nil {
                fec = FlexFECReceiver(
                    protectedSSRC: view.header.ssrc, transportSequenceExtensionID: configuration.transportWideCCExtensionID)
            }
        }
        guard view.header.ssrc == senderSSRC else { return }
        accept(packet, view: view, isRetransmission: isRetransmission, isRecovered: false, now: now)
        if fec != nil {
            var recovered: [[UInt8]] = []
            fec?.receivedMedia(packet) { recovered.append($0) }
            acceptRecovered(recovered, now: now)
        }
    }

    /// Media packets FlexFEC recovered: repairs, not receptions (`accept(isRecovered:)`).
    private func acceptRecovered(_ packets: [[UInt8]], now: MonotonicTime) {
        for packet in packets {
            guard let view = try? RTPPacketView(parsing: packet) else { continue }
            accept(packet, view: view, isRetransmission: false, isRecovered: true, now: now)
        }
    }

    /// A FlexFEC packet: what it recovers goes the media's way (`FlexFECReceiver`).
    private func receivedFEC(_ packet: [UInt8], view: RTPPacketView, now: MonotonicTime) {
        stats.fecPacketsReceived += 1
        guard fec != nil else {
            stats.fecPacketsDiscarded += 1  // no media packet yet: nothing to protect
            return
        }
        var recovered: [[UInt8]] = []
        do {
            try packet.withUnsafeBytes { bytes in
                try fec?.receivedFEC(payload: UnsafeRawBufferPointer(rebasing: bytes[view.payloadRange])) {
                    recovered.append($0)
                }
            }
        } catch {
            stats.fecPacketsDiscarded += 1
        }
        acceptRecovered(recovered, now: now)
    }

    /// A media packet of the sender's stream (received, restored from RTX or recovered from FEC): statistics, NACK
    /// bookkeeping, the jitter buffer.
    private func accept(
        _ packet: [UInt8], view: RTPPacketView, isRetransmission: Bool, isRecovered: Bool, now: MonotonicTime
    ) {
        readFrameExtensions(
            packet, timestamp: view.header.timestamp, sequence: view.header.sequenceNumber,
            isRetransmission: isRetransmission, now: now)
        if firstPacket == nil {
            firstPacket = now
            // The first report soon after the first packet: its RRTR's answer (DLRR in the sender's next SR) gives the
            // round trip a report interval earlier than waiting a whole interval, and with it the repair wait.
            let early = now + min(configuration.reportInterval, Self.firstReportDelay)
            if early < nextReport {
                nextReport = early
                earlyReport = true
            }
        }
        lastPacket = now
        if !isRetransmission && !isRecovered {
            // The media stream's own statistics (RFC 3550 A.3): a packet repaired over RTX counts for the RTX stream,
            // and one recovered from FEC nowhere (as libwebrtc), so the sender's congestion control and FEC see the
            // path's loss, not what is left after repair.
            reception?.record(
                sequenceNumber: view.header.sequenceNumber, timestamp: view.header.timestamp,
                arrival: RTPClock.ticks(now - .zero))
        }
        if isRecovered {
            stats.packetsRecovered += 1
        } else {
            stats.packetsReceived += 1
            stats.bytesReceived += view.payloadRange.count
        }
        guard jitter != nil else {
            enqueue(depacketizer.push(packet))
            return
        }
        let sequenceNumber = view.header.sequenceNumber
        let wasMissing = nack?.isMissing(sequenceNumber) ?? false
        if playout != nil, isRetransmission || wasMissing || isRecovered {
            let timestamp = view.header.timestamp.rawValue
            if repairedTimestamps.last != timestamp {
                if repairedTimestamps.count >= 64 { repairedTimestamps.removeFirst() }
                repairedTimestamps.append(timestamp)
            }
        }
        if wasMissing, let entry = nackSentAt.removeValue(forKey: sequenceNumber), !isRecovered {
            // A recovered packet says nothing about the round trip; nor, when retransmissions come on their own RTX
            // stream, does the original arriving after its NACK (it was late or reordered, not the answer).
            if isRetransmission || configuration.rtxPayloadType == nil {
                if let asked = entry {
                    measuredRoundTrip(now - asked)
                } else {
                    ambiguousRoundTrip()
                }
            }
        }
        nack?.received(sequenceNumber, now: now, isRetransmission: isRetransmission)
        if !isRecovered, isRetransmission || wasMissing { stats.retransmittedPacketsReceived += 1 }
        _ = jitter?.insert(packet, sequenceNumber: sequenceNumber, now: now)
        if Self.startsKeyframe(packet[view.payloadRange]),
           let next = jitter?.nextSequenceNumber, next.distance(to: sequenceNumber) > 0 {
            keyframeAhead = (sequenceNumber, view.header.timestamp)
        }
        if let due = nack?.nextDeadline, due <= now {
            repair()  // a new gap: NACK now
        } else {
            drainJitterBuffer()
        }
        jumpToCompleteKeyframe()
    }

    /// Whether an H.264 payload starts a keyframe's access unit: its first NAL unit is a sequence parameter set (as
    /// libwebrtc and our sender put in front of every IDR), alone or first in a STAP-A.
    static func startsKeyframe(_ payload: ArraySlice<UInt8>) -> Bool {
        switch try? H264PayloadView(parsing: payload) {
        case .single(let range): return NALUnitHeader(byte: payload[range.lowerBound]).type == .sps
        case .stapA(let ranges): return ranges.first.map { NALUnitHeader(byte: payload[$0.lowerBound]).type == .sps } ?? false
        default: return false
        }
    }

    /// With a hole in front of it, a keyframe whose packets have all arrived (from its first to its marker bit, one
    /// timestamp, an IDR slice among them) is released at once: the jitter buffer gives up what lies before it, which
    /// could not be decoded anyway once the hole is lost (as libwebrtc's frame buffer decodes a complete keyframe
    /// without waiting for older frames). Without this the keyframe a receiver asked for after a loss waited behind
    /// repairs still outstanding, up to the whole repair wait.
    private func jumpToCompleteKeyframe() {
        guard let ahead = keyframeAhead, let next = jitter?.nextSequenceNumber else { return }
        let distance = next.distance(to: ahead.start)
        guard distance > 0 else {
            keyframeAhead = nil  // reached in order
            return
        }
        var sequence = ahead.start
        var sawIDR = false
        for _ in 0..<(jitter?.capacity ?? 0) {
            guard let packet = jitter?.packet(at: sequence), let view = try? RTPPacketView(parsing: packet),
                  view.header.timestamp == ahead.timestamp
            else { return }  // not all there yet (or the next frame began without this one's marker)
            if !sawIDR, Self.carriesIDR(packet[view.payloadRange]) { sawIDR = true }
            if view.header.marker { break }
            sequence = sequence + 1
        }
        guard sawIDR, let skipped = jitter?.skip(to: ahead.start) else { return }
        keyframeAhead = nil
        nack?.removeMissing(before: ahead.start)
        stats.keyframeJumps += 1
        stats.packetsSkippedForKeyframe += skipped.dropped
        drainJitterBuffer()
    }

    /// Whether an H.264 payload carries (a fragment of) an IDR slice.
    static func carriesIDR(_ payload: ArraySlice<UInt8>) -> Bool {
        switch try? H264PayloadView(parsing: payload) {
        case .single(let range): return NALUnitHeader(byte: payload[range.lowerBound]).type == .idrSlice
        case .stapA(let ranges): return ranges.contains { NALUnitHeader(byte: payload[$0.lowerBound]).type == .idrSlice }
        case .fuA(_, let header, _): return NALUnitHeader(byte: header).type == .idrSlice
        case nil: return false
        }
    }

    /// The sender's RTCP, parsed (SRTCP already removed).
    func handle(rtcp packets: [RTCPPacket], now: MonotonicTime) {
        advance(to: now)
        for packet in packets {
            switch packet {
            case .senderReport(let sr) where senderSSRC == nil || sr.ssrc == senderSSRC:
                stats.senderReportsReceived += 1
                lastSenderReportMiddle = sr.ntpTimestamp.middle32
                lastSenderReportArrival = now
            case .extendedReport(let xr) where senderSSRC == nil || xr.ssrc == senderSSRC:
                for block in xr.blocks {
                    guard case .delaySinceLastReceiverReport(let answers) = block else { continue }
                    for answer in answers where answer.ssrc == ssrc { receivedDLRR(answer) }
                }
            case .goodbye(let bye) where bye.sources.contains { $0 == senderSSRC }:
                stats.byeReceived = true
                if configuration.stopOnBye { finish(now: now) }
            default:
                break
            }
        }
    }

    /// Time passed: NACKs and gaps that are due, transport-wide feedback, the report interval and its limits.
    func handleTimeout(now: MonotonicTime) {
        advance(to: now)
        guard !finished else { return }
        let nackDue = nack?.nextDeadline.map { $0 <= now } ?? false
        let waitOver = jitter?.nextDeadline.map { $0 <= now } ?? false
        if nackDue || waitOver { repair() }
        if let due = transportFeedback?.nextDeadline, due <= now { sendTransportFeedback() }
        if now >= nextReport {
            nextReport = now + configuration.reportInterval
            report()
        }
    }

    /// The application's keyframe request: a PLI now, repeated about every report interval until a keyframe arrives.
    func requestKeyframe(now: MonotonicTime) {
        advance(to: now)
        needKeyframe = true
        sendFeedback(pli: true)
    }

    /// The decoder refused an access unit: dropped, and a keyframe asked for.
    func handle(decodeFailed now: MonotonicTime) {
        advance(to: now)
        stats.decodeErrors += 1
        stats.framesDropped += 1
        askForKeyframe()
    }

    /// The decoder took an IDR: what follows can be decoded.
    func handle(keyframeDecoded now: MonotonicTime) {
        advance(to: now)
        decodedKeyframe = true
        needKeyframe = false
        stats.keyFramesDecoded += 1
        stats.keyframeTimes.append((now - start).inSeconds)
    }

    /// The decoder produced a picture of this size (for the frame count, resolution changes, freezes and the frame
    /// limit, and with its frame's RTP timestamp and the wall clock, the capture -> decoded time).
    /// - Parameters:
    ///   - size: the picture's size.
    ///   - timestamp: the RTP timestamp of its access unit, if known.
    ///   - wallClock: the receiver's wall clock now (NTP format), if known.
    ///   - now: now.
    func handle(
        pictureShown size: (width: Int, height: Int), timestamp: RTPTimestamp? = nil, wallClock: NTPTimestamp? = nil,
        now: MonotonicTime
    ) {
        advance(to: now)
        if let timestamp, let wallClock { captureLatency.decoded(timestamp: timestamp, wallClock: wallClock, now: now) }
        stats.framesDecoded += 1
        if let last = lastPictureSize, last != size { stats.resolutionChanges += 1 }
        lastPictureSize = size
        _ = freezes.frameRendered(at: now)
        if let limit = configuration.frameLimit, stats.framesDecoded >= limit { finish(now: now) }
    }

    /// Ends reception: whatever the jitter buffer and the depacketizer still hold becomes access units to decode.
    /// Idempotent.
    func finish(now: MonotonicTime) {
        advance(to: now)
        guard !finished else { return }
        finished = true
        if jitter != nil {
            let late = now + .seconds(3600)
            while let output = jitter?.pop(now: late) {
                if case .packet(_, let bytes) = output { enqueue(depacketizer.push(bytes)) }
            }
        }
        enqueue(depacketizer.flush())
    }

    // MARK: Outputs

    /// The next event, if any. Depacketizer events are read here, one at a time, after what the owner reported of
    /// the access unit before.
    func pollEvent() -> Event? {
        while depacketizedHead < depacketized.count {
            // A frame waits for its playout time (all go at once when finished).
            if !finished, let release = releases[depacketizedHead], release > now { return nil }
            let event = depacketized[depacketizedHead]
            depacketizedHead += 1
            if let decode = read(event) { return decode }
        }
        if !depacketized.isEmpty {
            depacketized.removeAll(keepingCapacity: true)
            releases.removeAll(keepingCapacity: true)
            depacketizedHead = 0
        }
        return nil
    }

    /// The next RTCP compound to send, if any.
    func pollTransmit() -> [RTCPPacket]? {
        transmits.isEmpty ? nil : transmits.removeFirst()
    }

    /// When `handleTimeout` is next due: the earliest NACK repeat, jitter-buffer wait, transport-wide feedback or the
    /// end of the report interval; nil once finished.
    func pollTimeout() -> MonotonicTime? {
        guard !finished else { return nil }
        var deadline = nextReport
        if depacketizedHead < releases.count, let release = releases[depacketizedHead], release < deadline {
            deadline = release
        }
        // Repairs and feedback wait for someone to send them to (and for the sender's SSRC, for a NACK).
        guard canSend else { return deadline }
        if senderSSRC != nil {
            if let due = nack?.nextDeadline, due < deadline { deadline = due }
            if let due = jitter?.nextDeadline, due < deadline { deadline = due }
        }
        if let due = transportFeedback?.nextDeadline, due < deadline { deadline = due }
        return deadline
    }

    /// The statistics now, of what this session counts (the owner adds its transport's counters).
    func snapshot(now: MonotonicTime) -> ReceiverStats {
        advance(to: now)
        var stats = self.stats
        stats.timestamp = (now - start).inSeconds
        stats.jitter = Double(reception?.jitter ?? 0) / 90_000
        stats.freezeCount = freezes.freezeCount
        stats.totalFreezesDuration = freezes.totalFreezesDuration.inSeconds
        stats.longestFreeze = freezes.longestFreeze.inSeconds
        if let nack { stats.packetsGivenUp = nack.statistics.givenUp }
        if let jitter { stats.packetsGivenUp = max(stats.packetsGivenUp, jitter.lostCount) }
        stats.captureToDecoded = captureLatency.statistics
        if configuration.dependencyDescriptorExtensionID != nil {
            stats.scalabilityMode = dependencyDescriptors.scalabilityMode
            stats.temporalLayerFrames = dependencyDescriptors.scalabilityMode != nil
                ? dependencyDescriptors.framesPerLayer : nil
            stats.dependencyDescriptorErrors = dependencyDescriptors.errors
        }
        stats.captureToFirstPacket = captureLatency.firstPacketStatistics
        stats.firstToLastPacket = captureLatency.spreadStatistics
        return stats
    }

    // MARK: The receive path

    /// Reads the per-frame header extensions of a media packet (RTX restored): the capture time and the playout
    /// delay, when configured (and with the capture time, when the frame's first packet arrived). An element of the
    /// wrong length, or a malformed block, is ignored (the packet itself is judged by the depacketizer).
    private func readFrameExtensions(
        _ packet: [UInt8], timestamp: RTPTimestamp, sequence: SequenceNumber, isRetransmission: Bool, now: MonotonicTime
    ) {
        let captureID = configuration.absoluteCaptureTimeExtensionID
        let delayID = configuration.playoutDelayExtensionID
        let descriptorID = configuration.dependencyDescriptorExtensionID
        guard captureID != nil || delayID != nil || descriptorID != nil else { return }
        if captureID != nil {
            captureLatency.packetArrived(
                timestamp: timestamp, sequence: sequence, now: now, isRetransmission: isRetransmission)
        }
        packet.withUnsafeBytes { bytes in
            if let captureID, let time = try? AbsoluteCaptureTime.read(from: bytes, id: captureID) {
                captureLatency.received(time, timestamp: timestamp)
            }
            if let delayID, let delay = try? PlayoutDelay.read(from: bytes, id: delayID) {
                stats.playoutDelay = ReceivedPlayoutDelay(
                    minimumMilliseconds: delay.minimumMilliseconds, maximumMilliseconds: delay.maximumMilliseconds)
            }
            if let descriptorID { dependencyDescriptors.received(bytes, id: descriptorID) }
        }
    }

    private func read(_ event: H264DepacketizerEvent) -> Event? {
        switch event {
        case .frame(let received):
            stats.framesReceived += 1
            configuration.onAccessUnit?(received)
            if !received.frame.isKeyframe && !decodedKeyframe {
                // Joined mid-stream: nothing can be decoded before an IDR.
                stats.framesDropped += 1
                askForKeyframe()
                return nil
            }
            return .decode(received)
        case .frameDropped:
            stats.framesDropped += 1
            askForKeyframe()
        case .packetsLost(_, let count):
            stats.packetsLost += count
            askForKeyframe()
        case .malformedPacket:
            stats.malformedPackets += 1
        case .latePacket:
            break
        case .resynchronized:
            // The sender restarted (new SSRC or sequence numbers): wait for its next keyframe.
            decodedKeyframe = false
            askForKeyframe()
        }
        return nil
    }

    /// Queues depacketizer events for `pollEvent`, each frame with its playout time.
    private func enqueue(_ events: [H264DepacketizerEvent]) {
        for event in events {
            depacketized.append(event)
            if case .resynchronized = event { playout?.reset() }  // a new stream: its own timeline
            guard case .frame(let received) = event, playout != nil else {
                releases.append(nil)
                continue
            }
            let timestamp = received.rtpTimestamp.rawValue
            let release = playout?.frameCompleted(
                timestamp: received.rtpTimestamp, completed: now, repaired: repairedTimestamps.contains(timestamp))
            releases.append(release.flatMap { $0 > now ? $0 : nil })
            stats.repairPlayoutDelay = playout?.delay.inSeconds
        }
    }

    /// Hands what the jitter buffer releases (in order) to the depacketizer; a gap it gives up on becomes a loss.
    private func drainJitterBuffer() {
        while let output = jitter?.pop(now: now) {
            switch output {
            case .packet(_, let bytes):
                enqueue(depacketizer.push(bytes))
            case .lost(let first, let count):
                // Given up: stop asking; the depacketizer sees the gap and drops the frame (then a PLI).
                nack?.removeMissing(before: first + count)
            }
        }
    }

    /// Records the arrival of a packet carrying the transport-wide sequence number (media and RTX alike: the number
    /// counts every packet of the transport).
    private func recordTransportSequence(_ bytes: UnsafeRawBufferPointer, id: UInt8, ssrc media: SSRC) {
        guard let number = try? TransportSequenceNumber.read(from: bytes, id: id) else { return }
        if transportFeedback == nil {
            transportFeedback = TransportFeedbackGenerator(
                senderSSRC: ssrc, mediaSSRC: senderSSRC ?? media, interval: configuration.transportFeedbackInterval)
        }
        transportFeedback?.received(number, now: now)
    }

    /// The arrivals since the last feedback, one RTCP datagram per message (an empty RR first, as a compound packet
    /// needs, RFC 3550 section 6.1).
    private func sendTransportFeedback() {
        guard canSend, transportFeedback != nil else { return }
        var messages = transportFeedbackMessages
        transportFeedbackMessages = []
        transportFeedback?.poll(now: now, into: &messages)
        for message in messages {
            let report = RTCPPacket.receiverReport(ReceiverReport(ssrc: ssrc, reportBlocks: []))
            transmits.append([report, .transportFeedback(message)])
            stats.transportFeedbackSent += 1
        }
        messages.removeAll(keepingCapacity: true)
        transportFeedbackMessages = messages
    }

    /// Our clock in NTP format for RRTR (RFC 3611 section 4.4): monotonic time since an arbitrary origin is enough,
    /// since only we compare it with itself (the sender echoes its middle 32 bits).
    private func referenceTime(at time: MonotonicTime) -> NTPTimestamp {
        let nanoseconds = UInt64(max(0, time.nanoseconds))
        let seconds = nanoseconds / 1_000_000_000
        let fraction = (nanoseconds % 1_000_000_000) << 32 / 1_000_000_000
        return NTPTimestamp(seconds: UInt32(truncatingIfNeeded: seconds), fraction: UInt32(truncatingIfNeeded: fraction))
    }

    /// The sender's answer to one of our RRTRs: RTT = now - LRR - DLRR, in 1/65536 s (RFC 3611 section 4.5).
    private func receivedDLRR(_ answer: ExtendedReport.DelaySinceLastReceiverReport) {
        guard answer.lastReceiverReport != 0 else { return }
        let arrived = referenceTime(at: now).middle32
        let units = arrived &- answer.lastReceiverReport &- answer.delaySinceLastReceiverReport
        guard units < 5 * 65_536 else { return }  // a wrapped (negative) or absurd answer
        let sample = Duration.nanoseconds(Int64(units) * 1_000_000_000 / 65_536)
        stats.extendedReportRoundTripTime = sample.inSeconds
        extendedReportRoundTripTime = sample
        // Not the NACK timing itself: a repair's round trip also holds the sender's pacing and history lookup, which
        // the NACK -> retransmission samples measure (with the path's RTT alone, 10 % loss at 200 ms showed 93.9 % of
        // the frames in the simulation instead of 97.5 %). But its floor: a NACK estimate under the path's round trip
        // came from a packet that was not the answer (the sender's probe padding resends recent packets), and once
        // low it stays low, since every NACK is then repeated before its answer can come and gives no sample (at
        // 10 % loss and 200 ms: 65 ms, a packet given up a second and a PLI each).
        if let current = roundTripTime, current < sample {
            setRoundTripTime(sample)
        } else if roundTripTime == nil {
            stats.roundTripTime = sample.inSeconds
            // The path's round trip until a NACK sample comes: for the wait, and for the NACK repeats, which at the
            // assumed 100 ms (or its Karn back-off) would come before the answer on a longer path and be ignored.
            if let assumed = assumedNACKRoundTrip { nack?.roundTripTime = max(assumed, sample) }
            updateRepairWait()
        }
    }

    /// One NACK -> retransmission sample: the NACK repeats are spaced by the smoothed figure (RFC 6298, gain 1/8),
    /// not by a 100 ms guess.
    private func measuredRoundTrip(_ sample: Duration) {
        guard sample > .zero, sample < .seconds(5) else { return }
        // Over RTX, until the XR round trip is known (or is clearly not coming): an RTX packet may be a probe's copy
        // of a packet lost before, which arrives sooner than any answer can. At 150 ms each way such a 30 ms "sample"
        // kept the wait at its least, and every loss of the first second was given up just before its answer came.
        if extendedReportRoundTripTime == nil, configuration.rtxPayloadType != nil, let first = firstPacket,
            now - first < Self.extendedReportGrace
        {
            return
        }
        // Faster than the path: not the NACK's answer (a probe's copy of the packet).
        if let path = extendedReportRoundTripTime, sample < path * 0.9 { return }
        setRoundTripTime(roundTripTime.map { $0 * 0.875 + sample * 0.125 } ?? sample)
    }

    private func setRoundTripTime(_ smoothed: Duration) {
        roundTripTime = smoothed
        nack?.roundTripTime = smoothed
        stats.roundTripTime = smoothed.inSeconds
        updateRepairWait()
    }

    /// The answer to a NACK that was repeated: no sample (which request did it answer?), and, until a first sample
    /// exists, the repeat interval doubles (Karn's algorithm, RFC 6298 section 5.5). Without the back-off a path
    /// whose RTT exceeds the assumed 100 ms never yields a sample: every NACK is repeated before its answer can come.
    private func ambiguousRoundTrip() {
        guard roundTripTime == nil, let current = assumedNACKRoundTrip else { return }
        nack?.roundTripTime = min(current * 2, Self.maximumNACKBackoff)
    }

    /// The round trip the NACK repeats are spaced by before a sample: the generator's (backed off or from XR), or
    /// its default; nil without NACK.
    private var assumedNACKRoundTrip: Duration? {
        nack.map { $0.roundTripTime ?? NACKGenerator.defaultRoundTripTime }
    }

    /// The jitter buffer waits for a missing packet as long as retransmission can still repair it (`RepairWait`):
    /// after each RTT sample and each report interval (the jitter moves).
    private func updateRepairWait() {
        guard jitter != nil else { return }
        let jitterTicks = Int64(reception?.jitter ?? 0)
        let delay = Duration.nanoseconds(min(jitterTicks, 90_000 * 60) * 1_000_000_000 / 90_000)
        nack?.jitter = delay
        let wait = repairWait.wait(
            roundTripTime: roundTripTime ?? extendedReportRoundTripTime, jitter: delay,
            resendMargin: nack?.repeatMargin ?? .zero)
        jitter?.maximumWait = wait
        stats.jitterBufferWait = wait.inSeconds
    }

    /// NACKs that are due, gaps whose wait is over.
    private func repair() {
        guard canSend, let media = senderSSRC else { return }
        var list = nackList
        nackList = []
        list.removeAll(keepingCapacity: true)
        let giveUp = nack?.poll(now: now, into: &list) ?? false
        if !list.isEmpty {
            let nackPacket = GenericNACK(senderSSRC: ssrc, mediaSSRC: media, lost: list)
            let report = RTCPPacket.receiverReport(ReceiverReport(ssrc: ssrc, reportBlocks: []))
            for _ in 0..<min(max(configuration.nackCopies, 1), 3) {
                // Each copy is its own SRTCP packet (its own index), so that the loss of one does not take the others.
                transmits.append([report, .nack(nackPacket)])
            }
            stats.nackCount += 1
            stats.packetsNACKed += list.count
            if nackSentAt.count > Self.maximumTrackedNACKs { nackSentAt.removeAll(keepingCapacity: true) }
            for sequenceNumber in list {
                // A repeat makes the answer ambiguous (which request did it answer?): never a sample (Karn); the
                // entry stays, marked, until the packet arrives or is given up.
                if nackSentAt.index(forKey: sequenceNumber) == nil {
                    nackSentAt[sequenceNumber] = now
                } else {
                    nackSentAt[sequenceNumber] = .some(nil)
                }
            }
        }
        nackList = list
        if giveUp { askForKeyframe() }
        drainJitterBuffer()
    }

    // MARK: Reports and keyframe requests

    /// Once per report interval: limits, Receiver Report, repeated PLI.
    private func report() {
        if let first = firstPacket {
            if let duration = configuration.duration, now - first >= duration { return finish(now: now) }
            if let idle = configuration.idleTimeout, now - lastPacket >= idle { return finish(now: now) }
        }
        updateRepairWait()
        guard canSend else { return }
        sendFeedback(pli: needKeyframe && pliIntervalElapsed(), reportBlock: !earlyReport)
        earlyReport = false
    }

    private func pliIntervalElapsed() -> Bool {
        guard let last = lastPLI else { return true }
        return now - last >= configuration.reportInterval * 0.9
    }

    private func askForKeyframe() {
        needKeyframe = true
        if pliIntervalElapsed() { sendFeedback(pli: true) }
    }

    /// The report block about the sender's stream, with LSR/DLSR from its latest SR (RFC 3550 section 6.4.1).
    private func makeReportBlock() -> ReportBlock? {
        var dlsr: UInt32 = 0
        if lastSenderReportMiddle != 0 {
            // Delay since the last SR, in 1/65536 s.
            let nanoseconds = (now - lastSenderReportArrival).saturatingNanoseconds
            dlsr = UInt32(clamping: max(0, nanoseconds / 1_000_000) * 65_536 / 1_000)
        }
        return reception?.makeReportBlock(lastSenderReport: lastSenderReportMiddle, delaySinceLastSenderReport: dlsr)
    }

    /// Queues RR + SDES, with a PLI when asked (RFC 4585 section 6.3.1).
    /// - Parameters:
    ///   - pli: whether a PLI goes with it.
    ///   - reportBlock: whether the RR carries the report block (the early first report does not: its loss fraction,
    ///     over the handful of packets of 100 ms, would be noise to the sender's loss estimate and FEC).
    private func sendFeedback(pli: Bool, reportBlock: Bool = true) {
        guard canSend, !finished else { return }
        var packets: [RTCPPacket] = [
            .receiverReport(ReceiverReport(
                ssrc: ssrc, reportBlocks: reportBlock ? makeReportBlock().map { [$0] } ?? [] : [])),
            .sourceDescription(SourceDescription(chunks: [
                SourceDescriptionChunk(ssrc: ssrc, items: [.cname(configuration.cname)]),
            ])),
        ]
        // Our reference time, so that the sender's DLRR answer gives us the RTT without waiting for a NACK.
        packets.append(.extendedReport(ExtendedReport(ssrc: ssrc, blocks: [.receiverReferenceTime(referenceTime(at: now))])))
        if pli, let senderSSRC {
            packets.append(.pli(PictureLossIndication(senderSSRC: ssrc, mediaSSRC: senderSSRC)))
            lastPLI = now
            stats.pliCount += 1
        }
        transmits.append(packets)
    }
}
