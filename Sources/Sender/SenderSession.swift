import Codec
import CongestionControl
import H264
import MediaTime
import RTP

/// The send path and feedback path of one transport's outgoing H.264 streams, sans-IO: encoded frames, RTCP and time
/// go in; RTP and RTCP to send, commands for the encoder, events and the next deadline come out. It never reads a
/// clock, owns no socket, timer or thread, so that one driver (`SenderSessionDriver`) runs it over a `UDPTransport`
/// and a simulation runs the very same value over a simulated link on a virtual clock.
///
/// ```
/// in:  handle(encoded:stream:) -> OutgoingStream (RTPClock -> H264Packetizer -> PacketHistory)
///                                -> Pacer (or straight) -> pollTransmit()
///      handle(rtcp:)    -> FeedbackRouter (by SSRC, to a stream) -> PLI/FIR -> pollEncoderCommand() .keyframe
///                                         -> REMB/TMMBR, reports, transport-cc -> BitrateController,
///                                            SendSideBandwidthEstimator -> pollEncoderCommand() .setRates
///                                         -> NACK -> the stream's NACKResponder -> its RTX (or the original again)
///                                            -> pollTransmit()
///      handleTimeout()  -> the pacer's next release; every report interval a Sender Report and `.report`
///      handle(ratesApplied:) -> the rates the encoder applied (the only source of the applied rates)
/// ```
///
/// Each media SSRC's state (packetizer, history, NACK responder, RTX stream, RTP clock, send counters) is an
/// `OutgoingStream`; the session holds them in order (`streams`, one unless `additionalStreams` are given) and keeps
/// what the transport shares: the pacer, the congestion and bitrate controllers, the transport-wide sequence numbers,
/// the report timer, the routing of feedback and the encoder's statistics.
///
/// Drive it like `PeerTransport`: after every input, take every output.
/// ```swift
/// session.handle(rtcp: packets, now: now)
/// while let command = session.pollEncoderCommand() { ... }
/// while session.pollTransmit(rtp: { size, write in ... }, rtcp: { compound in ... }) {}
/// while let event = session.pollEvent() { ... }
/// deadline = session.pollTimeout()
/// ```
/// Not `Sendable`: one owner drives it.
final class SenderSession {
    /// What the session asks of the encoder that feeds it.
    enum EncoderCommand: Equatable {
        /// Produce an IDR (the encoder's throttle decides when); `requestedAt` is when the request arrived, `stream`
        /// the simulcast stream whose encoder is asked (nil: every encoder).
        case keyframe(requestedAt: MonotonicTime, stream: Int? = nil)
        /// Apply these rates (already less the retransmissions' share), then report with `handle(ratesApplied:)`.
        case setRates(RateRequest)
    }

    /// One rate change asked of the encoder.
    struct RateRequest: Equatable {
        /// Identifies the request in `handle(ratesApplied:)`.
        var id: Int
        /// The encoder's target, in bit/s.
        var target: Int
        /// The encoder's ceiling, in bit/s.
        var ceiling: Int
    }

    /// What happened, for the owner to report.
    enum Event {
        /// A sender event for the application.
        case sender(SenderEvent)
        /// A report interval ended: the statistics now (the owner adds what only it counts).
        case report(SenderStats)
        /// The operator's bitrate request `id` ended: the applied target, or why nothing changed.
        case operatorBitrateSettled(id: Int, Result<Int, SenderError>)
    }

    /// One thing waiting to go on the wire, in order; `stream` is the index of the stream whose history holds it.
    private enum Pending {
        /// A packet stored in the history: new media (its transport-wide number is written as it leaves).
        case media(stream: Int, SequenceNumber, keyframeStart: Bool)
        /// A packet of the history again, on the RTX stream when there is one; `probeCluster` 0 for a retransmission.
        case resend(stream: Int, SequenceNumber, probeCluster: Int)
        /// A FlexFEC packet of the stream's FEC stream, by its sequence number.
        case fec(stream: Int, SequenceNumber)
        /// An RTCP compound.
        case rtcp([RTCPPacket])
    }

    /// Why rates were asked of the encoder, and what to do once applied.
    private struct RatePurpose {
        enum Kind {
            case estimate(SenderEvent.BitrateReason, acknowledging: TemporaryMaximumBitrateEntry?, previous: Int)
            case operatorBitrate(previous: BitrateController)
        }
        var kind: Kind
        /// The session's target and ceiling, and the encoder's share of the target.
        var target: Int
        var ceiling: Int
        var media: Int
    }

    /// The rates the encoder last applied: what the pacer, the NACK budget and the apply rule work from.
    private struct AppliedRates {
        var target: Int
        var media: Int
        var ceiling: Int
    }

    /// The sender's configuration (the same for every stream).
    let configuration: SenderConfiguration
    /// The first stream's media SSRC (its RTCP's sender SSRC).
    let ssrc: SSRC

    /// The outgoing streams, in order: the first always, then the `additionalStreams` the session was made with.
    /// Each packet of the pacer and of `pending` names its stream by its index here.
    private(set) var streams: [OutgoingStream]
    /// Which RTCP is for which stream; the FIR sequence numbers already served.
    private var router: FeedbackRouter
    /// The wanted target: the application's bitrate capped by REMB, TMMBR and the congestion estimate.
    private(set) var bitrate: BitrateController
    /// The sequence numbers a NACK's answer resends, reused (its capacity kept) from one NACK to the next.
    private var retransmitList: [SequenceNumber] = []
    /// The queue of packets waiting to leave, every stream's; nil with pacing off.
    private var pacer: Pacer?
    /// The congestion controller (loss-based, and delay-based with transport-wide feedback); nil when off.
    private var bandwidth: SendSideBandwidthEstimator?
    /// Writes the transport-wide sequence number as each packet leaves.
    private var transportSequence: TransportSequenceStamper
    /// Bytes SRTP adds to each RTP packet (part of the size the delay-based estimator counts).
    private let srtpTrailer: Int
    private var probes = ProbeController()
    /// Whether the sender is application-limited (sending well under the estimate): probes are then due without a
    /// stable estimate (ALR probing).
    private var applicationLimited = ApplicationLimitedRegionDetector()
    /// Where the wait for the peer's first transport-wide feedback stands.
    private var transportFeedbackWait: TransportFeedbackWait
    /// Whether probes can be sent: transport-wide feedback to measure them, an RTX stream to carry them (on the media
    /// SSRC a packet the receiver already has is an SRTP replay, refused and counted as an unprotect failure) and the
    /// pacer. Without it: no probes and no low start.
    private let probesPossible: Bool

    private enum TransportFeedbackWait {
        /// No packet with a transport-wide number has left yet.
        case beforeFirstPacket
        /// The first one left then; no feedback yet.
        case since(MonotonicTime)
        /// Feedback came, or the wait gave up (or the extension is off).
        case over
    }
    /// The probe cluster whose padding is in the pacer's queue.
    private var probeCluster = 0
    /// The overuse count at the last estimate (a rise right after a probe is the probe's failure).
    /// Since when the path has had room (`SendSideBandwidthEstimator.hasRoom`), nil without it.
    private var roomSince: MonotonicTime?
    /// How long the path must have had room before frames leave whole: 1 s, so that an estimate hovering at the
    /// margin does not switch the pacer back and forth.
    static let roomHold: Duration = .seconds(1)
    private var lastOveruseEvents = 0
    /// `capacityOutgrown` of the delay-based estimator at the last estimate (a rise means the path grew: probe).
    private var lastCapacityOutgrown = 0
    /// When the congestion estimate last moved the encoder.
    private var lastEstimateApplied: MonotonicTime?
    /// The retransmissions' and FEC's share of the last second, which the encoder's target gives up.
    private var retransmissionShare = RetransmissionShare()
    /// How much FlexFEC protects, from the reported loss and the round trip (with `SenderConfiguration.fec`).
    private var fecProtection = FECProtection()
    /// The protection now: updated with each reception report and report interval.
    private var fecRates = FECProtection.Rates.none
    /// The highest bitrate the application has asked for: the congestion estimate's ceiling.
    private var estimateCeiling: Int
    private var applied: AppliedRates
    /// What the session counts; the streams' send counters, NACK and link figures are added in `makeSnapshot`.
    private var stats = SenderStats()
    /// The latest RRTR of each receiver (RFC 3611), answered in the next report's DLRR block and then forgotten: its
    /// middle 32 bits and when it arrived. A few receivers at most (a peer inventing SSRCs cannot grow it).
    private var receiverReferenceTimes: [(ssrc: SSRC, middle: UInt32, arrival: MonotonicTime)] = []
    /// Receivers whose RRTR is remembered at once.
    static let maximumReferenceTimes = 4
    private let startTime: MonotonicTime
    /// The wall clock at `startTime`: Sender Reports and report arrivals are stamped from it.
    private let wallClockAtStart: NTPTimestamp
    private var lastReport: (time: MonotonicTime, frames: Int, bytes: Int)
    private var nextReport: MonotonicTime
    /// The time of the latest input: outputs taken after it carry it.
    private var now: MonotonicTime
    private(set) var finished = false
    private(set) var failure: SenderError?

    private var pending: [Pending] = []
    private var pendingHead = 0
    private var commands: [EncoderCommand] = []
    private var events: [Event] = []
    private var rateRequests: [Int: RatePurpose] = [:]
    private var nextRateRequest = 1

    /// False while the transport holds media back (a WebRTC transport before its DTLS keys): such packets never
    /// leave, so they get no transport-wide number. The owner keeps it current.
    var mediaFlows = true

    /// The longest time a packet waits in the pacer's queue.
    static let pacerQueueTimeLimit = Duration.milliseconds(500)
    /// The least relative change of the congestion estimate that moves the encoder between reports (feedback comes
    /// every 50-100 ms; each small step of the delay-based estimate need not be a rate change).
    static let estimateChangeThreshold = 0.03
    /// The longest time a smaller change of the estimate waits before it reaches the encoder.
    static let estimateApplyInterval = Duration.milliseconds(500)

    /// Creates a session.
    /// - Parameters:
    ///   - configuration: the sender's configuration.
    ///   - identity: the first stream's SSRCs, first sequence numbers and timestamp offset.
    ///   - additionalStreams: the identities of further streams (stream 1, 2, ...: simulcast layers), none by default.
    ///     Every media and RTX SSRC must differ from every other.
    ///   - payloadLimit: the MTU, IP version and SRTP trailer the packets must fit.
    ///   - now: the monotonic time now.
    ///   - wallClock: the wall clock now, in NTP format.
    /// - Throws: `SenderError.invalidConfiguration` for an SSRC used twice; what the stages refuse.
    init(
        configuration: SenderConfiguration, identity: StreamIdentity, additionalStreams: [StreamIdentity] = [],
        payloadLimit: RTPPayloadLimit, now: MonotonicTime, wallClock: NTPTimestamp
    ) throws {
        self.configuration = configuration
        self.ssrc = identity.ssrc
        let ssrc = identity.ssrc
        // Feedback is routed by SSRC, so no two streams may share one (one stream keeps what its configuration allows).
        var used: Set<SSRC> = []
        for stream in [identity] + additionalStreams where !additionalStreams.isEmpty {
            for streamSSRC in [stream.ssrc] + (stream.rtxSSRC.map { [$0] } ?? []) where !used.insert(streamSSRC).inserted {
                throw SenderError.invalidConfiguration("SSRC \(streamSSRC.rawValue) is used twice")
            }
        }
        streams = try ([identity] + additionalStreams).map {
            try OutgoingStream(identity: $0, configuration: configuration, payloadLimit: payloadLimit)
        }
        self.router = FeedbackRouter(ssrc: ssrc, additional: additionalStreams.map(\.ssrc))
        let enc = configuration.encoder
        bitrate = try BitrateController(
            operatorBitrate: enc.targetBitrate, minimumBitrate: configuration.minimumBitrate,
            maximumBitrate: Int(Double(enc.level.maxBitrate(for: enc.profile)) / EncoderConfiguration.defaultMaxBitrateRatio))
        if configuration.nack { retransmitList.reserveCapacity(512) }
        if let factor = configuration.pacingFactor {
            // Every packet leaves within half a second of being queued (the pacer speeds up to drain a longer queue), so
            // it is still in the history (kept at least 1 s) when its turn comes.
            pacer = try Pacer(targetBitrate: enc.targetBitrate, pacingFactor: factor, queueTimeLimit: Self.pacerQueueTimeLimit)
            // Fine pacing until the path has shown room (`Pacer.congestedBurstInterval`, `applyEstimate`).
            if configuration.congestionControl { try pacer?.setBurstInterval(Pacer.congestedBurstInterval) }
        }
        let usesTransportFeedback = configuration.congestionControl && configuration.transportWideCCExtensionID != nil
        probesPossible = usesTransportFeedback && streams[0].rtx != nil && pacer != nil
        let start = probesPossible ? configuration.startBitrate.flatMap { $0 < enc.targetBitrate ? $0 : nil } : nil
        if configuration.congestionControl {
            bandwidth = try SendSideBandwidthEstimator(
                initialBitrate: enc.targetBitrate, startBitrate: start, minimumBitrate: configuration.minimumBitrate,
                maximumBitrate: bitrate.maximumBitrate, usesTransportFeedback: usesTransportFeedback)
        }
        transportFeedbackWait = usesTransportFeedback ? .beforeFirstPacket : .over
        transportSequence = TransportSequenceStamper(extensionID: configuration.transportWideCCExtensionID)
        srtpTrailer = configuration.security?.suite.rtpTrailerLength ?? 0
        estimateCeiling = enc.targetBitrate
        applied = AppliedRates(target: enc.targetBitrate, media: enc.targetBitrate, ceiling: enc.effectiveMaxBitrate)
        startTime = now
        self.now = now
        wallClockAtStart = wallClock
        lastReport = (now, 0, 0)
        nextReport = now + configuration.reportInterval
        pending.reserveCapacity(1024)
        stats.ssrc = ssrc.rawValue
        stats.scalabilityMode = "L1T\(enc.temporalLayers)"
        stats.frameWidth = enc.width
        stats.frameHeight = enc.height
        stats.targetBitrate = enc.targetBitrate
        stats.mediaTargetBitrate = enc.targetBitrate
        stats.maxBitrate = enc.effectiveMaxBitrate
        stats.operatorBitrate = bitrate.operatorBitrate
        if let start {
            // The encoder and the pacer start low too; the first probe leaves with the first frame.
            probes.startExponentialProbing(startBitrate: start)
            applyEstimate(force: true)
        }
    }

    /// The wall clock at `time`, in NTP format.
    private func wallClock(at time: MonotonicTime) -> NTPTimestamp { wallClockAtStart.advanced(by: time - startTime) }

    // MARK: Inputs

    /// One output of the encoder of stream `stream`.
    /// - Parameters:
    ///   - output: what the encoder produced.
    ///   - stream: the index of the stream it feeds, in `streams` (the first by default). An index the session does
    ///     not have drops a frame as a failure (counted, an event, a keyframe asked for).
    ///   - now: the time now.
    func handle(encoded output: EncoderOutput, stream: Int = 0, now: MonotonicTime) {
        advance(to: now)
        guard !finished else { return }
        switch output {
        case .frame(let frame, let statistics, let captureTime, let requestedAt):
            stats.framesEncoded += 1
            stats.totalEncodeTime += statistics.encodeDuration.inSeconds
            if let qp = statistics.averageQP { stats.qpSum += qp }
            if frame.isKeyframe { stats.keyFramesEncoded += 1 }
            do {
                guard streams.indices.contains(stream) else { throw SenderError.invalidConfiguration("no stream \(stream)") }
                try send(frame, captureTime: captureTime, stream: stream)
            } catch {
                stats.frameFailures += 1
                events.append(.sender(.frameDropped(.failure("\(error)"))))
                commands.append(.keyframe(requestedAt: now, stream: streams.count > 1 ? stream : nil))
                return
            }
            if frame.isKeyframe {
                if pacer != nil {
                    // Measured when the pacer lets the IDR's first packet go.
                    streams[stream].keyframeRequestPending = requestedAt
                    releasePaced()
                } else {
                    // From the request's arrival to the IDR's packets queued for the socket (first first).
                    keyframeSent(requestedAt: requestedAt)
                }
            } else if pacer != nil {
                releasePaced()
            }
            checkTransportFeedbackWait()
            if probes.isProbingExponentially { probeIfDue() }
        case .resolutionChanged(let change):
            if streams.indices.contains(stream) { streams[stream].frameSize = (change.to.width, change.to.height) }
            // Simulcast: the statistics' size is the highest layer's.
            guard stream == streams.count - 1 || streams.count == 1 else { return }
            stats.frameWidth = change.to.width
            stats.frameHeight = change.to.height
            if change.reason != .initial { stats.resolutionChanges += 1 }
            stats.qualityLimitationReason = change.to.width < configuration.encoder.width ? "bandwidth" : "none"
            events.append(.sender(.resolutionChanged(width: change.to.width, height: change.to.height, reason: "\(change.reason)")))
        case .skipped(let reason):
            stats.framesSkipped += 1
            events.append(.sender(.frameDropped(.rateControl("\(reason)"))))
        case .failed(let message):
            stats.frameFailures += 1
            events.append(.sender(.frameDropped(.failure(message))))
            events.append(.sender(.keyframeRequested(.frameFailure)))
        case .fatal(let error):
            stats.frameFailures += 1
            finish(error: error, now: now)
        }
    }

    /// The peer's RTCP, parsed (SRTCP already removed).
    func handle(rtcp packets: [RTCPPacket], now: MonotonicTime) {
        advance(to: now)
        guard !finished else { return }
        let arrival = wallClock(at: now)
        for (stream, feedback) in router.routeToStreams(packets) {
            switch feedback {
            case .pictureLoss:
                stats.pliCount += 1
                requestKeyframe(.pictureLoss, now: now, stream: streams.count > 1 ? stream : nil)
            case .fullIntraRequest:
                stats.firCount += 1
                requestKeyframe(.fullIntraRequest, now: now, stream: streams.count > 1 ? stream : nil)
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
                answer(nack, stream: stream)
            case .receptionReport(let block):
                if let rtt = streams[stream].update(with: block, arrival: arrival) {
                    bandwidth?.setRoundTripTime(rtt)
                }
                if configuration.fec != nil {
                    fecProtection.recordLoss(Double(block.fractionLost) / 256, now: now)
                    updateFECRates()
                }
                if bandwidth != nil {
                    bandwidth?.update(with: block, now: now)
                    applyEstimate(force: true)
                }
            case .transportFeedback(let feedback):
                stats.transportFeedbackReceived += 1
                transportFeedbackWait = .over
                guard bandwidth?.delayBased != nil else { continue }
                bandwidth?.update(with: feedback, now: now, applicationLimited: applicationLimited.isApplicationLimited)
                if let result = bandwidth?.takeProbeResult() {
                    probes.probeResult(cluster: result.cluster, bitrate: result.bitrate)
                }
                applyEstimate(force: false)
                probeIfDue()
            case .receiverReferenceTime(let receiver, let time):
                receiverReferenceTimes.removeAll { $0.ssrc == receiver }
                if receiverReferenceTimes.count >= Self.maximumReferenceTimes { receiverReferenceTimes.removeFirst() }
                receiverReferenceTimes.append((receiver, time.middle32, now))
            }
        }
    }

    /// Time passed: the pacer's next release, the report interval.
    func handleTimeout(now: MonotonicTime) {
        advance(to: now)
        guard !finished else { return }
        if now >= nextReport {
            nextReport = now + configuration.reportInterval
            report()
        }
        checkTransportFeedbackWait()
        releasePaced()
    }

    /// Gives the delay-based half up when the peer sent no transport-wide feedback within
    /// `SenderConfiguration.transportFeedbackWait` of the first numbered packet (a peer that ignores the extension,
    /// e.g. ffmpeg): the estimate, which may have started low, goes to the operator's bitrate at once.
    private func checkTransportFeedbackWait() {
        guard case .since(let since) = transportFeedbackWait, now - since >= SenderConfiguration.transportFeedbackWait
        else { return }
        transportFeedbackWait = .over
        probes.stopExponentialProbing()
        bandwidth?.transportFeedbackAbsent()
        pacer?.setProbeBitrate(nil)
        stats.transportFeedbackAbsent = true
        applyEstimate(force: true)
    }

    /// The encoder applied (or refused) the rates of request `id`.
    /// - Parameters:
    ///   - id: the request's `RateRequest.id`.
    ///   - error: nil when applied; why it was refused (nothing changed then).
    ///   - now: now.
    func handle(ratesApplied id: Int, error: (any Error)?, now: MonotonicTime) {
        advance(to: now)
        guard let purpose = rateRequests.removeValue(forKey: id) else { return }
        if error == nil {
            applied = AppliedRates(target: purpose.target, media: purpose.media, ceiling: purpose.ceiling)
            pacer?.setTargetBitrate(purpose.target)
            var index = 0
            while index < streams.count {
                streams[index].responder.setTargetBitrate(purpose.target)
                index += 1
            }
            stats.targetBitrate = purpose.target
            stats.mediaTargetBitrate = purpose.media
            stats.maxBitrate = purpose.ceiling
            stats.operatorBitrate = bitrate.operatorBitrate
        }
        switch purpose.kind {
        case .estimate(let reason, let entry, let previous):
            if let error {
                stats.bitrateChangeFailures += 1
                events.append(.sender(.bitrateChangeFailed("\(error)")))
                return
            }
            guard !finished else { return }
            // Only the retransmissions' share moved: the target is the same, no event.
            if purpose.target != previous || reason != .congestionControl {
                events.append(.sender(.bitrateChanged(target: purpose.target, reason: reason)))
            }
            if let entry {
                queueRTCP([.tmmbn(TemporaryMaximumBitrateMessage(senderSSRC: ssrc, entries: [entry]))])
            }
        case .operatorBitrate(let previous):
            if let error {
                bitrate = previous
                events.append(.operatorBitrateSettled(id: id, .failure(.invalidRate("\(error)"))))
            } else {
                events.append(.sender(.bitrateChanged(target: purpose.target, reason: .application)))
                events.append(.operatorBitrateSettled(id: id, .success(purpose.target)))
            }
        }
    }

    /// A keyframe request: the application's, or the peer's (PLI, FIR).
    /// - Parameters:
    ///   - reason: who asks.
    ///   - now: the time now.
    ///   - stream: the simulcast stream the request is about (a PLI for its SSRC), or nil for every stream.
    func requestKeyframe(_ reason: SenderEvent.KeyframeReason, now: MonotonicTime, stream: Int? = nil) {
        advance(to: now)
        if reason == .application { stats.keyframeRequests += 1 }
        commands.append(.keyframe(requestedAt: now, stream: stream))
        events.append(.sender(.keyframeRequested(reason)))
    }

    /// The application's bitrate: validated by the controller, then asked of the encoder; the outcome comes as
    /// `.operatorBitrateSettled` with the returned id (and nothing changes if the encoder refuses).
    /// - Throws: `SenderError.invalidRate` for a rate the controller refuses, `.finished` after `finish`.
    func setOperatorBitrate(_ bps: Int, now: MonotonicTime) throws(SenderError) -> Int {
        advance(to: now)
        guard !finished else { throw .finished }
        let previous = bitrate
        do {
            try bitrate.setOperatorBitrate(bps)
        } catch {
            throw .invalidRate("\(error)")
        }
        estimateCeiling = max(estimateCeiling, bps)
        bandwidth?.setConfiguredBitrate(estimateCeiling)
        return requestRates(
            target: bitrate.effectiveTarget, ceiling: bitrate.effectiveCeiling, kind: .operatorBitrate(previous: previous))
    }

    /// Ends the stream: what the pacer holds leaves, then a BYE. Idempotent; outputs stay to be taken.
    func finish(error: SenderError?, now: MonotonicTime) {
        advance(to: now)
        guard !finished else { return }
        finished = true
        failure = error
        // What the pacer still holds leaves now, ahead of the BYE (the pacer's clock is run forward to let it go).
        if var pacer {
            var time = now
            var rounds = 0
            while pacer.queuedPackets > 0, rounds < 100_000 {
                rounds += 1
                guard let packet = pacer.dequeue(now: time) else {
                    time = pacer.nextSendTime(now: time) ?? time
                    continue
                }
                guard packet.kind == .media else { continue }
                pending.append(.media(stream: packet.stream, packet.sequenceNumber, keyframeStart: false))
            }
            self.pacer = pacer
        }
        queueRTCP([.goodbye(Goodbye(
            sources: streams.map(\.ssrc), reason: error == nil ? "stream ended" : "stream failed"))])
    }

    private func advance(to time: MonotonicTime) {
        if time > now { now = time }
    }

    // MARK: Outputs

    /// Hands the next thing to send to `rtp` or `rtcp`, in order; false when there is none.
    ///
    /// An RTP packet is not handed over as bytes: `rtp` gets its size and a `write` that writes the whole packet
    /// from its frame into the caller's buffer (at least `size` bytes; the transport's batch buffer, where it is then
    /// protected in place) and returns its length, so that the frame's bytes are copied once on the way to the wire.
    /// `write` must be called at most once, during `rtp`; the packet's transport-wide sequence number is written then,
    /// as it leaves (a packet never written gets none). Whatever `rtp`, `write` or `rtcp` throws counts as a send
    /// error; the packet is not offered again.
    /// - Parameters:
    ///   - rtp: receives an RTP packet's size and writer (media, a retransmission or a probe).
    ///   - rtcp: receives an RTCP compound packet, SR (or RR) and SDES first.
    /// - Returns: whether something was handed over.
    @discardableResult
    func pollTransmit(
        rtp: (_ size: Int, _ write: (UnsafeMutableRawBufferPointer) throws -> Int) throws -> Void,
        rtcp: ([RTCPPacket]) throws -> Void
    ) -> Bool {
        guard pendingHead < pending.count else {
            if !pending.isEmpty {
                pending.removeAll(keepingCapacity: true)
                pendingHead = 0
            }
            return false
        }
        let next = pending[pendingHead]
        pendingHead += 1
        do {
            switch next {
            case .media(let stream, let sequenceNumber, let keyframeStart):
                if let (packet, frame) = streams[stream].history.packet(sequenceNumber, now: now) {
                    var protection: Range<Int>?
                    try rtp(packet.size) { buffer in
                        let size = try streams[stream].packetizer.write(packet, of: frame, into: buffer)
                        if streams[stream].fec != nil {
                            // The XOR is taken before the transport-wide number is written (the receiver zeroes it).
                            protection = streams[stream].fec?.protect(
                                UnsafeRawBufferPointer(rebasing: buffer[0..<size]), isKeyframe: frame.isKeyframe,
                                rates: fecRates)
                        }
                        stampTransportSequence(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size]), probeCluster: 0)
                        return size
                    }
                    streams[stream].newestSentMedia = sequenceNumber
                    if let protection, !protection.isEmpty { queueFEC(protection, stream: stream) }
                } else {
                    stats.pacerPacketsDropped += 1  // gone from the history: never silent
                }
                if keyframeStart {
                    keyframeSent(requestedAt: streams[stream].keyframeRequestPending)
                    streams[stream].keyframeRequestPending = nil
                }
            case .resend(let stream, let sequenceNumber, let cluster):
                try resend(sequenceNumber, of: stream, probeCluster: cluster, rtp)
            case .fec(let stream, let sequenceNumber):
                guard let encoder = streams[stream].fec?.encoder, let index = encoder.index(of: sequenceNumber),
                      let size = encoder.packetSize(index)
                else {
                    stats.pacerPacketsDropped += 1  // overwritten by newer FEC packets: never silent
                    break
                }
                try rtp(size) { buffer in
                    let written = try encoder.writePacket(index, into: buffer)
                    stampTransportSequence(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<written]), probeCluster: 0)
                    return written
                }
                streams[stream].counters.fecPacketsSent += 1
                streams[stream].counters.fecBytesSent += size
            case .rtcp(let compound):
                try rtcp(compound)
            }
        } catch {
            stats.sendErrors += 1
        }
        return true
    }

    /// The next command for the encoder, if any.
    func pollEncoderCommand() -> EncoderCommand? {
        commands.isEmpty ? nil : commands.removeFirst()
    }

    /// The next event, if any.
    func pollEvent() -> Event? {
        events.isEmpty ? nil : events.removeFirst()
    }

    /// When `handleTimeout` is next due: the pacer's next release or the end of the report interval; nil once
    /// finished.
    func pollTimeout() -> MonotonicTime? {
        guard !finished else { return nil }
        guard let release = pacer?.nextSendTime(now: now) else { return nextReport }
        return min(release, nextReport)
    }

    // MARK: Out: encoded frames to the wire

    /// Records that an IDR's first packet left.
    private func keyframeSent(requestedAt: MonotonicTime?) {
        let latency = requestedAt.map { now - $0 }
        if let latency { stats.keyframeRequestLatency = latency.inSeconds }
        events.append(.sender(.keyframeSent(latency: latency)))
    }

    /// Plans one access unit's packets into stream `stream`'s history (plans and the frame, no bytes); they wait
    /// for `pollTransmit`, in the pacer's queue or straight in line.
    private func send(_ frame: EncodedFrame, captureTime: MonotonicTime, stream: Int) throws {
        let timestamp = streams[stream].timestamp(at: captureTime)
        var packets = 0
        var payloadBytes = 0
        var headerBytes = 0
        configuration.frameObserver?(frame, timestamp)
        let now = self.now
        let queuedBefore = pending.count
        var first = true
        // The capture time on the wall clock as the Sender Reports map time: the same NTP value an SR would pair with
        // this frame's RTP timestamp.
        let extensions = streams[stream].extensionSchedule.extensions(
            timestamp: timestamp, captureTime: wallClock(at: captureTime), isKeyframe: frame.isKeyframe,
            temporalLayer: frame.temporalLayer, now: now)
        do {
            // Only planned here: each packet is written from the frame when it leaves (`pollTransmit`).
            try streams[stream].plan(frame, timestamp: timestamp, extensions: extensions, now: now) { packet in
                if pacer != nil {
                    pace(PacedPacket(
                        stream: stream, sequenceNumber: packet.sequenceNumber, size: packet.size, kind: .media,
                        isKeyframeStart: first && frame.isKeyframe))
                } else {
                    pending.append(.media(stream: stream, packet.sequenceNumber, keyframeStart: false))
                }
                first = false
                packets += 1
                payloadBytes += packet.payload.size
                headerBytes += packet.headerSize
            }
        } catch {
            pending.removeSubrange(queuedBefore...)  // nothing of a failed frame leaves
            throw error
        }
        streams[stream].counters.framesSent += 1
        if frame.isKeyframe { streams[stream].counters.keyFramesSent += 1 }
        streams[stream].counters.packetsSent += packets
        streams[stream].counters.bytesSent += payloadBytes
        streams[stream].counters.headerBytesSent += headerBytes
        // A first Sender Report right away instead of one report interval later: the receiver's reports (and the
        // ones sent with each NACK) then carry LSR/DLSR from the start, so the RTT, and with it the resend guard, is
        // known within the first RTT. Before it the guard assumes 100 ms and refused the repeats of a receiver whose
        // own RTT was already measured (a 230-250 ms freeze in the first second at 5 % loss).
        if streams[stream].counters.framesSent == 1 { queueRTCP([]) }
    }

    // MARK: Rates

    /// Moves the encoder to the controller's effective target; a TMMBR is acknowledged (TMMBN, RFC 5104 section
    /// 4.2.2) only once the encoder has applied it.
    private func applyBitrate(reason: SenderEvent.BitrateReason, acknowledging entry: TemporaryMaximumBitrateEntry?) {
        _ = requestRates(
            target: bitrate.effectiveTarget, ceiling: bitrate.effectiveCeiling,
            kind: .estimate(reason, acknowledging: entry, previous: stats.targetBitrate))
    }

    /// Asks the encoder for `target` less the retransmissions' share, and a ceiling scaled alike.
    private func requestRates(target: Int, ceiling: Int, kind: RatePurpose.Kind) -> Int {
        let media = mediaTarget(for: target)
        let mediaCeiling = max(media, Int((Double(ceiling) * Double(media) / Double(max(target, 1))).rounded()))
        let id = nextRateRequest
        nextRateRequest += 1
        rateRequests[id] = RatePurpose(kind: kind, target: target, ceiling: ceiling, media: media)
        commands.append(.setRates(RateRequest(id: id, target: media, ceiling: mediaCeiling)))
        return id
    }

    /// Hands the combined estimate to the bitrate controller and moves the encoder when it changed: at once for a
    /// receiver report or a change of 3 % or more, else at most every 500 ms. The loss-based and the combined
    /// estimates never grow past the highest bitrate the application has asked for (libwebrtc caps them at the
    /// configured maximum): a cut must act at once, not first eat up an estimate that grew during a loss-free
    /// minute. Not the current bitrate: an application lowering it for a while must not drag the path estimate down.
    private func applyEstimate(force: Bool) {
        guard let bandwidth else { return }
        let (estimate, limit) = bandwidth.estimate
        stats.congestionEstimate = estimate
        stats.lossBasedEstimate = bandwidth.lossBasedBitrate
        stats.delayBasedEstimate = bandwidth.delayBased?.targetBitrate
        stats.lossFastCuts = bandwidth.lossModel?.fastCuts ?? 0
        stats.overuseEvents = bandwidth.delayBased?.statistics.overuseEvents ?? 0
        stats.estimateLimitedBy = "\(limit)"
        applicationLimited.setEstimate(estimate)
        stats.applicationLimited = applicationLimited.isApplicationLimited
        stats.applicationLimitedRegions = applicationLimited.regionsEntered
        stats.probes = bandwidth.delayBased?.statistics.probesSent ?? 0
        stats.probesRaisedEstimate = bandwidth.delayBased?.statistics.probesRaisedEstimate ?? 0
        probes.update(estimate: estimate, now: now)
        if stats.overuseEvents > lastOveruseEvents { probes.overuseDetected(now: now) }
        lastOveruseEvents = stats.overuseEvents
        let outgrown = bandwidth.delayBased?.statistics.capacityOutgrown ?? 0
        if outgrown > lastCapacityOutgrown { probes.pathGrew(now: now) }
        lastCapacityOutgrown = outgrown
        bitrate.receivedEstimate(estimate)
        applyTargetIfChanged(force: force)
        // A frame leaves at once while the path has had room for `roomHold`; without room it is paced finely at once,
        // so that the delay-based detector sees several packet groups per frame.
        if bandwidth.hasRoom {
            if roomSince == nil { roomSince = now }
        } else {
            roomSince = nil
        }
        let roomy = roomSince.map { now - $0 >= Self.roomHold } ?? false
        let burst = roomy ? Pacer.defaultBurstInterval : Pacer.congestedBurstInterval
        if let current = pacer?.burstInterval, current != burst { try? pacer?.setBurstInterval(burst) }
    }

    /// Moves the encoder when the target or the retransmissions' share of it changed: at once when forced or by 3 %
    /// or more, else at most every 500 ms.
    private func applyTargetIfChanged(force: Bool) {
        let sent = totals()
        retransmissionShare.record(
            media: sent.bytesSent + sent.headerBytesSent, retransmitted: sent.retransmittedBytesSent + sent.fecBytesSent,
            now: now)
        let target = bitrate.effectiveTarget
        let media = mediaTarget(for: target)
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

    /// Queues a probe cluster when the `ProbeController` says one is due: the first stream's most recent media
    /// packets that have already left, again on its RTX stream (none without one), ahead of new media through the
    /// pacer, each recorded with the cluster so that the feedback measures the rate they got through at. Until a
    /// media packet has left the probe stays due (the first frame's packets leave first). Fewer sent packets than a
    /// cluster holds are repeated in turn (libwebrtc's padding may resend one packet several times too).
    private func probeIfDue() {
        guard probesPossible, mediaFlows, let estimate = bandwidth?.targetBitrate, bandwidth?.delayBased != nil,
            let newest = streams[0].newestSentMedia, streams[0].history.contains(newest, now: now)
        else {
            return
        }
        guard let probe = probes.probe(
            now: now, estimate: estimate, ceiling: estimateCeiling,
            applicationLimited: applicationLimited.isApplicationLimited)
        else { return }
        bandwidth?.startProbe(cluster: probe.cluster, bitrate: probe.bitrate)
        pacer?.setProbeBitrate(probe.bitrate)
        probeCluster = probe.cluster
        let stream = 0
        // How many of the newest sent packets are still in the history (at least the newest: checked above).
        var available = 1
        while available < ProbeController.clusterPackets,
            streams[stream].history.contains(newest - available, now: now)
        {
            available += 1
        }
        for index in 0..<ProbeController.clusterPackets {
            let sequenceNumber = newest - (available - 1 - index % available)
            guard let size = streams[stream].history.size(of: sequenceNumber, now: now) else { continue }
            pace(PacedPacket(stream: stream, sequenceNumber: sequenceNumber, size: size, kind: .probe))
        }
        releasePaced()
    }

    /// Writes the next transport-wide sequence number into a packet about to leave, and records its send time and
    /// size for the delay-based estimator. Nothing when the extension is off or media does not flow yet.
    private func stampTransportSequence(_ packet: UnsafeMutableRawBufferPointer, probeCluster: Int) {
        guard mediaFlows, let number = transportSequence.stamp(packet) else { return }
        bandwidth?.packetSent(
            transportSequenceNumber: number, size: packet.count + srtpTrailer, now: now, probeCluster: probeCluster)
        applicationLimited.packetSent(size: packet.count + srtpTrailer, now: now)
        if case .beforeFirstPacket = transportFeedbackWait { transportFeedbackWait = .since(now) }
    }

    // MARK: Forward error correction

    /// Queues FEC packets just built by stream `stream`'s FEC stream: behind the media in the pacer, or in line.
    private func queueFEC(_ indexes: Range<Int>, stream: Int) {
        guard let encoder = streams[stream].fec?.encoder else { return }
        for index in indexes {
            let sequenceNumber = encoder.firstSequenceNumber + index
            if pacer != nil {
                let size = encoder.packetSize(index) ?? 0
                pace(PacedPacket(stream: stream, sequenceNumber: sequenceNumber, size: size, kind: .forwardErrorCorrection))
            } else {
                pending.append(.fec(stream: stream, sequenceNumber))
            }
        }
        releasePaced()
    }

    /// The protection for the loss reported over the last 10 s, the round trip, the encoder's share of the target,
    /// its frame rate and the frame size now.
    private func updateFECRates() {
        guard configuration.fec != nil else { return }
        fecRates = fecProtection.rates(
            now: now, roundTripTime: streams[0].link.roundTripTime, bitrate: applied.media,
            framesPerSecond: configuration.encoder.frameRate, pixels: stats.frameWidth * stats.frameHeight)
        stats.fecProtection = Double(fecRates.delta) / 256
    }

    // MARK: Retransmissions and pacing

    /// Answers a NACK for stream `stream`: its responder picks what to resend from its history (once per RTT, within
    /// its budget); the packets go ahead of new media.
    private func answer(_ nack: GenericNACK, stream: Int) {
        guard configuration.nack else { return }
        streams[stream].respond(to: nack, now: now, retransmit: &retransmitList)
        guard !retransmitList.isEmpty else { return }
        if pacer != nil {
            for sequenceNumber in retransmitList {
                let size = streams[stream].history.size(of: sequenceNumber, now: now) ?? 0
                pace(PacedPacket(stream: stream, sequenceNumber: sequenceNumber, size: size, kind: .retransmission))
            }
            releasePaced()
        } else {
            for sequenceNumber in retransmitList {
                pending.append(.resend(stream: stream, sequenceNumber, probeCluster: 0))
            }
        }
    }

    /// Hands one packet of stream `stream`'s history to `rtp` again, written from its frame: on the stream's RTX
    /// stream (RFC 4588, a new sequence number, the original one first in the payload) or as the original packet.
    private func resend(
        _ sequenceNumber: SequenceNumber, of stream: Int, probeCluster: Int,
        _ rtp: (_ size: Int, _ write: (UnsafeMutableRawBufferPointer) throws -> Int) throws -> Void
    ) throws {
        guard let (packet, frame) = streams[stream].history.packet(sequenceNumber, now: now) else { return }
        if let rtx = streams[stream].rtx {
            try rtp(packet.size + RTXPacket.originalSequenceNumberSize) { buffer in
                let size = try streams[stream].packetizer.writeRetransmission(
                    packet, of: frame, ssrc: rtx.ssrc, payloadType: rtx.payloadType,
                    sequenceNumber: rtx.nextSequenceNumber, into: buffer)
                streams[stream].rtx?.advance()
                stampTransportSequence(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size]), probeCluster: probeCluster)
                return size
            }
        } else {
            try rtp(packet.size) { buffer in
                let size = try streams[stream].packetizer.write(packet, of: frame, into: buffer)
                stampTransportSequence(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size]), probeCluster: probeCluster)
                return size
            }
        }
        if probeCluster != 0 {
            streams[stream].counters.probePacketsSent += 1
        } else {
            streams[stream].counters.retransmittedPacketsSent += 1
            streams[stream].counters.retransmittedBytesSent += packet.size
        }
    }

    /// Queues a packet in the pacer; a packet it drops for its queue limit (the oldest or this one) is counted.
    private func pace(_ packet: PacedPacket) {
        if pacer?.enqueue(packet, now: now) != nil { stats.pacerPacketsDropped += 1 }
    }

    /// Moves what the pacer's budget allows now into the line for `pollTransmit`; `pollTimeout` says when the rest
    /// is due.
    private func releasePaced() {
        guard !finished, pacer != nil else { return }
        while let packet = pacer?.dequeue(now: now) {
            switch packet.kind {
            case .retransmission:
                pending.append(.resend(stream: packet.stream, packet.sequenceNumber, probeCluster: 0))
            case .probe:
                pending.append(.resend(stream: packet.stream, packet.sequenceNumber, probeCluster: probeCluster))
            case .media:
                pending.append(.media(stream: packet.stream, packet.sequenceNumber, keyframeStart: packet.isKeyframeStart))
            case .forwardErrorCorrection:
                pending.append(.fec(stream: packet.stream, packet.sequenceNumber))
            }
        }
    }

    // MARK: Reports

    /// The statistics now, of what this session counts (the owner adds its transport's and mailbox's counters).
    func snapshot(now: MonotonicTime) -> SenderStats {
        advance(to: now)
        return makeSnapshot()
    }

    /// The statistics now: the session's, every stream's send counters and NACK figures added up, and the first
    /// stream's link (its SSRC is the statistics' `ssrc`).
    private func makeSnapshot() -> SenderStats {
        var snapshot = stats
        snapshot.timestamp = (now - startTime).inSeconds
        snapshot.rembBitrate = bitrate.rembLimit
        snapshot.tmmbrBitrate = bitrate.tmmbrLimit
        let link = streams[0].link
        snapshot.roundTripTime = link.roundTripTime?.inSeconds
        snapshot.fractionLost = link.fractionLost
        snapshot.packetsLost = link.packetsLost
        let sent = totals()
        snapshot.framesSent = sent.framesSent
        snapshot.packetsSent = sent.packetsSent
        snapshot.bytesSent = sent.bytesSent
        snapshot.headerBytesSent = sent.headerBytesSent
        snapshot.retransmittedPacketsSent = sent.retransmittedPacketsSent
        snapshot.retransmittedBytesSent = sent.retransmittedBytesSent
        snapshot.probePacketsSent = sent.probePacketsSent
        snapshot.fecPacketsSent = sent.fecPacketsSent
        snapshot.fecBytesSent = sent.fecBytesSent
        if configuration.nack {
            var index = 0
            while index < streams.count {
                let r = streams[index].responder.statistics
                snapshot.nackRequestsIgnored += r.ignoredNotInHistory + r.ignoredTooSoon + r.ignoredOverBudget
                snapshot.nackIgnoredNotInHistory += r.ignoredNotInHistory
                snapshot.nackIgnoredTooSoon += r.ignoredTooSoon
                snapshot.nackIgnoredOverBudget += r.ignoredOverBudget
                snapshot.retransmittedExtraCopies += r.extraCopies
                index += 1
            }
        }
        if let pacer {
            snapshot.pacerQueueDelay = pacer.queueDelay(now: now).inSeconds
        }
        if streams.count > 1 {
            snapshot.simulcastLayers = streams.map { stream in
                var layer = SimulcastLayerStats(rid: stream.rid ?? "", ssrc: stream.ssrc.rawValue)
                layer.frameWidth = stream.frameSize.width
                layer.frameHeight = stream.frameSize.height
                layer.framesSent = stream.counters.framesSent
                layer.keyFramesSent = stream.counters.keyFramesSent
                layer.packetsSent = stream.counters.packetsSent
                layer.bytesSent = stream.counters.bytesSent
                layer.actualBitrate = stream.actualBitrate
                return layer
            }
        }
        return snapshot
    }

    /// Every stream's send counters added up.
    private func totals() -> OutgoingStream.Counters {
        var sum = OutgoingStream.Counters()
        var index = 0
        while index < streams.count {  // indexed: an unoptimized build allocates an iterator box for `for in`
            let counters = streams[index].counters
            sum.framesSent += counters.framesSent
            sum.packetsSent += counters.packetsSent
            sum.bytesSent += counters.bytesSent
            sum.headerBytesSent += counters.headerBytesSent
            sum.retransmittedPacketsSent += counters.retransmittedPacketsSent
            sum.retransmittedBytesSent += counters.retransmittedBytesSent
            sum.probePacketsSent += counters.probePacketsSent
            sum.fecPacketsSent += counters.fecPacketsSent
            sum.fecBytesSent += counters.fecBytesSent
            index += 1
        }
        return sum
    }

    /// Once per report interval: rates over the interval, the Sender Report, `.report`.
    private func report() {
        let elapsed = (now - lastReport.time).inSeconds
        let bytesSent = totals().bytesSent
        if elapsed > 0 {
            stats.framesPerSecond = Double(stats.framesEncoded - lastReport.frames) / elapsed
            stats.actualBitrate = Int(Double((bytesSent - lastReport.bytes) * 8) / elapsed)
            if streams.count > 1 {
                for index in streams.indices {
                    let bytes = streams[index].counters.bytesSent
                    streams[index].actualBitrate = Int(Double((bytes - streams[index].bytesAtLastReport) * 8) / elapsed)
                    streams[index].bytesAtLastReport = bytes
                }
            }
        }
        lastReport = (now, stats.framesEncoded, bytesSent)
        updateFECRates()
        // The retransmissions' share reaches the encoder here too: without congestion control (or a peer's reports)
        // nothing else looks at the target between changes.
        if configuration.nack || configuration.fec != nil { applyTargetIfChanged(force: false) }
        queueRTCP([])
        events.append(.report(makeSnapshot()))
    }

    /// Queues a compound packet, as RFC 3550 section 6.1 requires: a Sender Report for every stream that has sent
    /// (an empty RR from the first stream's SSRC before any has), then SDES with a CNAME chunk per stream, then
    /// `packets`.
    private func queueRTCP(_ packets: [RTCPPacket]) {
        var compound: [RTCPPacket] = []
        compound.reserveCapacity(streams.count + 1 + packets.count)
        var chunks: [SourceDescriptionChunk] = []
        chunks.reserveCapacity(streams.count)
        let items: [SourceDescriptionItem] = [.cname(configuration.cname)]
        let ntpNow = wallClock(at: now)
        var index = 0
        while index < streams.count {
            if let report = streams[index].senderReport(now: now, wallClock: ntpNow) {
                compound.append(.senderReport(report))
            }
            chunks.append(SourceDescriptionChunk(ssrc: streams[index].ssrc, items: items))
            index += 1
        }
        if compound.isEmpty { compound.append(.receiverReport(ReceiverReport(ssrc: ssrc, reportBlocks: []))) }
        compound.append(.sourceDescription(SourceDescription(chunks: chunks)))
        if !receiverReferenceTimes.isEmpty {
            // RFC 3611 section 4.5: LRR, and the delay since that RRTR arrived in 1/65536 s.
            let answers = receiverReferenceTimes.map { entry in
                let microseconds = max(0, (now - entry.arrival).saturatingNanoseconds / 1_000)
                return ExtendedReport.DelaySinceLastReceiverReport(
                    ssrc: entry.ssrc, lastReceiverReport: entry.middle,
                    delaySinceLastReceiverReport: UInt32(clamping: microseconds * 65_536 / 1_000_000))
            }
            receiverReferenceTimes.removeAll(keepingCapacity: true)
            compound.append(.extendedReport(ExtendedReport(ssrc: ssrc, blocks: [.delaySinceLastReceiverReport(answers)])))
        }
        compound.append(contentsOf: packets)
        pending.append(.rtcp(compound))
    }
}
