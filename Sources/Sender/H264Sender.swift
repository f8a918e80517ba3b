import Codec
import H264
import NIOCore
import NIOPosix
import RTP
import SRTP
import Video

/// The component: takes frames from a source, encodes them with OpenH264, packetizes them per RFC 6184, protects
/// them with SRTP and sends them over UDP to one peer, while answering the peer's RTCP (keyframe requests, bitrate
/// limits, receiver reports) and the operator's control commands.
///
/// The stages are wired here, in one place:
/// ```
/// source -> encoder -> packetizer -> SRTP protect -> UDP        (tick, once per frame)
/// UDP -> peer filter -> SRTCP unprotect -> RTCP parse -> feedback (PLI/FIR -> throttle, REMB/TMMBR -> bitrate, RR -> RTT)
/// timer -> stats, Sender Report + SDES                            (once per report interval)
/// ```
/// All mutable state is confined to one event loop: the frame ticks, the RTCP reads, the control commands and the
/// timers all run there, so no stage needs a lock. Each stage owns its state: the packetizer the sequence numbers,
/// the throttle the keyframe window, the controller the bitrate.
public final class H264Sender: @unchecked Sendable {
    /// The configuration the sender was started with.
    public let configuration: SenderConfiguration
    /// The stream's SSRC.
    public let ssrc: UInt32
    /// The event loop all of the sender's work runs on.
    public let eventLoop: EventLoop

    /// Called once per report interval with fresh statistics (on the event loop).
    public var onReport: ((SenderStats) -> Void)?
    /// Called with every access unit sent, before it is packetized (on the event loop): `--save-annexb`, the demo.
    public var onFrameSent: ((EncodedFrame, _ sourceFrameIndex: Int) -> Void)?

    var state: PipelineState
    let rtpEndpoint: DatagramEndpoint
    let rtcpEndpoint: DatagramEndpoint?
    let peerRTP: SocketAddress
    let peerRTCP: SocketAddress
    let finished: EventLoopPromise<SenderStats>

    /// Binds the sockets, creates the encoder and the SRTP sessions, and returns a sender ready to `run()`.
    /// - Parameters:
    ///   - configuration: what to send and where.
    ///   - source: where frames come from.
    ///   - eventLoop: the loop to run on (a dedicated one by default).
    /// - Throws: `SenderError` for an invalid configuration or address; encoder, SRTP and socket errors.
    public init(configuration: SenderConfiguration, source: FrameSource, eventLoop: EventLoop? = nil) async throws {
        let loop = eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        self.eventLoop = loop
        self.configuration = configuration
        var rng = SystemRandomNumberGenerator()
        let ssrc = configuration.ssrc ?? UInt32.random(in: 1 ... .max, using: &rng)
        self.ssrc = ssrc
        self.state = try PipelineState(configuration: configuration, source: source, ssrc: ssrc, generator: &rng)
        do {
            peerRTP = try SocketAddress.makeAddressResolvingHost(configuration.peerHost, port: configuration.peerPort)
            peerRTCP = try SocketAddress.makeAddressResolvingHost(
                configuration.peerHost, port: configuration.rtcpMux ? configuration.peerPort : configuration.peerPort + 1)
        } catch {
            throw SenderError.invalidAddress("\(configuration.peerHost):\(configuration.peerPort)", "\(error)")
        }
        finished = loop.makePromise(of: SenderStats.self)

        let box = WeakBox<H264Sender>()
        let onDatagram: (SocketAddress, inout ByteBuffer) -> Void = { from, buffer in box.value?.received(from: from, &buffer) }
        let onError: (Error) -> Void = { _ in box.value?.state.stats.sendErrors += 1 }
        rtpEndpoint = try await DatagramEndpoint(
            host: configuration.localHost, port: configuration.localPort, eventLoop: loop,
            onDatagram: onDatagram, onError: onError)
        if configuration.rtcpMux {
            rtcpEndpoint = nil
        } else {
            let rtpPort = rtpEndpoint.localAddress?.port ?? configuration.localPort
            rtcpEndpoint = try await DatagramEndpoint(
                host: configuration.localHost, port: rtpPort + 1, eventLoop: loop,
                onDatagram: onDatagram, onError: onError)
        }
        box.value = self
    }

    /// The local RTP address (RTCP too when muxed).
    public var localAddress: SocketAddress? { rtpEndpoint.localAddress }

    /// Starts sending and waits until the source ends, the frame or duration limit is reached, or `stop()`.
    /// - Returns: the final statistics.
    /// - Throws: a source or encoder error that ended the stream.
    public func run() async throws -> SenderStats {
        eventLoop.execute { self.start() }
        return try await finished.futureResult.get()
    }

    /// Stops gracefully: sends an RTCP BYE, closes the sockets, and lets `run()` return. Safe from any thread.
    public func stop() {
        eventLoop.execute { self.finish(error: nil) }
    }

    /// Applies an operator command and answers it (on the event loop): the control endpoint calls this.
    /// - Parameter command: the command.
    /// - Returns: the reply.
    public func handle(_ command: ControlCommand) -> EventLoopFuture<ControlReply> {
        eventLoop.submit { self.apply(command) }
    }

    /// The RTP timestamp a frame was (or will be) sent with. On the event loop.
    /// - Parameter frame: an access unit from this sender (`onFrameSent`).
    public func rtpTimestamp(of frame: EncodedFrame) -> UInt32 {
        state.timestampMapper.timestamp(for: frame.timestamp).rawValue
    }

    /// The latest statistics.
    public func statistics() -> EventLoopFuture<SenderStats> {
        eventLoop.submit { self.snapshot() }
    }
}

/// A weak reference, to break the cycle between the sender and its socket callbacks.
final class WeakBox<T: AnyObject> {
    weak var value: T?
}
