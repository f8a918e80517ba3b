import Logging
import MediaTime
import NIOCore
import RTP
import Transport

/// One sender session fed by an encoder it shares with other sessions (each viewer of a WHEP server's
/// `FanOutEncoder`): its `SenderSessionDriver`, confined to its transport's loop, reached from any thread.
///
/// The session has no encoder of its own: finishing it leaves the shared one running. What the shared encoder
/// produces reaches it through `deliver(_:)`; its keyframe requests and rate wishes leave through the
/// `EncoderControl` it was given.
package final class SharedEncoderSession: Sendable {
    /// The loop the session lives on (its transport's).
    package let eventLoop: EventLoop
    private let driver: NIOLoopBound<SenderSessionDriver>

    /// Creates the session over `transport` and starts it. Call on `transport.eventLoop`.
    /// - Parameters:
    ///   - configuration: the session's stream (its payload type, SSRC, RTX and extension already negotiated).
    ///   - identity: the session's SSRCs, first sequence numbers and timestamp offset.
    ///   - payloadLimit: the largest RTP payload its packets may carry.
    ///   - transport: the session's transport (its peer set, SRTP installed or to be installed before media leaves).
    ///   - clock: the clocks.
    ///   - encoder: how the session reaches the shared encoder.
    ///   - events: the session's events.
    ///   - reports: the session's statistics, once per report interval.
    ///   - logger: where the session logs its events and its end.
    /// - Throws: packetizer or controller errors for a configuration that cannot work.
    package init(
        configuration: SenderConfiguration, identity: StreamIdentity, payloadLimit: RTPPayloadLimit,
        transport: UDPTransport, clock: MediaClock, encoder: any EncoderControl,
        events: AsyncStream<SenderEvent>.Continuation, reports: AsyncStream<SenderStats>.Continuation, logger: Logger
    ) throws {
        let driver = try SenderSessionDriver(
            configuration: configuration, identity: identity, payloadLimit: payloadLimit, transport: transport,
            clock: clock, encoder: encoder, ownEncoder: nil, events: events, reports: reports,
            logger: logger)
        driver.start()
        eventLoop = transport.eventLoop
        self.driver = NIOLoopBound(driver, eventLoop: transport.eventLoop)
    }

    /// Hands one output of the shared encoder to the session, on its loop. Safe from any thread.
    /// - Parameter output: the output.
    package func deliver(_ output: EncoderOutput) {
        eventLoop.execute { [driver] in driver.value.handle(output) }
    }

    /// Asks for a keyframe through the shared encoder's throttle. Call on `eventLoop`.
    /// - Parameter reason: why.
    package func requestKeyframeOnLoop(_ reason: SenderEvent.KeyframeReason) {
        driver.value.requestKeyframe(reason)
    }

    /// The operator's bitrate, validated by the session's controller and moved to the encoder. Call on `eventLoop`.
    /// - Parameter bitsPerSecond: the operator's target in bit/s.
    /// - Returns: the target applied, or a failure (nothing changed, or the session finished meanwhile).
    package func setOperatorBitrateOnLoop(_ bitsPerSecond: Int) -> EventLoopFuture<Int> {
        driver.value.setOperatorBitrate(bitsPerSecond)
    }

    /// The operator's bitrate, from any thread; a session that finished refuses it with `SenderError.finished`.
    /// - Parameter bitsPerSecond: the operator's target in bit/s.
    /// - Returns: the target applied, or a failure (nothing changed).
    package func setOperatorBitrate(_ bitsPerSecond: Int) -> EventLoopFuture<Int> {
        let loop = eventLoop
        return loop.flatSubmit { [driver] in
            driver.value.finished
                ? loop.makeFailedFuture(SenderError.finished) : driver.value.setOperatorBitrate(bitsPerSecond)
        }
    }

    /// The session's statistics now. Call on `eventLoop`.
    package func snapshotOnLoop() -> SenderStats { driver.value.snapshot() }

    /// Ends the stream (RTCP BYE) and leaves the transport open for its owner to send what must follow (DTLS
    /// close_notify) and close it. Idempotent. Call on `eventLoop`.
    package func finishOnLoop() {
        driver.value.finish(error: nil, closingTransport: false)
    }
}
