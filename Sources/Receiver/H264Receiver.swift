import MediaTime
import NIOCore
import NIOPosix
import RTP
import Transport

/// The receiving end: SRTP unprotect, RFC 6184 depacketizing, OpenH264 decoding of whole access units, RTCP back to
/// the sender (Receiver Reports about once a report interval, and a PLI on loss or an undecodable frame, repeated
/// about every interval until a keyframe arrives so that a lost PLI cannot freeze a long GOP).
///
/// It receives from the moment it is created; `run()` waits for the end. Its work runs on one I/O event loop, on the
/// same `UDPTransport` the sender uses.
public final class H264Receiver: Sendable {
    /// The configuration.
    public let configuration: ReceiverConfiguration
    /// The receiver's own SSRC (for its RTCP).
    public let ssrc: SSRC
    /// The bound local RTP port.
    public let localPort: Int

    private let eventLoop: EventLoop
    private let core: NIOLoopBound<ReceiverSessionDriver>
    private let done: EventLoopFuture<ReceiverStats>

    /// Binds the socket(s), prepares the decoder and starts receiving.
    /// - Parameter configuration: where to listen and what to do.
    /// - Throws: `ReceiverError`, socket, SRTP and decoder errors (nothing is left open then).
    public convenience init(configuration: ReceiverConfiguration) async throws {
        try await self.init(configuration: configuration, eventLoop: nil)
    }

    /// Creates a receiver on a given loop (tests).
    package convenience init(configuration: ReceiverConfiguration, eventLoop: EventLoop?) async throws {
        try configuration.validate()
        let loop = eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        let transportConfiguration = TransportConfiguration(
            localHost: configuration.listenHost, localPort: configuration.listenPort, peer: nil,
            rtcpMux: configuration.rtcpMux,
            security: configuration.security.map {
                TransportSecurity(suite: $0.suite, outboundKey: $0.key ?? $0.remoteKey, inboundKey: $0.remoteKey)
            })
        let transport = try await UDPTransport.bind(configuration: transportConfiguration, eventLoop: loop)
        try await self.init(configuration: configuration, transport: transport)
    }

    /// Receives over a transport that is already bound, and secured or about to be by its owner (a WHEP client's
    /// `WebRTCLink`: the configuration's address, `rtcpMux` and `security` are not used). The receiver closes the
    /// transport when it ends.
    /// - Parameters:
    ///   - configuration: what to do with the stream.
    ///   - transport: the transport, on its loop.
    /// - Throws: `ReceiverError`, decoder errors (the transport is closed then).
    package init(configuration: ReceiverConfiguration, transport: NIOLoopBound<UDPTransport>) async throws {
        try configuration.validate()
        let loop = transport.eventLoop
        var rng = SystemRandomNumberGenerator()
        let ssrc = SSRC(UInt32.random(in: 1 ... .max, using: &rng))
        let origin = ContinuousClock.now
        let clock = MediaClock.system(origin: origin)
        let promise = loop.makePromise(of: ReceiverStats.self)
        do {
            core = try await loop.submit {
                let core = try ReceiverSessionDriver(
                    configuration: configuration, ssrc: ssrc, transport: transport.value, clock: clock, done: promise)
                core.start()
                return NIOLoopBound(core, eventLoop: loop)
            }.get()
        } catch {
            try? await loop.submit { transport.value.close() }.get()
            promise.fail(error)
            throw error
        }
        self.configuration = configuration
        self.ssrc = ssrc
        self.eventLoop = loop
        self.done = promise.futureResult
        self.localPort = try await loop.submit { transport.value.localPort }.get()
    }

    deinit {
        let core = self.core
        eventLoop.execute { core.value.finish() }
    }

    /// Waits until the frame or duration limit, the sender's BYE, the idle timeout, or `stop()`.
    /// - Returns: the final statistics.
    public func run() async throws -> ReceiverStats {
        try await done.get()
    }

    /// Stops receiving. Safe from any thread.
    public func stop() {
        let core = self.core
        eventLoop.execute { core.value.finish() }
    }

    /// Sends a PLI now (and keeps repeating it until a keyframe arrives). Safe from any thread.
    public func requestKeyframe() {
        let core = self.core
        eventLoop.execute { core.value.requestKeyframe() }
    }

    /// The statistics now.
    public func statistics() async -> ReceiverStats {
        let core = self.core
        return (try? await eventLoop.submit { core.value.snapshot() }.get()) ?? ReceiverStats()
    }
}
