import MediaTime
import NIOCore
import STUN
import Transport
import WebRTC

/// Runs an `ICEGatherer` over a `UDPTransport`'s socket until every server has answered or been given up, so that
/// the offer can carry its candidates (a client that does not trickle). The TURN allocations stay alive: the
/// gatherer that comes back is handed to a `PeerTransport`, whose `WebRTCLink` takes the socket over.
///
/// ```
/// socket -> UDPTransport.interceptor -> ICEGatherer.handle (datagrams from the servers; anything else dropped)
/// ICEGatherer transmits -> UDPTransport.sendDatagram, or TURNStreams for a server over TCP or TLS
/// TURNStreams frames and failures -> ICEGatherer.handle / connectionFailed;  ICEGatherer.pollTimeout -> one timer
/// ```
/// Confined to the transport's loop.
package final class CandidateGathering {
    private let transport: UDPTransport
    private let streams: TURNStreams?
    private let now: () -> MonotonicTime
    private var gatherer: ICEGatherer
    private let done: EventLoopPromise<ICEGatherer>
    private var timer: Scheduled<Void>?
    private var finished = false

    private init(gatherer: ICEGatherer, transport: UDPTransport, streams: TURNStreams?, now: @escaping () -> MonotonicTime) {
        self.gatherer = gatherer
        self.transport = transport
        self.streams = streams
        self.now = now
        done = transport.eventLoop.makePromise()
    }

    /// Gathers from every server `gatherer` has (added before the call).
    /// - Parameters:
    ///   - gatherer: The gatherer, its servers added.
    ///   - transport: The socket's transport (its interceptor is taken over until gathering ends, then drops all).
    ///   - streams: The connections to the servers reached over TCP or TLS (on the transport's loop), or nil.
    ///   - now: The clock (tests inject one).
    /// - Returns: The gatherer when every server answered or timed out: its `candidates` and `failures`.
    package static func run(
        _ gatherer: ICEGatherer, on transport: NIOLoopBound<UDPTransport>, streams: NIOLoopBound<TURNStreams>? = nil,
        now: @escaping @Sendable () -> MonotonicTime = WebRTCLink.monotonicNow
    ) async throws -> ICEGatherer {
        let loop = transport.eventLoop
        let future = try await loop.submit {
            let run = CandidateGathering(gatherer: gatherer, transport: transport.value, streams: streams?.value, now: now)
            run.start()
            return run.done.futureResult
        }.get()
        return try await future.get()
    }

    private func start() {
        transport.interceptor = { [self] bytes, source in
            guard !finished, let address = TransportAddress(source) else { return .drop }
            _ = gatherer.handle(bytes, from: address, now: now())
            pump()
            return .consumed
        }
        streams?.onFrame = { [self] frame, server, over in
            guard !finished else { return }
            _ = gatherer.handle(frame, from: server, over: over, now: now())
            pump()
        }
        streams?.onFailure = { [self] server, over, reason in
            guard !finished else { return }
            gatherer.connectionFailed(to: server, over: over, reason: reason)
            pump()
        }
        gatherer.handleTimeout(now: now())
        pump()
    }

    private func pump() {
        while let transmit = gatherer.pollTransmit() {
            transport.send(transmit.bytes, to: transmit.destination, over: transmit.transport, streams: streams)
        }
        while gatherer.pollEvent() != nil {}  // the candidates and failures stay readable on the gatherer
        guard !gatherer.isComplete else {
            finish()
            return
        }
        timer?.cancel()
        guard let deadline = gatherer.pollTimeout() else { return }
        let current = now()
        let delay = deadline < current ? Duration.zero : deadline - current
        let bound = NIOLoopBound(self, eventLoop: transport.eventLoop)
        timer = transport.eventLoop.scheduleTask(in: .nanoseconds(delay.saturatingNanoseconds)) {
            let run = bound.value
            run.timer = nil
            guard !run.finished else { return }
            run.gatherer.handleTimeout(now: run.now())
            run.pump()
        }
    }

    private func finish() {
        guard !finished else { return }
        finished = true
        timer?.cancel()
        timer = nil
        // Until a WebRTCLink takes the socket: nothing is media yet.
        transport.interceptor = { _, _ in .drop }
        streams?.onFrame = nil
        streams?.onFailure = nil
        done.succeed(gatherer)
    }
}
