import Codec
import H264
import NIOCore
import RTP
import Sender
import Transport
import Video

/// The receiver's work, confined to its event loop: transport -> depacketizer -> decoder, and RTCP back.
final class ReceiverCore {
    private let configuration: ReceiverConfiguration
    private let ssrc: SSRC
    private let transport: UDPTransport
    private let clock: SenderClock
    private let done: EventLoopPromise<ReceiverStats>
    private var state: ReceiverState
    private var reportTask: RepeatedTask?

    init(configuration: ReceiverConfiguration, ssrc: SSRC, transport: UDPTransport, clock: SenderClock,
         done: EventLoopPromise<ReceiverStats>) throws {
        self.configuration = configuration
        self.ssrc = ssrc
        self.transport = transport
        self.clock = clock
        self.done = done
        self.state = try ReceiverState(configuration: configuration)
    }

    func start() {
        state.start = clock.monotonic()
        transport.onRTP = { [weak self] packet, _ in self?.receivedRTP(packet) }
        transport.onRTCP = { [weak self] packets in self?.receivedRTCP(packets) }
        let interval = TimeAmount.nanoseconds(configuration.reportInterval.saturatingNanoseconds)
        let weakSelf = NIOLoopBound(WeakReference(self), eventLoop: transport.eventLoop)
        reportTask = transport.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            weakSelf.value.object?.tick()
        }
        if configuration.transportWideCCExtensionID != nil {
            let every = TimeAmount.nanoseconds(configuration.transportFeedbackInterval.saturatingNanoseconds)
            state.transportFeedbackTask = transport.eventLoop.scheduleRepeatedTask(initialDelay: every, delay: every) { _ in
                weakSelf.value.object?.sendTransportFeedback()
            }
        }
        if state.nack != nil {
            state.repairTask = transport.eventLoop.scheduleRepeatedTask(initialDelay: Self.repairTick, delay: Self.repairTick) { _ in
                weakSelf.value.object?.repair()
            }
        }
    }

    /// How often NACK deadlines and the jitter buffer's waits are checked at the least; a one-shot timer
    /// (`scheduleRepair`) also fires at the earliest of them, so that a repeated NACK leaves when it is due rather
    /// than up to a tick later.
    static let repairTick = TimeAmount.milliseconds(10)

    func finish() {
        guard !state.finished else { return }
        state.finished = true
        reportTask?.cancel()
        state.repairTask?.cancel()
        state.repairTimer?.cancel()
        state.repairTimer = nil
        state.transportFeedbackTask?.cancel()
        // Whatever the jitter buffer still holds goes to the depacketizer, in order.
        if state.jitter != nil {
            let late = clock.monotonic() + .seconds(3600)
            while let output = state.jitter!.pop(now: late) {
                if case .packet(_, let bytes) = output {
                    for event in state.depacketizer.push(bytes) { handle(event) }
                }
            }
        }
        for event in state.depacketizer.flush() { handle(event) }
        // The picture OpenH264 still holds (High profile) comes out at the end of the stream.
        while !state.awaitingPicture.isEmpty, (try? state.decoder.flush(into: &state.picture)) == true {
            deliverPicture()
        }
        let final = snapshot()
        transport.close()
        transport.onRTP = nil
        transport.onRTCP = nil
        done.succeed(final)
    }

    func snapshot() -> ReceiverStats {
        var stats = state.stats
        stats.timestamp = (clock.monotonic() - state.start).inSeconds
        stats.jitter = Double(state.reception?.jitter ?? 0) / 90_000
        stats.transport = transport.counters
        stats.srtpUnprotectFailures = transport.counters.srtpUnprotectFailures + transport.counters.srtcpUnprotectFailures
        stats.malformedPackets += transport.counters.malformedPackets
        stats.rtcpPacketsSent = transport.counters.rtcpPacketsSent
        stats.freezeCount = state.freezes.freezeCount
        stats.totalFreezesDuration = state.freezes.totalFreezesDuration.inSeconds
        stats.longestFreeze = state.freezes.longestFreeze.inSeconds
        if let nack = state.nack { stats.packetsGivenUp = nack.statistics.givenUp }
        if let jitter = state.jitter { stats.packetsGivenUp = max(stats.packetsGivenUp, jitter.lostCount) }
        return stats
    }

    func requestKeyframe() {
        state.needKeyframe = true
        sendFeedback(pli: true)
    }

    /// Once per report interval: limits, Receiver Report, repeated PLI.
    private func tick() {
        guard !state.finished else { return }
        let now = clock.monotonic()
        if let first = state.firstPacket {
            if let duration = configuration.duration, now - first >= duration { return finish() }
            if let idle = configuration.idleTimeout, now - state.lastPacket >= idle { return finish() }
        }
        updateRepairWait()
        guard transport.peer != nil else { return }
        sendFeedback(pli: state.needKeyframe && pliIntervalElapsed(now))
    }

    private func pliIntervalElapsed(_ now: MonotonicTime) -> Bool {
        guard let last = state.lastPLI else { return true }
        return now - last >= configuration.reportInterval * 0.9
    }

    private func receivedRTP(_ bytes: UnsafeRawBufferPointer) {
        guard !state.finished else { return }
        var packet = [UInt8](bytes)
        guard var view = try? RTPPacketView(parsing: packet) else {
            state.stats.malformedPackets += 1
            return
        }
        if let id = configuration.transportWideCCExtensionID {
            recordTransportSequence(bytes, id: id, ssrc: view.header.ssrc)
        }
        var isRetransmission = false
        if let rtxPT = configuration.rtxPayloadType, view.header.payloadType.rawValue == rtxPT {
            // RFC 4588: the original sequence number first in the payload, the media SSRC and payload type restored.
            guard let media = state.senderSSRC, let mediaPT = state.mediaPayloadType,
                  let original = try? RTXPacket.restore(from: packet, mediaSSRC: media, payloadType: mediaPT),
                  let restored = try? RTPPacketView(parsing: original)
            else {
                state.stats.malformedPackets += 1
                return
            }
            packet = original
            view = restored
            isRetransmission = true
        }
        if state.senderSSRC == nil {
            state.senderSSRC = view.header.ssrc
            state.mediaPayloadType = view.header.payloadType
            state.stats.ssrc = view.header.ssrc.rawValue
            state.reception = ReceptionStatistics(ssrc: view.header.ssrc)
        }
        guard view.header.ssrc == state.senderSSRC else { return }
        let now = clock.monotonic()
        if state.firstPacket == nil { state.firstPacket = now }
        state.lastPacket = now
        if !isRetransmission {
            // The media stream's own statistics (RFC 3550 A.3): a packet repaired over RTX counts for the RTX stream,
            // not here, so the sender's congestion control sees the path's loss, not what is left after repair (as
            // libwebrtc reports it).
            state.reception?.record(
                sequenceNumber: view.header.sequenceNumber, timestamp: view.header.timestamp,
                arrival: RTPClock.ticks(now - .zero))
        }
        state.stats.packetsReceived += 1
        state.stats.bytesReceived += view.payloadRange.count
        guard state.jitter != nil else {
            for event in state.depacketizer.push(packet) {
                handle(event)
                if state.finished { return }
            }
            return
        }
        let sequenceNumber = view.header.sequenceNumber
        let wasMissing = state.nack?.isMissing(sequenceNumber) ?? false
        if wasMissing, let entry = state.nackSentAt.removeValue(forKey: sequenceNumber) {
            if let asked = entry {
                measuredRoundTrip(now - asked)
            } else {
                ambiguousRoundTrip()
            }
        }
        state.nack?.received(sequenceNumber, now: now, isRetransmission: isRetransmission)
        if isRetransmission || wasMissing { state.stats.retransmittedPacketsReceived += 1 }
        _ = state.jitter!.insert(packet, sequenceNumber: sequenceNumber, now: now)
        if let due = state.nack?.nextDeadline, due <= now {
            repair()  // a new gap: NACK now, not at the next tick
        } else {
            drainJitterBuffer(now: now)
            scheduleRepair(now: now)
        }
    }

    /// Sets the one-shot repair timer to the earliest NACK repeat or jitter-buffer deadline, when that comes before
    /// the next tick and before a timer already set. At most one timer is pending; it allocates only when a gap's
    /// deadline moves earlier, not per packet.
    private func scheduleRepair(now: MonotonicTime) {
        guard !state.finished, state.nack != nil else { return }
        var deadline = state.nack!.nextDeadline
        if let wait = state.jitter?.nextDeadline { deadline = deadline.map { min($0, wait) } ?? wait }
        guard let deadline else { return }
        if state.repairTimer != nil, let pending = state.repairTimerDeadline, pending <= deadline { return }
        let delay = max(.zero, deadline - now)
        // The periodic tick covers anything due within about a millisecond of it.
        guard delay < Duration.nanoseconds(Self.repairTick.nanoseconds) - .milliseconds(1) || deadline <= now else {
            return
        }
        state.repairTimer?.cancel()
        state.repairTimerDeadline = deadline
        let weakSelf = NIOLoopBound(WeakReference(self), eventLoop: transport.eventLoop)
        state.repairTimer = transport.eventLoop.scheduleTask(in: .nanoseconds(delay.saturatingNanoseconds)) {
            guard let core = weakSelf.value.object else { return }
            core.state.repairTimer = nil
            core.state.repairTimerDeadline = nil
            core.repair()
        }
    }

    /// Hands what the jitter buffer releases (in order) to the depacketizer; a gap it gives up on becomes a loss.
    private func drainJitterBuffer(now: MonotonicTime) {
        while !state.finished, let output = state.jitter?.pop(now: now) {
            switch output {
            case .packet(_, let bytes):
                for event in state.depacketizer.push(bytes) {
                    handle(event)
                    if state.finished { return }
                }
            case .lost(let first, let count):
                // Given up: stop asking; the depacketizer sees the gap and drops the frame (then a PLI).
                state.nack?.removeMissing(before: first + count)
            }
        }
    }

    /// Records the arrival of a packet carrying the transport-wide sequence number (media and RTX alike: the number
    /// counts every packet of the transport).
    private func recordTransportSequence(_ bytes: UnsafeRawBufferPointer, id: UInt8, ssrc media: SSRC) {
        guard let number = try? TransportSequenceNumber.read(from: bytes, id: id) else { return }
        if state.transportFeedback == nil {
            state.transportFeedback = TransportFeedbackGenerator(
                senderSSRC: ssrc, mediaSSRC: state.senderSSRC ?? media, interval: configuration.transportFeedbackInterval)
        }
        state.transportFeedback!.received(number, now: clock.monotonic())
    }

    /// Every feedback interval: the arrivals since the last feedback, one RTCP datagram per message (an empty RR
    /// first, as a compound packet needs, RFC 3550 section 6.1).
    private func sendTransportFeedback() {
        guard !state.finished, transport.peer != nil, state.transportFeedback != nil else { return }
        var messages = state.transportFeedbackMessages
        state.transportFeedbackMessages = []
        state.transportFeedback!.poll(now: clock.monotonic(), into: &messages)
        for message in messages {
            let report = RTCPPacket.receiverReport(ReceiverReport(ssrc: ssrc, reportBlocks: []))
            if (try? transport.sendRTCP([report, .transportFeedback(message)])) != nil {
                state.stats.transportFeedbackSent += 1
            }
        }
        state.transportFeedbackMessages = messages
    }

    /// Sequence numbers whose NACK time is remembered at most.
    static let maximumTrackedNACKs = 2048

    /// One NACK -> retransmission sample: the NACK repeats are spaced by the smoothed figure (RFC 6298, gain 1/8),
    /// not by a 100 ms guess.
    private func measuredRoundTrip(_ sample: Duration) {
        guard sample > .zero, sample < .seconds(5) else { return }
        let smoothed = state.roundTripTime.map { $0 * 0.875 + sample * 0.125 } ?? sample
        state.roundTripTime = smoothed
        state.nack?.roundTripTime = smoothed
        state.stats.roundTripTime = smoothed.inSeconds
        updateRepairWait()
    }

    /// The answer to a NACK that was repeated: no sample (which request did it answer?), and, until a first sample
    /// exists, the repeat interval doubles (Karn's algorithm, RFC 6298 section 5.5). Without the back-off a path
    /// whose RTT exceeds the assumed 100 ms never yields a sample: every NACK is repeated before its answer can come.
    private func ambiguousRoundTrip() {
        guard state.roundTripTime == nil, state.nack != nil else { return }
        let current = state.nack!.roundTripTime ?? NACKGenerator.defaultRoundTripTime
        state.nack!.roundTripTime = min(current * 2, Self.maximumNACKBackoff)
    }

    /// The longest NACK repeat interval the back-off reaches.
    static let maximumNACKBackoff = Duration.seconds(1)

    /// The jitter buffer waits for a missing packet as long as retransmission can still repair it (`RepairWait`):
    /// after each RTT sample and each report interval (the jitter moves).
    private func updateRepairWait() {
        guard state.jitter != nil else { return }
        let jitterTicks = Int64(state.reception?.jitter ?? 0)
        let jitter = Duration.nanoseconds(min(jitterTicks, 90_000 * 60) * 1_000_000_000 / 90_000)
        state.nack?.jitter = jitter
        let wait = state.repairWait.wait(
            roundTripTime: state.roundTripTime, jitter: jitter, resendMargin: state.nack?.repeatMargin ?? .zero)
        state.jitter!.maximumWait = wait
        state.stats.jitterBufferWait = wait.inSeconds
    }

    /// Every repair tick: NACKs that are due, gaps whose wait is over.
    private func repair() {
        guard !state.finished, transport.peer != nil, let media = state.senderSSRC else { return }
        let now = clock.monotonic()
        // The list is moved out (not copied) so that the generator and the list are not both borrowed from `state`.
        var list = state.nackList
        state.nackList = []
        list.removeAll(keepingCapacity: true)
        let giveUp = state.nack?.poll(now: now, into: &list) ?? false
        if !list.isEmpty {
            let nack = GenericNACK(senderSSRC: ssrc, mediaSSRC: media, lost: list)
            let report = RTCPPacket.receiverReport(ReceiverReport(ssrc: ssrc, reportBlocks: []))
            var sent = false
            for _ in 0..<min(max(configuration.nackCopies, 1), 3) {
                // Each copy is its own SRTCP packet (its own index), so that the loss of one does not take the others.
                if (try? transport.sendRTCP([report, .nack(nack)])) != nil { sent = true }
            }
            if sent {
                state.stats.nackCount += 1
                state.stats.packetsNACKed += list.count
                if state.nackSentAt.count > Self.maximumTrackedNACKs { state.nackSentAt.removeAll(keepingCapacity: true) }
                for sequenceNumber in list {
                    // A repeat makes the answer ambiguous (which request did it answer?): never a sample (Karn); the
                    // entry stays, marked, until the packet arrives or is given up.
                    if state.nackSentAt.index(forKey: sequenceNumber) == nil {
                        state.nackSentAt[sequenceNumber] = now
                    } else {
                        state.nackSentAt[sequenceNumber] = .some(nil)
                    }
                }
            }
        }
        state.nackList = list
        if giveUp { askForKeyframe() }
        drainJitterBuffer(now: now)
        scheduleRepair(now: now)
    }

    private func handle(_ event: H264DepacketizerEvent) {
        switch event {
        case .frame(let received):
            state.stats.framesReceived += 1
            configuration.onAccessUnit?(received)
            decode(received)
        case .frameDropped:
            state.stats.framesDropped += 1
            askForKeyframe()
        case .packetsLost(_, let count):
            state.stats.packetsLost += count
            askForKeyframe()
        case .malformedPacket:
            state.stats.malformedPackets += 1
        case .latePacket:
            break
        case .resynchronized:
            // The sender restarted (new SSRC or sequence numbers): wait for its next keyframe.
            state.decodedKeyframe = false
            askForKeyframe()
        }
    }

    private func decode(_ received: H264ReceivedFrame) {
        let isKeyframe = received.frame.isKeyframe
        if !isKeyframe && !state.decodedKeyframe {
            // Joined mid-stream: nothing can be decoded before an IDR.
            state.stats.framesDropped += 1
            askForKeyframe()
            return
        }
        let hasSlice = received.frame.nalUnits.contains { $0.type.isSlice }
        if hasSlice { state.awaitingPicture.append(received) }
        let produced: Bool
        do {
            produced = try state.decoder.decode(received.frame.bytes, into: &state.picture)
        } catch {
            if hasSlice { state.awaitingPicture.removeLast() }
            state.stats.decodeErrors += 1
            state.stats.framesDropped += 1
            askForKeyframe()
            return
        }
        if isKeyframe {
            state.decodedKeyframe = true
            state.needKeyframe = false
            state.stats.keyFramesDecoded += 1
            state.stats.keyframeTimes.append((clock.monotonic() - state.start).inSeconds)
        }
        if produced { deliverPicture() }
    }

    /// Hands the decoder's latest picture out, paired with the oldest access unit still waiting for one.
    private func deliverPicture() {
        guard !state.awaitingPicture.isEmpty else { return }
        let source = state.awaitingPicture.removeFirst()
        state.stats.framesDecoded += 1
        let size = (width: state.picture.width, height: state.picture.height)
        if let last = state.lastPictureSize, last != size { state.stats.resolutionChanges += 1 }
        state.lastPictureSize = size
        _ = state.freezes.frameRendered(at: clock.monotonic())
        configuration.onFrameDecoded?(state.picture, source)
        if let limit = configuration.frameLimit, state.stats.framesDecoded >= limit { finish() }
    }

    private func askForKeyframe() {
        state.needKeyframe = true
        if pliIntervalElapsed(clock.monotonic()) { sendFeedback(pli: true) }
    }

    private func receivedRTCP(_ packets: [RTCPPacket]) {
        for packet in packets {
            switch packet {
            case .senderReport(let sr) where state.senderSSRC == nil || sr.ssrc == state.senderSSRC:
                state.stats.senderReportsReceived += 1
                state.lastSenderReportMiddle = sr.ntpTimestamp.middle32
                state.lastSenderReportArrival = clock.monotonic()
            case .goodbye(let bye) where bye.sources.contains { $0 == state.senderSSRC }:
                state.stats.byeReceived = true
                if configuration.stopOnBye { finish() }
            default:
                break
            }
        }
    }

    /// The report block about the sender's stream, with LSR/DLSR from its latest SR (RFC 3550 section 6.4.1).
    private func makeReportBlock() -> ReportBlock? {
        var dlsr: UInt32 = 0
        if state.lastSenderReportMiddle != 0 {
            // Delay since the last SR, in 1/65536 s.
            let nanoseconds = (clock.monotonic() - state.lastSenderReportArrival).saturatingNanoseconds
            dlsr = UInt32(clamping: max(0, nanoseconds / 1_000_000) * 65_536 / 1_000)
        }
        let lsr = state.lastSenderReportMiddle
        return state.reception?.makeReportBlock(lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }

    /// Sends RR + SDES, with a PLI when asked (RFC 4585 section 6.3.1).
    private func sendFeedback(pli: Bool) {
        guard transport.peer != nil, !state.finished else { return }
        var packets: [RTCPPacket] = [
            .receiverReport(ReceiverReport(ssrc: ssrc, reportBlocks: makeReportBlock().map { [$0] } ?? [])),
            .sourceDescription(SourceDescription(chunks: [
                SourceDescriptionChunk(ssrc: ssrc, items: [.cname(configuration.cname)]),
            ])),
        ]
        if pli, let senderSSRC = state.senderSSRC {
            packets.append(.pli(PictureLossIndication(senderSSRC: ssrc, mediaSSRC: senderSSRC)))
            state.lastPLI = clock.monotonic()
            state.stats.pliCount += 1
        }
        try? transport.sendRTCP(packets)
    }
}
