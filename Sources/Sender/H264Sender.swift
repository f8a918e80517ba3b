import Codec
import H264
import Logging
import MediaTime
import NIOCore
import NIOPosix
import RTP
import SRTP
import Synchronization
import Transport
import Video

/// The component an application embeds: push raw frames with their capture times; they are encoded with OpenH264
/// (on a thread of their own), packetized per RFC 6184, protected with SRTP and sent over UDP to one peer, while the
/// peer's RTCP (keyframe requests, bitrate limits, reception reports) is answered.
///
/// ```swift
/// let sender = try await H264Sender(configuration: configuration)
/// try sender.send(frame, captureTime: .now)          // from a camera callback: never blocks, newest frame wins
/// try await sender.setBitrate(800_000)
/// for await stats in sender.reports { print(stats.framesSent) }
/// let final = try await sender.finish()               // RTCP BYE, sockets closed
/// ```
///
/// Threads: `send` copies (or converts) the frame into a reused buffer on the caller's thread and returns; the
/// encoder runs on the sender's own thread; packetizing, SRTP and the sockets run on an I/O event loop. Every
/// method is safe from any thread or task.
public final class H264Sender: Sendable {
    /// The configuration the sender was started with.
    public let configuration: SenderConfiguration
    /// The stream's SSRC.
    public let ssrc: SSRC
    /// The retransmission stream's SSRC (RFC 4588), when RTX is on.
    public let rtxSSRC: SSRC?
    /// The FlexFEC stream's SSRC, when FEC is on.
    public let fecSSRC: SSRC?
    /// The media SSRC of each simulcast encoding, lowest first (`configuration.simulcast`); empty for one stream.
    public let simulcastSSRCs: [SSRC]
    /// The bound local RTP port (RTCP too when muxed, else the next port).
    public let localPort: Int
    /// Statistics once per report interval; the last element is the final statistics. Newest kept when not read.
    public let reports: AsyncStream<SenderStats>
    /// Keyframe requests, bitrate changes and dropped frames as they happen. Newest kept when not read.
    public let events: AsyncStream<SenderEvent>

    private let ioLoop: EventLoop
    private let core: NIOLoopBound<SenderSessionDriver>
    private let encoder: EncoderSet
    private let eventsContinuation: AsyncStream<SenderEvent>.Continuation
    private let finished = Atomic<Bool>(false)

    /// One frame interval, at most 100 ms: how long the BYE waits after the last frame.
    static func byeDelay(frameRate: Double) -> Duration {
        guard frameRate.isFinite, frameRate >= 10 else { return .milliseconds(100) }
        return .seconds(1) / frameRate
    }

    /// How long the BYE waits after the last frame: one frame interval, or with NACK and a known round trip long
    /// enough for the last frames' losses to be repaired (two NACK rounds: 2 RTT + 100 ms, at most 1 s). The receiver
    /// ends at the BYE; sent at once, every packet of the last round trip that was lost stayed lost, with every frame
    /// after it (at 150 ms each way and 5 % loss, 13 frames at the end of each run, 0.7 % of a minute).
    static func finalDelay(frameRate: Double, nack: Bool, roundTripTime: Double?) -> Duration {
        let bye = byeDelay(frameRate: frameRate)
        guard nack, let roundTripTime, roundTripTime.isFinite, roundTripTime > 0 else { return bye }
        let repair = Duration.milliseconds(Int64(min(roundTripTime, 1) * 2_000) + 100)
        return max(bye, min(repair, maximumRepairLinger))
    }

    /// The longest the BYE waits for the last frames' repairs.
    static let maximumRepairLinger = Duration.seconds(1)

    /// How many events and reports are kept for a slow reader.
    static let streamBuffer = 256

    /// Validates the configuration, binds the socket(s), creates the encoder and its thread, and starts the report
    /// timer. The sender is live when this returns: push frames with `send`.
    /// - Parameters:
    ///   - configuration: what to send and where.
    ///   - logger: where the sender logs (swift-log): its start and end at `info`, resolution switches at `info`,
    ///     failures at `warning` and `error`, rate decisions and keyframe requests at `debug`; the stream's SSRC in
    ///     the metadata, never a key. Nil logs to `Logger(label: "rtc-h264.sender")`, the process's logging system.
    /// - Throws: `SenderError` for an invalid configuration or address; encoder, SRTP and socket errors (nothing is
    ///   left open then).
    public convenience init(configuration: SenderConfiguration, logger: Logger? = nil) async throws {
        let origin = ContinuousClock.now
        try await self.init(
            configuration: configuration, clock: .system(origin: origin), origin: origin, ioLoop: nil,
            // Simulcast layers keep their sizes (each is one rung of a ladder already).
            makeEncoder: { [preference = configuration.simulcast.count > 1
                            ? .maintainResolution : configuration.degradationPreference] in
                try AdaptiveH264Encoder(configuration: $0, preference: preference)
            }, logger: logger)
    }

    /// Creates a sender with injected clocks and loop (tests).
    /// - Parameters:
    ///   - configuration: what to send and where.
    ///   - clock: the clocks.
    ///   - origin: the `ContinuousClock` instant that `clock.monotonic` counts from (capture times are mapped with it).
    ///   - ioLoop: the I/O loop (default: one of NIO's process-wide loops; encoding never runs there).
    ///   - makeEncoder: creates the encoder, on the encoder's thread.
    ///   - prepared: a transport bound already (WebRTC: its peer and keys come later from ICE and DTLS); the sender
    ///     then ignores the configuration's addresses and security, runs on the transport's loop, and closes it on
    ///     `finish()`. Packets leave room for the largest SRTP trailer.
    ///   - logger: where the sender logs; nil: `Logger(label: "rtc-h264.sender")`.
    package init(
        configuration: SenderConfiguration, clock: MediaClock, origin: ContinuousClock.Instant, ioLoop: EventLoop?,
        makeEncoder: @escaping @Sendable (EncoderConfiguration) throws -> any FrameEncoder,
        transport prepared: NIOLoopBound<UDPTransport>? = nil, logger: Logger? = nil
    ) async throws {
        let logger = logger ?? Logger(label: "rtc-h264.sender")
        try configuration.validate()
        try configuration.validateSimulcastIdentification()
        var rng = SystemRandomNumberGenerator()
        var identity = StreamIdentity.draw(for: configuration, using: &rng)
        // Simulcast: one stream per encoding, lowest first; the first keeps the configured SSRCs, every SSRC differs.
        var additionalStreams: [StreamIdentity] = []
        let encodings = configuration.simulcast.count > 1 ? configuration.simulcast : []
        if let first = encodings.first {
            identity.rid = first.rid
            additionalStreams = StreamIdentity.drawAdditional(
                rids: encodings.dropFirst().map(\.rid), after: identity, rtx: configuration.rtx != nil, using: &rng)
        }
        let ssrc = identity.ssrc
        var configuration = configuration
        configuration.ssrc = ssrc
        configuration.rtx?.ssrc = identity.rtxSSRC
        configuration.fec?.ssrc = identity.fecSSRC
        var peer: SocketAddress?
        if prepared == nil {
            do {
                peer = try SocketAddress.makeAddressResolvingHost(configuration.peerHost, port: configuration.peerPort)
            } catch {
                throw SenderError.invalidAddress("\(configuration.peerHost):\(configuration.peerPort)", "\(error)")
            }
        }
        var limit = configuration.payloadLimit
        if prepared != nil { limit.srtpTrailerSize = SRTPSuite.allCases.map(\.rtpTrailerLength).max() ?? 16 }
        let ioLoop = prepared?.eventLoop ?? ioLoop ?? MultiThreadedEventLoopGroup.singleton.next()

        var transportConfiguration = TransportConfiguration(
            localHost: configuration.localHost, localPort: configuration.localPort, peer: peer,
            rtcpMux: configuration.rtcpMux,
            security: configuration.security.map {
                var security = TransportSecurity(suite: $0.suite, outboundKey: $0.key, inboundKey: $0.remoteKey ?? $0.key)
                // Retransmissions on the media SSRC protect a sequence number again (RFC 3711 allows it for them).
                security.allowRepeatTransmission = configuration.nack && configuration.rtx == nil
                return security
            })
        transportConfiguration.peerRTCPPort = configuration.peerRTCPPort
        transportConfiguration.acceptPlainRTCP = configuration.acceptPlainRTCP
        let transport: NIOLoopBound<UDPTransport>
        if let prepared {
            transport = prepared
        } else {
            transport = try await UDPTransport.bind(configuration: transportConfiguration, eventLoop: ioLoop)
        }

        let (events, eventsContinuation) = AsyncStream.makeStream(
            of: SenderEvent.self, bufferingPolicy: .bufferingNewest(Self.streamBuffer))
        let (reports, reportsContinuation) = AsyncStream.makeStream(
            of: SenderStats.self, bufferingPolicy: .bufferingNewest(Self.streamBuffer))
        // The encoder reaches the session's driver through this box, filled once the driver exists.
        let coreBox = NIOLoopBoundBox.makeEmptyBox(valueType: SenderSessionDriver.self, eventLoop: ioLoop)
        let encoder: EncoderSet
        var components: [EncoderComponent] = []
        do {
            for (index, layerConfiguration) in configuration.encoderConfigurations.enumerated() {
                components.append(try await EncoderComponent(
                    configuration: layerConfiguration, clock: clock, origin: origin, makeEncoder: makeEncoder
                ) { output in
                    ioLoop.execute { coreBox.value?.handle(output, stream: index) }
                })
            }
            encoder = EncoderSet(
                components: components, layers: encodings.map(\.layer), clock: clock, loop: ioLoop)
        } catch {
            for component in components { await component.stop() }
            try? await ioLoop.submit { transport.value.close() }.get()
            throw error
        }
        do {
            let coreConfiguration = configuration  // constants: the closure runs on the I/O loop
            let payloadLimit = limit
            let coreIdentity = identity
            let coreStreams = additionalStreams
            core = try await ioLoop.submit {
                let core = try SenderSessionDriver(
                    configuration: coreConfiguration, identity: coreIdentity, additionalStreams: coreStreams,
                    payloadLimit: payloadLimit, transport: transport.value, clock: clock, encoder: encoder,
                    ownEncoder: encoder, events: eventsContinuation, reports: reportsContinuation, logger: logger)
                coreBox.value = core
                core.start()
                return NIOLoopBound(core, eventLoop: ioLoop)
            }.get()
        } catch {
            try? await ioLoop.submit { transport.value.close() }.get()
            await encoder.stop()
            throw error
        }
        self.encoder = encoder
        self.configuration = configuration
        self.ssrc = ssrc
        self.simulcastSSRCs = encodings.isEmpty ? [] : ([identity] + additionalStreams).map(\.ssrc)
        self.rtxSSRC = configuration.rtx?.ssrc
        self.fecSSRC = configuration.fec?.ssrc
        self.ioLoop = ioLoop
        self.events = events
        self.eventsContinuation = eventsContinuation
        self.reports = reports
        self.localPort = try await ioLoop.submit { transport.value.localPort }.get()
        let encoding = configuration.encoder
        logger.info("sender started", metadata: [
            "ssrc": "\(ssrc.rawValue)", "local_port": "\(localPort)",
            "peer": "\(prepared == nil ? "\(configuration.peerHost):\(configuration.peerPort)" : "the prepared transport's")",
            "size": "\(encoding.width)x\(encoding.height)", "fps": "\(encoding.frameRate)",
            "target_bps": "\(encoding.targetBitrate)", "profile_level_id": "\(encoding.profileLevelID)",
            "srtp": "\(configuration.security.map { "\($0.suite)" } ?? "off")",
        ])
    }

    deinit {
        // Dropped without `finish()`: BYE, sockets closed, the encoder thread stopped.
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        encoder.close()
        let core = self.core, encoder = self.encoder
        ioLoop.execute { core.value.finish(error: nil) }
        Task { await encoder.stop() }
    }

    // MARK: Frames

    /// The frame rate the encoder plans for (frames per second); producers pacing a file or a pattern follow it.
    public var frameRate: Double { encoder.frameRate }

    /// Pushes a borrowed I420 picture (padded rows honoured). It is copied before this returns; if the encoder is still
    /// busy with the previous frame, the newest waiting frame wins and the older one is counted in `framesDropped`.
    /// A picture of another size than the encoder's is centre-cropped and scaled by the encoder.
    /// - Parameters:
    ///   - view: the picture, read only during the call.
    ///   - captureTime: when it was captured, on `ContinuousClock` (RTP timestamps and Sender Reports follow it).
    /// - Throws: `SenderError.finished` once the sender has finished.
    public func send(_ view: I420FrameView, captureTime: ContinuousClock.Instant = .now) throws {
        if try encoder.send(view, captureTime: captureTime) { eventsContinuation.yield(.frameDropped(.encoderBusy)) }
    }

    /// Pushes an owned frame in I420, NV12 or BGRA (converted to I420 with libyuv on the caller's thread), as
    /// `send(_:captureTime:)` for views.
    /// - Parameters:
    ///   - frame: the frame.
    ///   - captureTime: when it was captured, on `ContinuousClock`.
    /// - Throws: `VideoError` for a frame that cannot be converted, `SenderError.finished`.
    public func send(_ frame: VideoFrame, captureTime: ContinuousClock.Instant = .now) throws {
        if try encoder.send(frame, captureTime: captureTime) { eventsContinuation.yield(.frameDropped(.encoderBusy)) }
    }

    /// Pushes a frame written straight into the sender's reused buffer (no copy: a file reader or a renderer fills
    /// it), as `send(_:captureTime:)` for views.
    /// - Parameters:
    ///   - captureTime: when it was captured, on `ContinuousClock`.
    ///   - fill: writes the picture (it may replace the buffer with one of another size).
    /// - Throws: what `fill` throws (nothing is sent then), `SenderError.finished`.
    public func send(captureTime: ContinuousClock.Instant = .now, fill: (inout I420Frame) throws -> Void) throws {
        if try encoder.send(captureTime: captureTime, fill: fill) { eventsContinuation.yield(.frameDropped(.encoderBusy)) }
    }

    /// Waits until the encoder has taken the last frame pushed: a producer that must not lose frames (a file sent as
    /// fast as possible) calls this before each `send`.
    public func waitForEncoder() async {
        await encoder.waitForEncoder()
    }

    /// Blocks the calling thread until the encoder has taken the last frame pushed (for a producer thread of its own).
    public func waitForEncoderBlocking() {
        encoder.waitForEncoderBlocking()
    }

    /// Sends every frame of a sequence without dropping any (each waits for the encoder), then finishes.
    /// - Parameter frames: frames with their capture times.
    /// - Returns: the final statistics.
    /// - Throws: what the sequence throws, frame conversion errors, or the error that ended the stream.
    public func run<S: AsyncSequence>(frames: S) async throws -> SenderStats where S.Element == CapturedFrame {
        do {
            for try await captured in frames {
                await waitForEncoder()
                try send(captured.frame, captureTime: captured.captureTime)
            }
        } catch SenderError.finished {
            // The stream ended underneath (a fatal error): finish() reports why.
        }
        return try await finish()
    }

    // MARK: Control

    /// Sets the application's target bitrate; the encoder's ceiling follows at 1.5x. The peer's REMB/TMMBR limits
    /// still cap it. Any value from the minimum to the level's maximum is accepted, whatever the current rate.
    /// - Parameter bitsPerSecond: the target in bit/s.
    /// - Returns: the effective target now in force, in bit/s.
    /// - Throws: `SenderError.invalidRate` (nothing changed), `SenderError.finished`.
    @discardableResult
    public func setBitrate(_ bitsPerSecond: Int) async throws -> Int {
        let core = self.core
        return try await ioLoop.flatSubmit {
            core.value.finished ? core.eventLoop.makeFailedFuture(SenderError.finished) : core.value.setOperatorBitrate(bitsPerSecond)
        }.get()
    }

    /// Changes the frame rate the encoder's rate control plans for (and producers pace at).
    /// - Parameter framesPerSecond: 1 to 60.
    /// - Throws: `SenderError.invalidRate` (nothing changed).
    public func setFrameRate(_ framesPerSecond: Double) async throws {
        try await encoder.setFrameRate(framesPerSecond)
    }

    /// Changes what the encoder gives up first when the bitrate cannot carry the input at full quality (the
    /// configuration's `degradationPreference` is the one the sender started with). Applied on the encoder's thread
    /// before the next frame: no IDR unless the size in use is one the new preference does not allow, in which case
    /// the next frame is an IDR at the size it allows (a `resolutionChanged` event with reason
    /// `preference-changed`).
    /// - Parameter preference: the new preference.
    /// - Throws: `SenderError.finished` once the sender has finished; `SenderError.invalidConfiguration` when the
    ///   encoder does not adapt its size.
    public func setDegradationPreference(_ preference: DegradationPreference) async throws {
        guard !finished.load(ordering: .acquiring) else { throw SenderError.finished }
        try await encoder.setDegradationPreference(preference)
    }

    /// Asks for a keyframe (served within the keyframe throttle's window, like a PLI).
    public func requestKeyframe() {
        let core = self.core
        ioLoop.execute { core.value.requestKeyframe(.application) }
    }

    /// The statistics now.
    public func statistics() async -> SenderStats {
        let core = self.core
        return (try? await ioLoop.submit { core.value.snapshot() }.get()) ?? SenderStats()
    }

    /// Ends the stream because of `error` (the WebRTC transport closed): BYE, sockets closed; `send` throws
    /// `SenderError.finished` from now on and `finish()` throws `error`.
    package func end(with error: SenderError) {
        encoder.close()
        let core = self.core
        ioLoop.execute { _ = core.value.finish(error: error) }
    }

    /// Ends the stream: the frame still waiting is encoded and sent, then an RTCP BYE; sockets closed, the encoder
    /// thread stopped, `reports` and `events` finished. Safe to call more than once.
    /// - Returns: the final statistics.
    /// - Throws: the error that ended the stream early, if one did.
    @discardableResult
    public func finish() async throws -> SenderStats {
        let first = !finished.exchange(true, ordering: .acquiringAndReleasing)
        let encoder = self.encoder, core = self.core
        if first {
            await encoder.drain()
            // The BYE leaves a frame interval after the last frame, as the next frame would have: a receiver that
            // reads RTP and RTCP from two sockets (ffmpeg) ends at the BYE and must have the last frame by then.
            // With NACK it waits for the last frames' repairs too (the I/O loop answers NACKs meanwhile).
            let roundTripTime = try? await ioLoop.submit { core.value.snapshot().roundTripTime }.get()
            try? await Task.sleep(for: Self.finalDelay(
                frameRate: frameRate, nack: configuration.nack, roundTripTime: roundTripTime ?? nil))
        }
        let (stats, failure) = try await ioLoop.submit {
            (core.value.finish(error: nil), core.value.failure)
        }.get()
        if first { await encoder.stop() }
        if let failure { throw failure }
        return stats
    }
}

/// A frame with its capture time, for `H264Sender.run(frames:)`.
public struct CapturedFrame: Sendable {
    /// The picture.
    public var frame: VideoFrame
    /// When it was captured, on `ContinuousClock`.
    public var captureTime: ContinuousClock.Instant

    /// Creates a captured frame.
    /// - Parameters:
    ///   - frame: the picture.
    ///   - captureTime: when it was captured.
    public init(frame: VideoFrame, captureTime: ContinuousClock.Instant) {
        self.frame = frame
        self.captureTime = captureTime
    }
}

extension H264Sender: FramePumpTarget {
    /// `SenderError.finished`: the stream ended.
    public func endsStream(_ error: any Error) -> Bool {
        if case SenderError.finished = error { return true }
        return false
    }
}
