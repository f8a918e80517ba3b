import DTLS
import MediaTime
import NIOCore
import RTP
import STUN
import TURN
import Transport
import WebRTC

/// Runs one WebRTC peer's ICE and DTLS (a sans-IO `PeerTransport`) over a `UDPTransport`'s socket, so that the
/// sender and receiver stages above it see an ordinary SRTP flow.
///
/// ```
/// socket -> UDPTransport.interceptor -> PeerTransport.handleDatagram -> STUN / DTLS consumed here
///                                                                     -> SRTP / SRTCP from the selected pair: media
/// PeerTransport transmits -> UDPTransport.sendDatagram (never protected)
/// .connected(keys)        -> UDPTransport.secure(with:) + setPeer(mediaRoute): media starts flowing
/// .pathChanged            -> UDPTransport.setPeer(mediaRoute)
/// .closed(reason)         -> the owner's callback (tear the sender down)
/// UDPTransport.close      -> PeerTransport.releaseRelays first (TURN allocations released while the socket lives)
/// TURNStreams              -> transmits to TURN servers over TCP or TLS, their frames into handleDatagram(over:)
/// ```
/// On a relayed pair (a TURN candidate of the peer's `ICEGatherer`) the media route is the TURN server with the
/// channel bound to the peer: the transport frames each SRTP packet as ChannelData in place, and reads the peer's
/// SRTCP from inside ChannelData (`.relayedMedia`).
/// The transport must be bound with `holdMediaUntilSecured` so that nothing leaves in the clear before the keys
/// exist. Confined to the transport's loop, like the transport: create, start and close it there.
package final class WebRTCLink {
    /// What the link reports to its owner.
    package enum Event: Sendable, Equatable {
        /// ICE and DTLS are done; media flows to `remote`.
        case connected(remote: TransportAddress)
        /// ICE moved to another pair (or a restart proved the same one again).
        case pathChanged(remote: TransportAddress)
        /// The selected pair stopped answering consent checks: restart ICE (`restartICE`) or consent expires.
        case disconnected(remote: TransportAddress)
        /// A local candidate gathered after the start (see `PeerTransport.Event.candidate`): trickle it.
        case candidate(ICECandidate)
        /// The peer is gone (consent expired, ICE or DTLS failed, close_notify, or `close()`).
        case closed(PeerTransport.CloseReason)
        /// The keys could not be installed (a libsrtp2 error): the link closed.
        case securityFailed(String)
    }

    /// The transport the media flows over.
    package let transport: UDPTransport
    /// ICE and DTLS.
    package let peer: PeerTransport
    /// The connections to TURN servers reached over TCP or TLS, or nil.
    private let streams: TURNStreams?
    /// Whether retransmissions on the media SSRC may protect a sequence number again (NACK without RTX).
    private let allowRepeatTransmission: Bool
    /// The local candidate datagrams arrive on (a full agent pairs by it; nil for ICE-lite).
    private let local: TransportAddress?
    private let now: () -> MonotonicTime
    private let onEvent: (Event) -> Void
    private var timer: Scheduled<Void>?
    private var timerDeadline: MonotonicTime?
    private var closed = false
    /// The selected peer address once connected (datagrams refused from elsewhere are a stranger's).
    private var remote: TransportAddress?

    /// The time base PeerTransport runs on by default: the loop's monotonic clock.
    package static func monotonicNow() -> MonotonicTime {
        MonotonicTime(nanoseconds: Int64(clamping: NIODeadline.now().uptimeNanoseconds))
    }

    /// Creates the link. Call `start()` to take over the transport's inbound datagrams.
    /// - Parameters:
    ///   - transport: a transport bound with `holdMediaUntilSecured` (asserted).
    ///   - peer: ICE (lite or full) and DTLS for this peer.
    ///   - allowRepeatTransmission: see `TransportSecurity.allowRepeatTransmission`.
    ///   - local: for a full agent, the host candidate the socket is bound to (its checks are paired by it); nil
    ///     for ICE-lite. On a wildcard socket bound with `receivePacketInfo`, its port with the address each
    ///     datagram was sent to (one host candidate per interface).
    ///   - streams: the connections to the gatherer's TURN servers over TCP or TLS (closed with the link), or nil.
    ///   - now: the clock (tests inject one).
    ///   - onEvent: called on the loop.
    package init(
        transport: UDPTransport, peer: PeerTransport, allowRepeatTransmission: Bool, local: TransportAddress? = nil,
        streams: TURNStreams? = nil,
        now: @escaping () -> MonotonicTime = WebRTCLink.monotonicNow, onEvent: @escaping (Event) -> Void
    ) {
        precondition(!transport.isSecured, "WebRTCLink needs a transport that holds media until DTLS keys exist")
        self.transport = transport
        self.peer = peer
        self.streams = streams
        self.allowRepeatTransmission = allowRepeatTransmission
        self.local = local
        self.now = now
        self.onEvent = onEvent
    }

    deinit { timer?.cancel() }

    /// Takes over the transport's inbound datagrams and runs the first timers (a full agent starts its checks).
    package func start() {
        transport.eventLoop.preconditionInEventLoop()
        transport.interceptor = { [weak self] bytes, source in
            self?.received(bytes, from: source) ?? .drop
        }
        transport.willClose = { [weak self] in self?.releaseRelays() }
        streams?.onFrame = { [weak self] frame, server, over in self?.received(frame, from: server, over: over) }
        streams?.onFailure = { [weak self] server, over, reason in
            guard let self, !self.closed else { return }
            self.peer.connectionFailed(to: server, over: over, reason: reason, now: self.now())
            self.pump()
        }
        peer.handleTimeout(now: now())
        pump()
    }

    /// Sends close_notify, stops the timers and releases the transport's datagrams. Idempotent; does not close the
    /// transport (its owner does, after a BYE).
    package func close() {
        transport.eventLoop.preconditionInEventLoop()
        guard !closed else { return }
        peer.close()
        pump()
        finish()
    }

    /// Restarts ICE with new credentials (see `PeerTransport.restartICE`); its first checks leave at once.
    /// - Returns: whether the agent restarted (false once closed).
    package func restartICE(
        local: ICECredentials, remote: ICECredentials, localCandidates: [ICEFullAgent.LocalCandidate],
        remoteCandidates: [ICECandidate]
    ) -> Bool {
        transport.eventLoop.preconditionInEventLoop()
        guard !closed else { return false }
        let restarted = peer.restartICE(local: local, remote: remote, localCandidates: localCandidates,
                                        remoteCandidates: remoteCandidates, now: now())
        pump()
        return restarted
    }

    /// Candidates trickled by the peer (see `PeerTransport.addRemoteCandidate`); checks for them leave at once.
    package func addRemoteCandidates(_ candidates: [ICECandidate]) {
        transport.eventLoop.preconditionInEventLoop()
        guard !closed, !candidates.isEmpty else { return }
        let time = now()
        for candidate in candidates { peer.addRemoteCandidate(candidate, now: time) }
        pump()
    }

    /// Releases the peer's TURN allocations while the socket can still send (no close_notify).
    private func releaseRelays() {
        guard !closed else { return }
        peer.releaseRelays()
        while let transmit = peer.pollTransmit() { send(transmit) }
        streams?.close()
    }

    /// One transmit: to the socket, or to a TURN server's TCP or TLS connection.
    private func send(_ transmit: PeerTransport.Transmit) {
        transport.send(transmit.bytes, to: transmit.destination, over: transmit.transport, streams: streams)
    }

    /// One frame from a TURN server over TCP or TLS: the server's own message, or a peer's datagram in ChannelData.
    private func received(_ frame: [UInt8], from server: TransportAddress, over: TURNClientConfiguration.Transport) {
        guard !closed else { return }
        let verdict = peer.handleDatagram(frame, from: server, to: local, over: over, now: now())
        pump()
        guard !closed, case .relayedMedia(_, let range) = verdict,
              range.lowerBound >= 0, range.upperBound <= frame.count else { return }
        // The peer's SRTCP (or SRTP) from inside the ChannelData: one copy, the stream's frames are short-lived arrays.
        var buffer = ByteBufferAllocator().buffer(bytes: frame[range])
        transport.receiveRelayedMedia(&buffer, from: SocketAddress(server))
    }

    // MARK: Wiring

    private func received(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress) -> UDPTransport.InterceptVerdict {
        guard !closed, let address = TransportAddress(source) else { return .drop }
        // On a wildcard socket with packet info, the host candidate is the address the datagram was sent to.
        var destination = local
        if let local, let sentTo = transport.datagramDestination.flatMap(TransportAddress.init) {
            destination = TransportAddress(ip: sentTo.ip, port: local.port)
        }
        let verdict = peer.handleDatagram(bytes, from: address, to: destination, now: now())
        pump()
        switch verdict {
        case .consumed: return .consumed
        case .media: return closed ? .drop : .media
        case .relayedMedia(_, let range): return closed ? .drop : .relayedMedia(range)
        // Refused and not from the selected peer (or before there is one): a stranger's, as the plain sender counts.
        case .dropped: return address == remote ? .drop : .stranger
        }
    }

    /// Moves transmits to the socket, reacts to events, and re-arms the timer.
    private func pump() {
        while let transmit = peer.pollTransmit() { send(transmit) }
        while let event = peer.pollEvent() {
            switch event {
            case .connected(_, let remote, let keys):
                var security = TransportSecurity(suite: keys.suite, outboundKey: keys.localKey, inboundKey: keys.remoteKey)
                security.allowRepeatTransmission = allowRepeatTransmission
                do {
                    try transport.secure(with: security)
                } catch {
                    peer.close()
                    while let transmit = peer.pollTransmit() { send(transmit) }
                    finish()
                    onEvent(.securityFailed("\(error)"))
                    return
                }
                setRoute(remote: remote)
                onEvent(.connected(remote: remote))
            case .pathChanged(_, let remote):
                setRoute(remote: remote)
                onEvent(.pathChanged(remote: remote))
            case .disconnected(let remote):
                onEvent(.disconnected(remote: remote))
            case .candidate(let candidate):
                onEvent(.candidate(candidate))
            case .closed(let reason):
                finish()
                onEvent(.closed(reason))
                return
            }
        }
        armTimer()
    }

    /// Media to the selected peer: straight to it, or to its relay's server on the bound channel.
    private func setRoute(remote: TransportAddress) {
        let route = peer.mediaRoute ?? PeerTransport.MediaRoute(destination: remote, channel: nil)
        let sink = route.transport.isStream ? streams?.sink(for: route.destination, over: route.transport) : nil
        transport.setPeer(SocketAddress(route.destination), channel: route.channel, stream: sink)
        self.remote = remote
    }

    private func armTimer() {
        guard !closed else { return }
        let current = now()
        guard let deadline = peer.pollTimeout(now: current) else {
            timer?.cancel()
            timer = nil
            timerDeadline = nil
            return
        }
        if let timerDeadline, timer != nil, timerDeadline <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        let delay = deadline < current ? Duration.zero : deadline - current
        let loop = transport.eventLoop
        let weakSelf = NIOLoopBound(WeakBox(self), eventLoop: loop)
        timer = loop.scheduleTask(in: .nanoseconds(delay.saturatingNanoseconds)) {
            guard let self = weakSelf.value.object else { return }
            self.timer = nil
            self.timerDeadline = nil
            guard !self.closed else { return }
            self.peer.handleTimeout(now: self.now())
            self.pump()
        }
    }

    private func finish() {
        closed = true
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        transport.interceptor = { _, _ in .drop }
        transport.willClose = nil
        streams?.onFrame = nil
        streams?.onFailure = nil
        streams?.close()
    }
}

/// A weak reference, so that a timer does not keep its link alive.
private final class WeakBox<Object: AnyObject> {
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}
