import Codec
import H264
import NIOCore
import NIOPosix
import RTP
import SRTP
import Video

/// The receiving end: SRTP unprotect, RFC 6184 depacketizing, OpenH264 decoding of whole access units, RTCP back to
/// the sender (Receiver Reports about once a second, and a PLI when it sees loss or an undecodable frame, repeated about
/// every second until a keyframe arrives so that a lost PLI cannot freeze a long GOP).
///
/// Everything runs on one event loop, like the sender.
public final class H264Receiver: @unchecked Sendable {
    /// The configuration.
    public let configuration: ReceiverConfiguration
    /// The receiver's own SSRC (for its RTCP).
    public let ssrc: UInt32
    /// The event loop.
    public let eventLoop: EventLoop

    /// Called for every access unit received (before decoding), on the event loop.
    public var onAccessUnit: ((H264ReceivedFrame) -> Void)?
    /// Called for every decoded picture, on the event loop.
    public var onFrameDecoded: ((I420Frame, H264ReceivedFrame) -> Void)?

    let rtpEndpoint: DatagramEndpoint
    let rtcpEndpoint: DatagramEndpoint?
    var state: ReceiverState
    let finished: EventLoopPromise<ReceiverStats>

    /// Binds the sockets and prepares the decoder.
    /// - Parameters:
    ///   - configuration: where to listen and what to do.
    ///   - eventLoop: the loop to run on.
    /// - Throws: socket, SRTP and decoder errors.
    public init(configuration: ReceiverConfiguration, eventLoop: EventLoop? = nil) async throws {
        let loop = eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        self.eventLoop = loop
        self.configuration = configuration
        var rng = SystemRandomNumberGenerator()
        ssrc = UInt32.random(in: 1 ... .max, using: &rng)
        state = try ReceiverState(configuration: configuration)
        finished = loop.makePromise(of: ReceiverStats.self)
        let box = WeakBox<H264Receiver>()
        let onDatagram: (SocketAddress, inout ByteBuffer) -> Void = { from, buffer in box.value?.received(from: from, &buffer) }
        let onError: (Error) -> Void = { _ in }
        rtpEndpoint = try await DatagramEndpoint(
            host: configuration.listenHost, port: configuration.listenPort, eventLoop: loop, receiveBufferSize: 4 << 20,
            onDatagram: onDatagram, onError: onError)
        if configuration.rtcpMux {
            rtcpEndpoint = nil
        } else {
            rtcpEndpoint = try await DatagramEndpoint(
                host: configuration.listenHost, port: (rtpEndpoint.localAddress?.port ?? configuration.listenPort) + 1,
                eventLoop: loop, onDatagram: onDatagram, onError: onError)
        }
        box.value = self
        // Receive from the moment the socket is bound: a stream's first keyframe must not be lost to the gap
        // between `init` and `run()`.
        loop.execute { self.start() }
    }

    /// The bound RTP address.
    public var localAddress: SocketAddress? { rtpEndpoint.localAddress }

    /// Waits until the frame or duration limit, the sender's BYE, the idle timeout, or `stop()` (the receiver
    /// receives from the moment it is created).
    /// - Returns: the final statistics.
    /// - Throws: nothing today; reserved for fatal socket errors.
    public func run() async throws -> ReceiverStats {
        try await finished.futureResult.get()
    }

    /// Stops receiving. Safe from any thread.
    public func stop() {
        eventLoop.execute { self.finish() }
    }

    /// Sends a PLI now (and keeps repeating it until a keyframe arrives). Safe from any thread.
    public func requestKeyframe() {
        eventLoop.execute {
            self.state.needKeyframe = true
            self.sendFeedback(pli: true)
        }
    }

    /// The statistics now.
    public func statistics() -> EventLoopFuture<ReceiverStats> {
        eventLoop.submit { self.snapshot() }
    }
}
