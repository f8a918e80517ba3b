import Codec
import H264
import MediaTime
import NIOCore
import RTP
import Transport
import Video

/// Runs one `ReceiverSession` over a `UDPTransport` on the transport's event loop, and decodes what it hands out:
/// the only place the session meets time, a socket and the decoder.
///
/// ```
/// UDPTransport (SRTP unprotect) --handle(rtp:) / handle(rtcp:)--> ReceiverSession
///     --pollEvent .decode--> H264Decoder --handle(keyframeDecoded:/decodeFailed:/pictureShown:)--> ReceiverSession
///     --pollTransmit--> UDPTransport (SRTCP protect)
/// one timer at pollTimeout() --handleTimeout--> ReceiverSession
/// ```
/// Confined to the I/O loop.
final class ReceiverSessionDriver {
    private let configuration: ReceiverConfiguration
    private let transport: UDPTransport
    private let clock: MediaClock
    private let done: EventLoopPromise<ReceiverStats>
    private let session: ReceiverSession
    /// The decoder; nil when frames are not decoded.
    private let decoder: H264Decoder?
    private var picture = I420Frame(width: 16, height: 16)
    /// Access units given to the decoder whose pictures have not come out yet: OpenH264 holds one picture back in
    /// High profile, so pictures are matched to access units in order.
    private var awaitingPicture: [H264ReceivedFrame] = []
    /// The picture size of the latest SPS, when frames are not decoded.
    private var undecodedSize = (width: 0, height: 0)
    private var timer: Scheduled<Void>?
    private var timerDeadline: MonotonicTime?
    private var started = false
    private var tornDown = false

    init(configuration: ReceiverConfiguration, ssrc: SSRC, transport: UDPTransport, clock: MediaClock,
         done: EventLoopPromise<ReceiverStats>) throws {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.done = done
        session = try ReceiverSession(configuration: configuration, ssrc: ssrc, now: clock.monotonic())
        decoder = configuration.decode ? try H264Decoder() : nil
    }

    /// Listens to the transport and starts the session's clock. On the loop.
    func start() {
        started = true
        transport.onRTP = { [weak self] packet, _ in self?.received(rtp: packet) }
        transport.onRTCP = { [weak self] packets in self?.received(rtcp: packets) }
        pump()
    }

    private func received(rtp packet: UnsafeRawBufferPointer) {
        session.canSend = transport.peer != nil
        session.handle(rtp: packet, now: clock.monotonic())
        pump()
    }

    private func received(rtcp packets: [RTCPPacket]) {
        session.handle(rtcp: packets, now: clock.monotonic())
        pump()
    }

    /// Sends a PLI now (and keeps repeating it until a keyframe arrives).
    func requestKeyframe() {
        session.canSend = transport.peer != nil
        session.requestKeyframe(now: clock.monotonic())
        pump()
    }

    /// Stops receiving: what the session still holds is decoded, then the socket closes and `done` completes.
    func finish() {
        guard !tornDown else { return }
        session.finish(now: clock.monotonic())
        pump()
    }

    /// The statistics now.
    func snapshot() -> ReceiverStats {
        var stats = session.snapshot(now: clock.monotonic())
        stats.transport = transport.counters
        stats.srtpUnprotectFailures = transport.counters.srtpUnprotectFailures + transport.counters.srtcpUnprotectFailures
        stats.malformedPackets += transport.counters.malformedPackets
        stats.rtcpPacketsSent = transport.counters.rtcpPacketsSent
        return stats
    }

    // MARK: Outputs

    /// Takes every output of the session: access units to decode, RTCP to send, the next deadline; tears down once
    /// the session finished.
    private func pump() {
        guard !tornDown else { return }
        while let event = session.pollEvent() {
            switch event {
            case .decode(let received): decode(received)
            }
        }
        session.canSend = transport.peer != nil
        while let compound = session.pollTransmit() {
            try? transport.sendRTCP(compound)
        }
        if session.finished {
            tearDown()
        } else {
            schedule(session.pollTimeout())
        }
    }

    private func decode(_ received: H264ReceivedFrame) {
        let hasSlice = received.frame.nalUnits.contains { $0.type.isSlice }
        guard let decoder else {
            // Undecoded: a keyframe opens the stream, each frame with a slice counts as shown at the SPS's size.
            let now = clock.monotonic()
            if received.frame.isKeyframe {
                if let nal = received.frame.sequenceParameterSets.first, let sps = try? SequenceParameterSet(nalUnit: Array(nal)) {
                    undecodedSize = (sps.width, sps.height)
                }
                session.handle(keyframeDecoded: now)
            }
            if hasSlice {
                session.handle(pictureShown: undecodedSize, timestamp: received.rtpTimestamp, wallClock: clock.wall(), now: now)
            }
            return
        }
        if hasSlice { awaitingPicture.append(received) }
        let produced: Bool
        do {
            produced = try decoder.decode(received.frame.bytes, into: &picture)
        } catch {
            if hasSlice { awaitingPicture.removeLast() }
            session.handle(decodeFailed: clock.monotonic())
            return
        }
        if received.frame.isKeyframe { session.handle(keyframeDecoded: clock.monotonic()) }
        if produced { deliverPicture() }
    }

    /// Hands the decoder's latest picture out, paired with the oldest access unit still waiting for one.
    private func deliverPicture() {
        guard !awaitingPicture.isEmpty else { return }
        let source = awaitingPicture.removeFirst()
        session.handle(
            pictureShown: (picture.width, picture.height), timestamp: source.rtpTimestamp, wallClock: clock.wall(),
            now: clock.monotonic())
        configuration.onFrameDecoded?(picture, source)
    }

    /// Keeps one timer at the session's next deadline (a timer due no later is kept: firing early is harmless).
    private func schedule(_ deadline: MonotonicTime?) {
        guard started, let deadline else { return }
        if let current = timerDeadline, current <= deadline, timer != nil { return }
        timer?.cancel()
        timerDeadline = deadline
        // A deadline already past is served after at least a millisecond: never a busy loop.
        let wait = max(Duration.milliseconds(1), deadline - clock.monotonic())
        let weakSelf = NIOLoopBound(WeakReference(self), eventLoop: transport.eventLoop)
        timer = transport.eventLoop.scheduleTask(in: .nanoseconds(wait.saturatingNanoseconds)) {
            guard let driver = weakSelf.value.object else { return }
            driver.timer = nil
            driver.timerDeadline = nil
            driver.session.canSend = driver.transport.peer != nil
            driver.session.handleTimeout(now: driver.clock.monotonic())
            driver.pump()
        }
    }

    private func tearDown() {
        tornDown = true
        timer?.cancel()
        timer = nil
        // The picture OpenH264 still holds (High profile) comes out at the end of the stream.
        while !awaitingPicture.isEmpty, (try? decoder?.flush(into: &picture)) == true {
            deliverPicture()
        }
        let final = snapshot()
        transport.close()
        transport.onRTP = nil
        transport.onRTCP = nil
        done.succeed(final)
    }
}
