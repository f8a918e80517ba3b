import Codec
import H264
import NIOCore
import RTP
import Transport

/// The send path and the feedback path, wired in one place. Confined to the I/O loop.
///
/// ```
/// out: EncoderStage --(EncoderOutput)--> RTPClock -> H264Packetizer -> UDPTransport (SRTP protect, sendmmsg)
/// in:  UDPTransport (SRTCP unprotect, RTCP parse) -> FeedbackRouter -> PLI/FIR -> KeyframeRequestThrottle (encoder)
///                                                                    -> REMB/TMMBR -> BitrateController -> encoder
///                                                                    -> reports -> LinkQuality (RTT, loss)
/// timer: statistics, Sender Report + SDES
/// ```
/// Each stage owns its state: the packetizer the sequence numbers, the RTP clock the timestamps, the router the FIR
/// history, the controller the wanted bitrate, the encoder stage (on its own thread) the applied one and the
/// keyframe throttle. This type only moves values between them and counts.
final class SenderCore {
    let configuration: SenderConfiguration
    let ssrc: SSRC
    let eventLoop: EventLoop
    let transport: UDPTransport
    private let clock: SenderClock
    /// The encoder this core drives: its own (`H264Sender`) or one shared with other cores (`FanOutEncoder`, WHEP).
    private let encoder: any EncoderControl
    private let mailbox: FrameMailbox
    private let events: AsyncStream<SenderEvent>.Continuation
    private let reports: AsyncStream<SenderStats>.Continuation

    private var packetizer: H264Packetizer
    private var packetBuffer: PacketBuffer
    private let timestampOffset: UInt32
    private var rtpClock: RTPClock?
    private var router: FeedbackRouter
    private(set) var bitrate: BitrateController
    /// Sent packets kept for retransmission (nil with NACK off).
    private var history: PacketHistory?
    private var responder: NACKResponder?
    private var retransmitList: [SequenceNumber] = []
    /// The retransmission stream: its SSRC, payload type and next sequence number, and a buffer to build into.
    private var rtx: (ssrc: SSRC, payloadType: PayloadType, next: SequenceNumber)?
    private var rtxBuffer: [UInt8] = []
    private var pacer: Pacer?
    private var pacerTimer: Scheduled<Void>?
    private var pacerDeadline: MonotonicTime?
    /// A keyframe request waiting for the IDR's first packet to leave (its arrival time), with pacing.
    private var keyframeRequestPending: MonotonicTime?
    /// The congestion controller (loss-based, and delay-based with transport-wide feedback); nil when off.
    private var bandwidth: SendSideBandwidthEstimator?
    /// The next transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2), one
    /// counter over media and retransmissions, written as each packet goes on the wire; nil when the extension is off.
    private var transportSequence: SequenceNumber?
    /// The transport-wide sequence number's extension ID.
    private let transportExtensionID: UInt8
    /// Bytes SRTP adds to each RTP packet (part of the size the delay-based estimator counts).
    private let srtpTrailer: Int
    /// When to probe for more capacity (with transport-wide feedback and the pacer).
    private var probes = ProbeController()
    /// The probe cluster whose padding is in the pacer's queue.
    private var probeCluster = 0
    /// The overuse count at the last estimate (a rise right after a probe is the probe's failure).
    private var lastOveruseEvents = 0
    /// When the congestion estimate last moved the encoder.
    private var lastEstimateApplied: MonotonicTime?
    /// The retransmissions' share of the last second, which the encoder's target gives up.
    private var retransmissionShare = RetransmissionShare()
    /// The highest bitrate the application has asked for: the congestion estimate's ceiling.
    private var estimateCeiling: Int
    private var link = LinkQuality()
    private var stats = SenderStats()
    private var startTime: MonotonicTime
    private var lastReport: (time: MonotonicTime, frames: Int, bytes: Int)
    private var reportTask: RepeatedTask?
    private(set) var finished = false
    private(set) var failure: SenderError?

    /// The longest time a packet waits in the pacer's queue.
    static let pacerQueueTimeLimit = Duration.milliseconds(500)

    init(
        configuration: SenderConfiguration, ssrc: SSRC, packetizer: H264Packetizer, timestampOffset: UInt32,
        transport: UDPTransport, clock: SenderClock, encoder: any EncoderControl,
        mailbox: FrameMailbox, events: AsyncStream<SenderEvent>.Continuation,
        reports: AsyncStream<SenderStats>.Continuation
    ) throws {
        self.configuration = configuration
        self.ssrc = ssrc
        self.eventLoop = transport.eventLoop
        self.transport = transport
        self.clock = clock
        self.encoder = encoder
        self.mailbox = mailbox
        self.events = events
        self.reports = reports
        self.packetizer = packetizer
        self.packetBuffer = packetizer.makePacketBuffer()
        self.timestampOffset = timestampOffset
        self.router = FeedbackRouter(ssrc: ssrc)
        let enc = configuration.encoder
        bitrate = try BitrateController(
            operatorBitrate: enc.targetBitrate, minimumBitrate: configuration.minimumBitrate,
            maximumBitrate: Int(Double(enc.level.maxBitrate(for: enc.profile)) / EncoderConfiguration.defaultMaxBitrateRatio))
        // The history also holds the packets waiting in the pacer, so it exists whenever either is on.
        if configuration.nack || configuration.pacingFactor != nil {
            history = try PacketHistory()
        }
        if configuration.nack {
            responder = NACKResponder(mediaSSRC: ssrc, targetBitrate: enc.targetBitrate)
            retransmitList.reserveCapacity(512)
            if let rtxConfiguration = configuration.rtx {
                var rng = SystemRandomNumberGenerator()
                let rtxSSRC = rtxConfiguration.ssrc ?? SSRC(UInt32.random(in: 1 ... .max, using: &rng))
                rtx = (rtxSSRC, rtxConfiguration.payloadType, SequenceNumber.randomInitial(using: &rng))
                rtxBuffer = [UInt8](repeating: 0, count: PacketHistory.defaultSlotSize + RTXPacket.originalSequenceNumberSize)
            }
        }
        if let factor = configuration.pacingFactor {
            // Every packet leaves within half a second of being queued (the pacer speeds up to drain a longer queue), so
            // it is still in the history (kept at least 1 s) when its turn comes.
            pacer = try Pacer(targetBitrate: enc.targetBitrate, pacingFactor: factor, queueTimeLimit: Self.pacerQueueTimeLimit)
        }
        if configuration.congestionControl {
            bandwidth = try SendSideBandwidthEstimator(
                initialBitrate: enc.targetBitrate, minimumBitrate: configuration.minimumBitrate,
                maximumBitrate: bitrate.maximumBitrate,
                usesTransportFeedback: configuration.transportWideCCExtensionID != nil)
        }
        transportExtensionID = configuration.transportWideCCExtensionID ?? 0
        if configuration.transportWideCCExtensionID != nil { transportSequence = SequenceNumber(1) }
        srtpTrailer = configuration.security?.suite.rtpTrailerLength ?? 0
        estimateCeiling = enc.targetBitrate
        startTime = clock.monotonic()
        lastReport = (startTime, 0, 0)
        stats.ssrc = ssrc.rawValue
        stats.frameWidth = enc.width
        stats.frameHeight = enc.height
        stats.targetBitrate = enc.targetBitrate
        stats.mediaTargetBitrate = enc.targetBitrate
        stats.maxBitrate = enc.effectiveMaxBitrate
        stats.operatorBitrate = bitrate.operatorBitrate
    }

    /// Starts the report timer and listens to the transport. On the loop.
    func start() {
        transport.onRTCP = { [weak self] packets in self?.received(packets) }
        let interval = TimeAmount.nanoseconds(configuration.reportInterval.saturatingNanoseconds)
        let weakSelf = NIOLoopBound(WeakReference(self), eventLoop: eventLoop)
        reportTask = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            weakSelf.value.object?.report()
        }
    }

    // MARK: Out: encoded frames to the wire

    /// One output of the encoder stage.
    func handle(_ output: EncoderOutput) {
        guard !finished else { return }
        switch output {
        case .frame(let frame, let statistics, let captureTime, let requestedAt):
            stats.framesEncoded += 1
            stats.totalEncodeTime += statistics.encodeDuration.inSeconds
            if let qp = statistics.averageQP { stats.qpSum += qp }
            if frame.isKeyframe { stats.keyFramesEncoded += 1 }
            do {
                try send(frame, captureTime: captureTime)
            } catch {
                stats.frameFailures += 1
                events.yield(.frameDropped(.failure("\(error)")))
                let now = clock.monotonic()
                encoder.requestKeyframe(at: now)
                return
            }
            if frame.isKeyframe {
                if pacer != nil {
                    // Measured when the pacer lets the IDR's first packet go.
                    keyframeRequestPending = requestedAt
                    sendPaced()
                } else {
                    // From the request's arrival to the IDR's packets handed to the socket (one sendmmsg, first first).
                    keyframeSent(requestedAt: requestedAt)
                }
            } else if pacer != nil {
                sendPaced()
            }
        case .resolutionChanged(let change):
            stats.frameWidth = change.to.width
            stats.frameHeight = change.to.height
            if change.reason != .initial { stats.resolutionChanges += 1 }
            stats.qualityLimitationReason = change.to.width < configuration.encoder.width ? "bandwidth" : "none"
            events.yield(.resolutionChanged(width: change.to.width, height: change.to.height, reason: "\(change.reason)"))
        case .skipped(let reason):
            stats.framesSkipped += 1
            events.yield(.frameDropped(.rateControl("\(reason)")))
        case .failed(let message):
            stats.frameFailures += 1
            events.yield(.frameDropped(.failure(message)))
            events.yield(.keyframeRequested(.frameFailure))
        case .fatal(let error):
            stats.frameFailures += 1
            finish(error: error)
        }
    }

    /// Records that an IDR's first packet left.
    private func keyframeSent(requestedAt: MonotonicTime?) {
        let latency = requestedAt.map { clock.monotonic() - $0 }
        if let latency { stats.keyframeRequestLatency = latency.inSeconds }
        events.yield(.keyframeSent(latency: latency))
    }

    /// Packetizes one access unit; its packets go to the history, then to the pacer's queue or straight to the
    /// transport in one batch.
    private func send(_ frame: EncodedFrame, captureTime: MonotonicTime) throws {
        let rtpClock = self.rtpClock ?? RTPClock(offset: timestampOffset, origin: captureTime)
        self.rtpClock = rtpClock
        let timestamp = rtpClock.timestamp(at: captureTime)
        let headerSize = packetizer.limit.rtpHeaderSize
        var packets = 0
        var payloadBytes = 0
        let transport = self.transport
        configuration.frameObserver?(frame, timestamp)
        let now = clock.monotonic()
        let paced = pacer != nil
        var first = true
        do {
            try packetizer.packetize(frame, timestamp: timestamp, into: &packetBuffer) { packet in
                // The packet's own sequence number (bytes 2-3, RFC 3550 section 5.1).
                let sequenceNumber = packet.withUnsafeBytes { SequenceNumber(UInt16($0[2]) << 8 | UInt16($0[3])) }
                if !paced {
                    // Unpaced, the packet goes on the wire now: its transport-wide number is written now.
                    packet.withUnsafeMutableBytes { raw, length in
                        stampTransportSequence(UnsafeMutableRawBufferPointer(rebasing: raw[0..<length]), now: now)
                    }
                }
                if history != nil {
                    try packet.withUnsafeBytes { try history!.store($0, now: now) }
                }
                if paced {
                    let queued = PacedPacket(
                        sequenceNumber: sequenceNumber, size: packet.count, kind: .media,
                        isKeyframeStart: first && frame.isKeyframe)
                    if pacer!.enqueue(queued, now: now) != nil { stats.pacerPacketsDropped += 1 }
                } else {
                    try packet.withUnsafeBytes { try transport.queueRTP($0) }
                }
                first = false
                packets += 1
                payloadBytes += packet.count - headerSize
            }
        } catch {
            transport.discardQueued()  // nothing of a failed frame leaves
            throw error
        }
        if !paced { transport.flush() }
        stats.framesSent += 1
        stats.packetsSent += packets
        stats.bytesSent += payloadBytes
        stats.headerBytesSent += packets * headerSize
        // A first Sender Report right away instead of one report interval later: the receiver's reports (and the
        // ones sent with each NACK) then carry LSR/DLSR from the start, so the RTT, and with it the resend guard, is
        // known within the first RTT. Before it the guard assumes 100 ms and refused the repeats of a receiver whose
        // own RTT was already measured (a 230-250 ms freeze in the first second at 5 % loss).
        if stats.framesSent == 1 { sendRTCP([]) }
    }

    // MARK: In: the peer's feedback

    private func received(_ packets: [RTCPPacket]) {
        let arrival = clock.wall()
        for feedback in router.route(packets) {
            switch feedback {
            case .pictureLoss:
                stats.pliCount += 1
                requestKeyframe(.pictureLoss)
            case .fullIntraRequest:
                stats.firCount += 1
                requestKeyframe(.fullIntraRequest)
            case .estimatedMaximumBitrate(let bps):
                bitrate.receivedREMB(bps)
                bandwidth?.setREMB(bps)
                applyBitrate(reason: .estimatedMaximumBitrate, acknowledging: nil)
            case .temporaryMaximumBitrate(let entry):
                bitrate.receivedTMMBR(Int(clamping: entry.bitrate))
                bandwidth?.setTMMBR(Int(clamping: entry.bitrate))
                applyBitrate(reason: .temporaryMaximumBitrate, acknowledging: entry)
            case .negativeAcknowledgement(let nack):
                stats.nackCount += 1
                answer(nack)
            case .receptionReport(let block):
                link.update(with: block, arrival: arrival)
                if let rtt = link.roundTripTime {
                    history?.roundTripTime = rtt
                    responder?.updateRoundTripTime(rtt)
                }
                if bandwidth != nil {
                    if let rtt = link.roundTripTime { bandwidth!.setRoundTripTime(rtt) }
                    bandwidth!.update(with: block, now: clock.monotonic())
                    applyEstimate(force: true)
                }
            case .transportFeedback(let feedback):
                stats.transportFeedbackReceived += 1
                guard bandwidth?.delayBased != nil else { continue }
                bandwidth!.update(with: feedback, now: clock.monotonic())
                applyEstimate(force: false)
                probeIfDue()
            }
        }
    }

    /// The least relative change of the congestion estimate that moves the encoder between reports (feedback comes
    /// every 50-100 ms; each small step of the delay-based estimate need not be a rate change).
    static let estimateChangeThreshold = 0.03
    /// The longest time a smaller change of the estimate waits before it reaches the encoder.
    static let estimateApplyInterval = Duration.milliseconds(500)

    /// Hands the combined estimate to the bitrate controller and moves the encoder when it changed: at once for a
    /// receiver report or a change of 3 % or more, else at most every 500 ms. The loss-based and the combined
    /// estimates never grow past the highest bitrate the application has asked for (libwebrtc caps them at the
    /// configured maximum): a cut must act at once, not first eat up an estimate that grew during a loss-free
    /// minute. Not the current bitrate: an application lowering it for a while must not drag the path estimate down.
    private func applyEstimate(force: Bool) {
        guard let bandwidth else { return }
        let (estimate, limit) = bandwidth.estimate
        stats.congestionEstimate = estimate
        stats.lossBasedEstimate = bandwidth.lossBased.targetBitrate
        stats.delayBasedEstimate = bandwidth.delayBased?.targetBitrate
        stats.overuseEvents = bandwidth.delayBased?.statistics.overuseEvents ?? 0
        stats.estimateLimitedBy = "\(limit)"
        stats.probes = bandwidth.delayBased?.statistics.probesSent ?? 0
        stats.probesRaisedEstimate = bandwidth.delayBased?.statistics.probesRaisedEstimate ?? 0
        probes.update(estimate: estimate, now: clock.monotonic())
        if stats.overuseEvents > lastOveruseEvents { probes.overuseDetected(now: clock.monotonic()) }
        lastOveruseEvents = stats.overuseEvents
        bitrate.receivedEstimate(estimate)
        applyTargetIfChanged(force: force)
    }

    /// Moves the encoder when the target or the retransmissions' share of it changed: at once when forced or by 3 %
    /// or more, else at most every 500 ms.
    private func applyTargetIfChanged(force: Bool) {
        let now = clock.monotonic()
        retransmissionShare.record(
            media: stats.bytesSent + stats.headerBytesSent, retransmitted: stats.retransmittedBytesSent, now: now)
        let target = bitrate.effectiveTarget
        let media = mediaTarget(for: target)
        let applied = (target: stats.targetBitrate, media: stats.mediaTargetBitrate)
        guard target != applied.target || media != applied.media else { return }
        let change = max(
            abs(Double(target - applied.target)) / Double(max(applied.target, 1)),
            abs(Double(media - applied.media)) / Double(max(applied.media, 1)))
        let due = lastEstimateApplied.map { now - $0 >= Self.estimateApplyInterval } ?? true
        guard force || change >= Self.estimateChangeThreshold || due else { return }
        lastEstimateApplied = now
        applyBitrate(reason: .congestionControl, acknowledging: nil)
    }

    /// What the encoder gets of `target`: less the retransmissions' share of the last second (at most half; see
    /// `RetransmissionShare`), never under the configured minimum unless the target itself is.
    private func mediaTarget(for target: Int) -> Int {
        max(retransmissionShare.mediaBitrate(of: target), min(target, configuration.minimumBitrate))
    }

    /// Sends a probe cluster when the `ProbeController` says one is due: the most recent media packets again (on the
    /// RTX stream when there is one), ahead of new media through the pacer, each recorded with the cluster so that the
    /// feedback measures the rate they got through at.
    private func probeIfDue() {
        guard bandwidth?.delayBased != nil, pacer != nil, history != nil else { return }
        let now = clock.monotonic()
        guard let probe = probes.probe(now: now, estimate: bandwidth!.targetBitrate, ceiling: estimateCeiling) else { return }
        bandwidth!.startProbe(cluster: probe.cluster, bitrate: probe.bitrate)
        probeCluster = probe.cluster
        let newest = packetizer.nextSequenceNumber - 1
        for back in stride(from: ProbeController.clusterPackets - 1, through: 0, by: -1) {
            let sequenceNumber = newest - back
            guard let size = history!.size(of: sequenceNumber, now: now) else { continue }
            if pacer!.enqueue(PacedPacket(sequenceNumber: sequenceNumber, size: size, kind: .probe), now: now) != nil {
                stats.pacerPacketsDropped += 1
            }
        }
        sendPaced()
    }

    /// Writes the next transport-wide sequence number into a packet about to be queued on the transport, and records
    /// its send time and size for the delay-based estimator. Nothing when the extension is off.
    private func stampTransportSequence(_ packet: UnsafeMutableRawBufferPointer, now: MonotonicTime, probeCluster: Int = 0) {
        // Media the transport holds back (a WebRTC transport before its DTLS keys) never leaves: no number for it.
        guard let number = transportSequence, transport.isSecured else { return }
        guard (try? TransportSequenceNumber.write(number, into: packet, id: transportExtensionID)) == true else { return }
        transportSequence = number + 1
        bandwidth?.packetSent(
            transportSequenceNumber: number, size: packet.count + srtpTrailer, now: now, probeCluster: probeCluster)
    }

    /// Records a keyframe request with the encoder stage's throttle.
    func requestKeyframe(_ reason: SenderEvent.KeyframeReason) {
        if reason == .application { stats.keyframeRequests += 1 }
        let now = clock.monotonic()
        encoder.requestKeyframe(at: now)
        events.yield(.keyframeRequested(reason))
    }

    /// Moves the encoder to the controller's effective target; a TMMBR is acknowledged (TMMBN, RFC 5104 section
    /// 4.2.2) only once the encoder has applied it.
    private func applyBitrate(reason: SenderEvent.BitrateReason, acknowledging entry: TemporaryMaximumBitrateEntry?) {
        let target = bitrate.effectiveTarget
        let ceiling = bitrate.effectiveCeiling
        let previous = stats.targetBitrate
        setEncoderRates(target: target, ceiling: ceiling).assumeIsolated().whenComplete { [weak self] result in
            guard let self else { return }
            switch result {
            case .success:
                // Only the retransmissions' share moved: the target is the same, no event.
                if target != previous || reason != .congestionControl {
                    self.events.yield(.bitrateChanged(target: target, reason: reason))
                }
                if let entry {
                    self.sendRTCP([.tmmbn(TemporaryMaximumBitrateMessage(senderSSRC: self.ssrc, entries: [entry]))])
                }
            case .failure(let error):
                self.stats.bitrateChangeFailures += 1
                self.events.yield(.bitrateChangeFailed("\(error)"))
            }
        }
    }

    /// Asks the encoder stage for new rates; the future completes on this loop once applied (stats updated) or
    /// refused (nothing changed).
    func setEncoderRates(target: Int, ceiling: Int) -> EventLoopFuture<Void> {
        let media = mediaTarget(for: target)
        let mediaCeiling = max(media, Int((Double(ceiling) * Double(media) / Double(max(target, 1))).rounded()))
        return encoder.setRates(target: media, ceiling: mediaCeiling).hop(to: eventLoop).assumeIsolated().map {
            [weak self] in
            guard let self else { return }
            self.pacer?.setTargetBitrate(target)
            self.responder?.setTargetBitrate(target)
            self.stats.targetBitrate = target
            self.stats.mediaTargetBitrate = media
            self.stats.maxBitrate = ceiling
            self.stats.operatorBitrate = self.bitrate.operatorBitrate
        }.nonisolated()
    }

    /// The application's bitrate: validated by the controller, applied by the encoder, or nothing changes.
    func setOperatorBitrate(_ bps: Int) -> EventLoopFuture<Int> {
        let previous = bitrate
        do {
            try bitrate.setOperatorBitrate(bps)
        } catch {
            return eventLoop.makeFailedFuture(SenderError.invalidRate("\(error)"))
        }
        estimateCeiling = max(estimateCeiling, bps)
        bandwidth?.setConfiguredBitrate(estimateCeiling)
        let target = bitrate.effectiveTarget
        return setEncoderRates(target: target, ceiling: bitrate.effectiveCeiling).assumeIsolated().map { [weak self] in
            self?.events.yield(.bitrateChanged(target: target, reason: .application))
            return target
        }.flatMapErrorThrowing { [weak self] error in
            self?.bitrate = previous
            throw SenderError.invalidRate("\(error)")
        }.nonisolated()
    }

    // MARK: Retransmissions and pacing

    /// Answers a NACK: the responder picks what to resend (once per RTT, within its budget); the packets go ahead of
    /// new media.
    private func answer(_ nack: GenericNACK) {
        guard responder != nil, history != nil else { return }
        retransmitList.removeAll(keepingCapacity: true)
        let now = clock.monotonic()
        responder!.respond(to: nack, now: now, history: &history!, retransmit: &retransmitList)
        guard !retransmitList.isEmpty else { return }
        if pacer != nil {
            for sequenceNumber in retransmitList {
                let size = history!.size(of: sequenceNumber, now: now) ?? 0
                if pacer!.enqueue(PacedPacket(sequenceNumber: sequenceNumber, size: size, kind: .retransmission), now: now) != nil {
                    stats.pacerPacketsDropped += 1
                }
            }
            sendPaced()
        } else {
            for sequenceNumber in retransmitList { resend(sequenceNumber, now: now) }
            transport.flush()
        }
    }

    /// Queues one retransmission: on the RTX stream (RFC 4588, a new sequence number, the original one first in the
    /// payload) or as the original packet again.
    private func resend(_ sequenceNumber: SequenceNumber, now: MonotonicTime, probeCluster: Int = 0) {
        // Through `self.history`, never a local copy: writing the transport-wide number into a copy would copy the
        // whole store.
        guard history != nil else { return }
        let transport = self.transport
        do {
            if let rtx {
                let length: Int? = try history!.withPacket(sequenceNumber, now: now) { original in
                    try rtxBuffer.withUnsafeMutableBytes { buffer in
                        try RTXPacket.build(
                            from: original, ssrc: rtx.ssrc, payloadType: rtx.payloadType, sequenceNumber: rtx.next,
                            into: buffer)
                    }
                }
                guard let length else { return }
                self.rtx?.next += 1
                try rtxBuffer.withUnsafeMutableBytes { raw in
                    let packet = UnsafeMutableRawBufferPointer(rebasing: raw[0..<length])
                    stampTransportSequence(packet, now: now, probeCluster: probeCluster)
                    try transport.queueRTP(UnsafeRawBufferPointer(packet))
                }
            } else {
                try history!.withMutablePacket(sequenceNumber, now: now) { packet in
                    stampTransportSequence(packet, now: now, probeCluster: probeCluster)
                    try transport.queueRTP(UnsafeRawBufferPointer(packet))
                }
            }
            if probeCluster != 0 {
                stats.probePacketsSent += 1
            } else {
                stats.retransmittedPacketsSent += 1
                stats.retransmittedBytesSent += history!.size(of: sequenceNumber, now: now) ?? 0
            }
        } catch {
            stats.sendErrors += 1
        }
    }

    /// Lets the pacer release what its budget allows now, and sets a timer for the rest.
    private func sendPaced() {
        guard pacer != nil, !finished else { return }
        let now = clock.monotonic()
        var sent = 0
        while let packet = pacer!.dequeue(now: now) {
            switch packet.kind {
            case .retransmission:
                resend(packet.sequenceNumber, now: now)
            case .probe:
                resend(packet.sequenceNumber, now: now, probeCluster: probeCluster)
            case .media:
                let transport = self.transport
                do {
                    let found: Void? = try history?.withMutablePacket(packet.sequenceNumber, now: now) { bytes in
                        stampTransportSequence(bytes, now: now)
                        try transport.queueRTP(UnsafeRawBufferPointer(bytes))
                    }
                    if found == nil { stats.pacerPacketsDropped += 1 }  // gone from the history: never silent
                } catch {
                    stats.sendErrors += 1
                }
                if packet.isKeyframeStart {
                    transport.flush()
                    keyframeSent(requestedAt: keyframeRequestPending)
                    keyframeRequestPending = nil
                }
            }
            sent += 1
        }
        if sent > 0 { transport.flush() }
        guard let next = pacer!.nextSendTime(now: now) else { return }
        if let deadline = pacerDeadline, deadline <= next, pacerTimer != nil { return }
        pacerTimer?.cancel()
        pacerDeadline = next
        let wait = max(Duration.zero, next - now)
        let weakSelf = NIOLoopBound(WeakReference(self), eventLoop: eventLoop)
        pacerTimer = eventLoop.scheduleTask(in: .nanoseconds(wait.saturatingNanoseconds)) {
            guard let core = weakSelf.value.object else { return }
            core.pacerTimer = nil
            core.pacerDeadline = nil
            core.sendPaced()
        }
    }

    // MARK: Reports

    /// The statistics now.
    func snapshot() -> SenderStats {
        let now = clock.monotonic()
        var snapshot = stats
        snapshot.timestamp = (now - startTime).inSeconds
        snapshot.rembBitrate = bitrate.rembLimit
        snapshot.tmmbrBitrate = bitrate.tmmbrLimit
        snapshot.roundTripTime = link.roundTripTime?.inSeconds
        snapshot.fractionLost = link.fractionLost
        snapshot.packetsLost = link.packetsLost
        snapshot.framesDropped = mailbox.droppedFrames
        let counters = transport.counters
        snapshot.rtcpPacketsReceived = counters.rtcpPacketsReceived
        snapshot.rtcpPacketsSent = counters.rtcpPacketsSent
        snapshot.rtcpMalformed = counters.malformedPackets
        snapshot.srtcpUnprotectFailures = counters.srtcpUnprotectFailures
        snapshot.packetsFromStrangers = counters.packetsFromStrangers
        snapshot.sendErrors = counters.socketErrors
        snapshot.plainRTCPAccepted = counters.plainRTCPAccepted
        if let responder {
            let r = responder.statistics
            snapshot.nackRequestsIgnored = r.ignoredNotInHistory + r.ignoredTooSoon + r.ignoredOverBudget
            snapshot.nackIgnoredNotInHistory = r.ignoredNotInHistory
            snapshot.nackIgnoredTooSoon = r.ignoredTooSoon
            snapshot.nackIgnoredOverBudget = r.ignoredOverBudget
            snapshot.retransmittedExtraCopies = r.extraCopies
        }
        if let pacer {
            snapshot.pacerQueueDelay = pacer.queueDelay(now: clock.monotonic()).inSeconds
        }
        return snapshot
    }

    /// Once per report interval: rates over the interval, the Sender Report, the stats stream.
    private func report() {
        guard !finished else { return }
        let now = clock.monotonic()
        let elapsed = (now - lastReport.time).inSeconds
        if elapsed > 0 {
            stats.framesPerSecond = Double(stats.framesEncoded - lastReport.frames) / elapsed
            stats.actualBitrate = Int(Double((stats.bytesSent - lastReport.bytes) * 8) / elapsed)
        }
        lastReport = (now, stats.framesEncoded, stats.bytesSent)
        // The retransmissions' share reaches the encoder here too: without congestion control (or a peer's reports)
        // nothing else looks at the target between changes.
        if responder != nil { applyTargetIfChanged(force: false) }
        sendRTCP([])
        reports.yield(snapshot())
    }

    /// The Sender Report for now: NTP and RTP timestamps of the same instant (RFC 3550 section 6.4.1).
    private func makeSenderReport() -> RTCPPacket? {
        guard let rtpClock else { return nil }  // nothing sent yet: no RTP time to map
        return .senderReport(SenderReport(
            ssrc: ssrc, ntpTimestamp: clock.wall(), rtpTimestamp: rtpClock.timestamp(at: clock.monotonic()),
            packetCount: UInt32(truncatingIfNeeded: stats.packetsSent),
            octetCount: UInt32(truncatingIfNeeded: stats.bytesSent)))
    }

    /// Sends a compound packet: SR (or an empty RR before the first frame) and SDES first, as RFC 3550 section 6.1
    /// requires, then `packets`.
    private func sendRTCP(_ packets: [RTCPPacket]) {
        let report = makeSenderReport() ?? .receiverReport(ReceiverReport(ssrc: ssrc, reportBlocks: []))
        let compound = [report, .sourceDescription(SourceDescription(chunks: [
            SourceDescriptionChunk(ssrc: ssrc, items: [.cname(configuration.cname)]),
        ]))] + packets
        do {
            try transport.sendRTCP(compound)
        } catch {
            stats.sendErrors += 1
        }
    }

    // MARK: Lifecycle

    /// Ends the stream: BYE, sockets closed, streams finished. Idempotent.
    /// - Parameters:
    ///   - error: why, when the stream failed.
    ///   - closingTransport: false leaves the transport open for its owner (a WHEP viewer's DTLS close_notify
    ///     follows the BYE, then the owner closes it).
    /// - Returns: the final statistics.
    @discardableResult
    func finish(error: SenderError?, closingTransport: Bool = true) -> SenderStats {
        if finished { return snapshot() }
        finished = true
        failure = error
        mailbox.close()
        reportTask?.cancel()
        reportTask = nil
        pacerTimer?.cancel()
        pacerTimer = nil
        // What the pacer still holds leaves now, ahead of the BYE (the pacer's clock is run forward to let it go).
        if pacer != nil {
            let now = clock.monotonic()
            var time = now
            let transport = self.transport
            var rounds = 0
            while pacer!.queuedPackets > 0, rounds < 100_000 {
                rounds += 1
                guard let packet = pacer!.dequeue(now: time) else {
                    time = pacer!.nextSendTime(now: time) ?? time
                    continue
                }
                guard packet.kind == .media else { continue }
                _ = try? history?.withMutablePacket(packet.sequenceNumber, now: now) { bytes in
                    stampTransportSequence(bytes, now: now)
                    try transport.queueRTP(UnsafeRawBufferPointer(bytes))
                }
            }
            transport.flush()
        }
        sendRTCP([.goodbye(Goodbye(sources: [ssrc], reason: error == nil ? "stream ended" : "stream failed"))])
        let final = snapshot()
        if closingTransport { transport.close() }
        transport.onRTCP = nil
        reports.yield(final)
        reports.finish()
        events.finish()
        return final
    }
}
