import Codec
import H264
import Logging
import MediaTime
import NIOCore
import RTP
import Transport

/// Runs one `SenderSession` over a `UDPTransport` on the transport's event loop: the only place the session meets
/// time, a socket and the encoder.
///
/// ```
/// encoder output --handle(encoded:)--> SenderSession --pollTransmit--> UDPTransport (written in its batch buffer,
///     SRTP protect in place, sendmmsg)
/// UDPTransport (SRTCP unprotect, RTCP parse) --handle(rtcp:)--> SenderSession --pollEncoderCommand--> EncoderControl
/// one timer at pollTimeout() --handleTimeout--> SenderSession (pacer releases, report interval)
/// EncoderControl.setRates completes --handle(ratesApplied:)--> SenderSession
/// ```
/// After every input the driver takes every output, in this order: encoder commands, transmissions (RTP batched into
/// one `sendmmsg`, flushed before any RTCP so that the wire order is the session's), events, the next deadline.
/// Confined to the I/O loop.
final class SenderSessionDriver {
    let configuration: SenderConfiguration
    let ssrc: SSRC
    let eventLoop: EventLoop
    let transport: UDPTransport
    private let clock: MediaClock
    /// The encoder this session is fed by: its own (`H264Sender`) or one shared with other sessions (`FanOutEncoder`).
    private let encoder: any EncoderControl
    /// The encoder this session alone is fed by (`H264Sender`): closed when the session ends, its dropped frames
    /// counted here. Nil for a viewer of a shared encoder.
    private let ownEncoder: EncoderSet?
    private let events: AsyncStream<SenderEvent>.Continuation
    private let reports: AsyncStream<SenderStats>.Continuation
    private let session: SenderSession
    /// Where the session's events and its end are logged (the stream's SSRC in the metadata).
    private let logger: Logger
    private var timer: Scheduled<Void>?
    private var timerDeadline: MonotonicTime?
    /// The application's bitrate requests in flight, by the session's request id.
    private var operatorRequests: [Int: EventLoopPromise<Int>] = [:]
    private var started = false
    /// The transport, timer and streams are closed.
    private var tornDown = false

    /// Whether the stream ended.
    var finished: Bool { session.finished }
    /// Why the stream failed, if it did.
    var failure: SenderError? { session.failure }

    init(
        configuration: SenderConfiguration, identity: StreamIdentity, additionalStreams: [StreamIdentity] = [],
        payloadLimit: RTPPayloadLimit, transport: UDPTransport, clock: MediaClock, encoder: any EncoderControl,
        ownEncoder: EncoderSet?, events: AsyncStream<SenderEvent>.Continuation,
        reports: AsyncStream<SenderStats>.Continuation, logger: Logger
    ) throws {
        var logger = logger
        logger[metadataKey: "ssrc"] = "\(identity.ssrc.rawValue)"
        self.logger = logger
        self.configuration = configuration
        self.ssrc = identity.ssrc
        self.eventLoop = transport.eventLoop
        self.transport = transport
        self.clock = clock
        self.encoder = encoder
        self.ownEncoder = ownEncoder
        self.events = events
        self.reports = reports
        session = try SenderSession(
            configuration: configuration, identity: identity, additionalStreams: additionalStreams,
            payloadLimit: payloadLimit, now: clock.monotonic(), wallClock: clock.wall())
    }

    /// Listens to the transport and starts the session's clock. On the loop.
    func start() {
        started = true
        transport.onRTCP = { [weak self] packets in self?.received(packets) }
        pump()
    }

    // MARK: Inputs

    /// One output of the encoder stage.
    /// - Parameters:
    ///   - output: the output.
    ///   - stream: the simulcast stream whose encoder produced it (0 for a single stream).
    func handle(_ output: EncoderOutput, stream: Int = 0) {
        guard !tornDown else { return }
        session.handle(encoded: output, stream: stream, now: clock.monotonic())
        // A fatal encoder failure ends the session from within.
        if session.finished { tearDown(closingTransport: true) } else { pump() }
    }

    private func received(_ packets: [RTCPPacket]) {
        session.handle(rtcp: packets, now: clock.monotonic())
        pump()
    }

    /// Records a keyframe request with the encoder's throttle.
    func requestKeyframe(_ reason: SenderEvent.KeyframeReason) {
        session.requestKeyframe(reason, now: clock.monotonic())
        pump()
    }

    /// The application's bitrate: validated by the session's controller, applied by the encoder, or nothing changes.
    func setOperatorBitrate(_ bps: Int) -> EventLoopFuture<Int> {
        let id: Int
        do {
            id = try session.setOperatorBitrate(bps, now: clock.monotonic())
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        let promise = eventLoop.makePromise(of: Int.self)
        operatorRequests[id] = promise
        pump()
        return promise.futureResult
    }

    // MARK: Outputs

    /// Takes every output of the session.
    private func pump() {
        while let command = session.pollEncoderCommand() {
            switch command {
            case .keyframe(let requestedAt, let stream):
                if let stream {
                    encoder.requestKeyframe(at: requestedAt, stream: stream)
                } else {
                    encoder.requestKeyframe(at: requestedAt)
                }
            case .setRates(let request):
                encoder.setRates(target: request.target, ceiling: request.ceiling).hop(to: eventLoop).assumeIsolated()
                    .whenComplete { [weak self] result in
                        guard let self else { return }
                        var error: (any Error)?
                        if case .failure(let failure) = result { error = failure }
                        self.session.handle(ratesApplied: request.id, error: error, now: self.clock.monotonic())
                        self.pump()
                    }
            }
        }
        session.mediaFlows = transport.isSecured
        let transport = self.transport
        var queued = 0
        // Each RTP packet is written by the session from its frame straight into the transport's batch buffer and
        // protected there: the frame's bytes are copied once between the encoder's `EncodedFrame` and the socket.
        while session.pollTransmit(rtp: { size, write in
            try transport.queueRTP(maximumSize: size, write: write)
            queued += 1
        }, rtcp: { compound in
            if queued > 0 {
                transport.flush()
                queued = 0
            }
            try transport.sendRTCP(compound)
        }) {}
        if queued > 0 { transport.flush() }
        while let event = session.pollEvent() {
            switch event {
            case .sender(let event):
                logger.log(level: event.logLevel, event.logMessage, metadata: event.logMetadata)
                events.yield(event)
            case .report(let statistics):
                reports.yield(withDriverCounters(statistics))
            case .operatorBitrateSettled(let id, let result):
                operatorRequests.removeValue(forKey: id)?.completeWith(result.mapError { $0 })
            }
        }
        schedule(session.pollTimeout())
    }

    /// Keeps one timer at the session's next deadline (a timer due no later is kept: firing early is harmless).
    private func schedule(_ deadline: MonotonicTime?) {
        guard started, !tornDown, let deadline else {
            timer?.cancel()
            timer = nil
            timerDeadline = nil
            return
        }
        if let current = timerDeadline, current <= deadline, timer != nil { return }
        timer?.cancel()
        timerDeadline = deadline
        let wait = max(Duration.zero, deadline - clock.monotonic())
        let weakSelf = NIOLoopBound(WeakReference(self), eventLoop: eventLoop)
        timer = eventLoop.scheduleTask(in: .nanoseconds(wait.saturatingNanoseconds)) {
            guard let driver = weakSelf.value.object else { return }
            driver.timer = nil
            driver.timerDeadline = nil
            driver.session.handleTimeout(now: driver.clock.monotonic())
            driver.pump()
        }
    }

    // MARK: Reports

    /// The statistics now.
    func snapshot() -> SenderStats {
        withDriverCounters(session.snapshot(now: clock.monotonic()))
    }

    /// `statistics` with what the driver's transport and encoder count.
    private func withDriverCounters(_ statistics: SenderStats) -> SenderStats {
        var snapshot = statistics
        snapshot.framesDropped = ownEncoder?.droppedFrames ?? 0
        if let active = ownEncoder?.activeLayers, var layers = snapshot.simulcastLayers, layers.count == active.count {
            for index in layers.indices { layers[index].active = active[index] }
            snapshot.simulcastLayers = layers
        }
        let counters = transport.counters
        snapshot.rtcpPacketsReceived = counters.rtcpPacketsReceived
        snapshot.rtcpPacketsSent = counters.rtcpPacketsSent
        snapshot.rtcpMalformed = counters.malformedPackets
        snapshot.srtcpUnprotectFailures = counters.srtcpUnprotectFailures
        snapshot.packetsFromStrangers = counters.packetsFromStrangers
        snapshot.sendErrors = counters.socketErrors + statistics.sendErrors
        snapshot.plainRTCPAccepted = counters.plainRTCPAccepted
        snapshot.segmentedWrites = counters.segmentedWrites
        snapshot.segmentationOffloadFailures = counters.segmentationOffloadFailures
        return snapshot
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
        if tornDown { return snapshot() }
        session.finish(error: error, now: clock.monotonic())
        return tearDown(closingTransport: closingTransport)
    }

    /// After the session finished: its last packets (the BYE) out, then the transport, timer and streams closed.
    @discardableResult
    private func tearDown(closingTransport: Bool) -> SenderStats {
        tornDown = true
        ownEncoder?.close()
        pump()
        timer?.cancel()
        timer = nil
        let final = snapshot()
        if let failure = session.failure {
            logger.error("stream failed", metadata: ["error": "\(failure)", "frames_sent": "\(final.framesSent)"])
        } else {
            logger.info("stream ended", metadata: [
                "frames_sent": "\(final.framesSent)", "packets_sent": "\(final.packetsSent)",
                "retransmitted_packets_sent": "\(final.retransmittedPacketsSent)",
            ])
        }
        if closingTransport { transport.close() }
        transport.onRTCP = nil
        for (_, promise) in operatorRequests { promise.fail(SenderError.finished) }
        operatorRequests.removeAll()
        reports.yield(final)
        reports.finish()
        events.finish()
        return final
    }
}
