public import DTLS
public import MediaTime
public import STUN
public import TURN

/// One WebRTC peer's transport, sans-IO: ICE (lite or full) and DTLS-SRTP wired together behind the RFC 7983
/// demultiplexer, so that the owner of the socket feeds datagrams and time in and gets datagrams, deadlines and the
/// SRTP keys out.
///
/// - STUN goes to the ICE agent. When ICE selects a pair and we are the DTLS client, the handshake starts.
/// - DTLS is accepted only from addresses ICE authenticated (a peer filter: RFC 8445 section 7.3, RFC 8827);
///   others are dropped and counted.
/// - SRTP and SRTCP from the selected address are handed back as `.media` for the caller to unprotect with the keys
///   of `.connected`; from anywhere else they are dropped.
/// - `.closed` reports consent expiry (RFC 7675), ICE failure, a DTLS failure (fingerprint mismatch included), the
///   peer's close_notify, the handshake timeout, or the loss of the TURN relay the selected pair runs through.
/// - With an `ICEGatherer` (a full agent's STUN and TURN servers): datagrams from its servers go to it first; what a
///   peer sends through a relay is handled as a datagram from that peer to the relayed candidate, and what ICE and
///   DTLS send from a relayed candidate is wrapped for its server. A relayed selected pair gets a TURN channel, and
///   `.connected` waits for it: media then goes to `mediaRoute` (the server, as ChannelData on that channel).
///
/// ```swift
/// let transport = PeerTransport(agent: .lite(agent), dtls: endpoint)
/// switch transport.handleDatagram(bytes, from: source, to: nil, now: now) {
/// case .media(.rtcp): try inbound.unprotectRTCP(&buffer, length: count) ...
/// default: break
/// }
/// while let transmit = transport.pollTransmit() { socket.send(transmit.bytes, to: transmit.destination) }
/// ```
/// Not `Sendable`: one owner (one event loop) drives it, like the `DTLSEndpoint` it holds.
public final class PeerTransport {
    /// The ICE agent: lite for a server (WHEP), full for a client (WHIP).
    public enum Agent: Sendable {
        /// An ICE-lite agent on one socket.
        case lite(ICELiteAgent)
        /// A full agent, possibly on several sockets.
        case full(ICEFullAgent)
    }

    /// What happened to a datagram.
    public enum Input: Hashable, Sendable {
        /// STUN or DTLS, consumed here.
        case consumed
        /// SRTP (`.rtp`) or SRTCP (`.rtcp`) from the selected address: unprotect it with the negotiated keys.
        case media(DatagramKind)
        /// SRTP or SRTCP from the selected peer through its TURN relay: the packet is these bytes of the datagram
        /// (inside ChannelData or a Data indication); unprotect them in place.
        case relayedMedia(DatagramKind, Range<Int>)
        /// Dropped: not from an address ICE authenticated, not yet connected, or not a WebRTC datagram.
        case dropped
    }

    /// Why the transport closed.
    public enum CloseReason: Hashable, Sendable {
        /// RFC 7675 consent expired.
        case consentExpired
        /// ICE found no working pair before its timeout.
        case iceFailed
        /// The DTLS handshake failed (a fingerprint mismatch is `.fingerprintMismatch`).
        case dtlsFailed(DTLSError)
        /// The DTLS handshake did not finish within `handshakeTimeout`.
        case dtlsTimeout
        /// The peer sent close_notify.
        case closedByPeer
        /// `close()` was called.
        case closedLocally
        /// The TURN relay of the selected pair failed: its allocation was lost, or its channel was refused.
        case relayFailed(String)
    }

    /// Where media goes on the selected path.
    public struct MediaRoute: Hashable, Sendable {
        /// The peer, or the TURN server that relays to it.
        public var destination: TransportAddress
        /// The TURN channel bound to the peer, when `destination` is the server: each packet goes as ChannelData.
        public var channel: UInt16?
        /// How the server is reached: UDP, or the TCP or TLS connection to it (ChannelData padded to 4 bytes).
        public var transport: TURNClientConfiguration.Transport

        /// Creates a route.
        /// - Parameters:
        ///   - destination: The peer, or its relay's server.
        ///   - channel: The channel bound to the peer on that server, or nil.
        ///   - transport: How `destination` is reached (UDP unless a TURN server over TCP or TLS relays).
        public init(destination: TransportAddress, channel: UInt16?, transport: TURNClientConfiguration.Transport = .udp) {
            self.destination = destination
            self.channel = channel
            self.transport = transport
        }
    }

    /// What the transport reports.
    public enum Event: Sendable, Equatable {
        /// ICE selected a pair and DTLS finished: send SRTP from `local` (nil: the one socket) to `remote`.
        case connected(local: TransportAddress?, remote: TransportAddress, keys: DTLSSRTPKeys)
        /// ICE moved to another pair after connecting (or an ICE restart proved the same pair again): send to the new
        /// address from now on.
        case pathChanged(local: TransportAddress?, remote: TransportAddress)
        /// The selected pair stopped answering consent checks (ICE-full only; see `ICEEvent.disconnected`): restart
        /// ICE, or consent expires.
        case disconnected(remote: TransportAddress)
        /// The gatherer found a local candidate after the start (a TURN server added late, such as one of a WHIP
        /// endpoint's `Link` headers): the peer learns it only if it is signalled (trickle ICE).
        case candidate(ICECandidate)
        /// The transport is closed; tear the peer down.
        case closed(CloseReason)
    }

    /// A datagram to send.
    public struct Transmit: Hashable, Sendable {
        /// The local socket to send from, or `nil` for the only one.
        public var source: TransportAddress?
        /// The destination.
        public var destination: TransportAddress
        /// The bytes.
        public var bytes: [UInt8]
        /// How it travels: a UDP datagram, or a frame on the TCP or TLS connection to a TURN server (`destination`).
        public var transport: TURNClientConfiguration.Transport = .udp
    }

    /// Counters for statistics and security monitoring.
    public struct Statistics: Hashable, Sendable {
        /// DTLS datagrams from addresses ICE had not authenticated.
        public var unauthenticatedDTLS = 0
        /// SRTP/SRTCP datagrams from other than the selected address, or before connecting.
        public var unexpectedMedia = 0
        /// Datagrams of no WebRTC kind (ZRTP, TURN channel, unknown first byte).
        public var unknown = 0
        /// DTLS handshakes refused because the certificate did not match `a=fingerprint`.
        public var fingerprintMismatches = 0
    }

    /// The most time the DTLS handshake may take once ICE selected a pair: 30 s.
    public static let defaultHandshakeTimeout: Duration = .seconds(30)

    /// A copy of the ICE agent (its counters and state are readable).
    public var agent: Agent {
        if let lite { return .lite(lite) }
        return .full(full!)  // exactly one of the two is set, in init
    }

    /// The agent, held unwrapped so that it is mutated in place (an enum payload would be copied on every change).
    var lite: ICELiteAgent?
    var full: ICEFullAgent?
    /// The DTLS endpoint.
    public let dtls: DTLSEndpoint
    /// The counters.
    public private(set) var statistics = Statistics()
    /// Whether the transport is closed.
    public private(set) var isClosed = false
    /// The selected path.
    public private(set) var path: (local: TransportAddress?, remote: TransportAddress)?
    /// The SRTP keys, once connected.
    public private(set) var keys: DTLSSRTPKeys?
    /// The STUN and TURN servers' clients and the relayed candidates, when the agent has any.
    public private(set) var gatherer: ICEGatherer?

    let handshakeTimeout: Duration
    var handshakeDeadline: MonotonicTime?
    /// Where DTLS replies go before ICE selects a pair: the last authenticated address DTLS came from.
    var dtlsPeer: (local: TransportAddress?, remote: TransportAddress)?
    var transmits: [Transmit] = []
    var events: [Event] = []
    var reportedConnected = false
    /// The selected pair changed to a relayed one whose channel is not bound yet: `.pathChanged` waits for it.
    var pathChangePending = false
    /// The time of the latest input (a TURN release from `close()` is stamped with it).
    var lastNow = MonotonicTime.zero

    /// Creates a transport.
    /// - Parameters:
    ///   - agent: The ICE agent.
    ///   - dtls: The DTLS endpoint, not started yet (its role comes from `a=setup`).
    ///   - handshakeTimeout: How long DTLS may take after ICE selected a pair.
    ///   - gatherer: A full agent's STUN and TURN clients (gathering may still be going on: relayed candidates that
    ///     come later are added to the agent); its relayed candidates must be among the agent's local candidates or
    ///     come later.
    public init(
        agent: Agent, dtls: DTLSEndpoint, handshakeTimeout: Duration = PeerTransport.defaultHandshakeTimeout,
        gatherer: ICEGatherer? = nil
    ) {
        switch agent {
        case .lite(let agent): lite = agent
        case .full(let agent): full = agent
        }
        self.dtls = dtls
        self.handshakeTimeout = handshakeTimeout
        self.gatherer = gatherer
    }

    /// Where media goes on the selected path: nil before a pair is selected, and while a relayed pair's channel is
    /// not bound yet.
    public var mediaRoute: MediaRoute? {
        guard let path else { return nil }
        guard let local = path.local, let gatherer, gatherer.isRelayed(local) else {
            return MediaRoute(destination: path.remote, channel: nil)
        }
        return gatherer.route(from: local, to: path.remote).map {
            MediaRoute(destination: $0.server, channel: $0.channel, transport: $0.transport)
        }
    }

    /// Handles one received datagram.
    /// - Parameters:
    ///   - datagram: The bytes.
    ///   - source: Where they came from.
    ///   - local: The local socket they arrived on (`nil` with one socket; a full agent needs it).
    ///   - transport: What carried them: a UDP datagram, or one frame from the TCP or TLS connection to a TURN server
    ///     (only the gatherer's servers speak over those).
    ///   - now: The current time.
    /// - Returns: Whether the caller must unprotect it as media.
    public func handleDatagram(
        _ datagram: some Collection<UInt8>, from source: TransportAddress, to local: TransportAddress?,
        over transport: TURNClientConfiguration.Transport = .udp, now: MonotonicTime
    ) -> Input {
        guard !isClosed else { return .dropped }
        lastNow = now
        if gatherer != nil {
            switch gatherer!.handle(datagram, from: source, over: transport, now: now) {
            case .notFromServer:
                guard transport == .udp else {
                    statistics.unknown += 1
                    return .dropped
                }
            case .consumed:
                afterGatherer(now: now)
                return .consumed
            case .relayed(let peer, let relayed, let range):
                let start = datagram.index(datagram.startIndex, offsetBy: range.lowerBound)
                let inner = datagram[start..<datagram.index(start, offsetBy: range.count)]
                switch handlePeerDatagram(inner, from: peer, to: relayed, now: now) {
                case .media(let kind): return .relayedMedia(kind, range)
                case let other: return other
                }
            }
        }
        return handlePeerDatagram(datagram, from: source, to: local, now: now)
    }

    /// A datagram from a peer, directly or unwrapped from its relay.
    func handlePeerDatagram(
        _ datagram: some Collection<UInt8>, from source: TransportAddress, to local: TransportAddress?,
        now: MonotonicTime
    ) -> Input {
        let kind = DatagramKind(classifying: datagram)
        switch kind {
        case .stun:
            let refusedBefore = refusedSTUN
            lite?.handleSTUN(datagram, from: source, now: now)
            full?.handleSTUN(datagram, from: source, to: local ?? source, now: now)
            afterICE(now: now)
            // A message the agent refused (malformed, failing MESSAGE-INTEGRITY, a stray response) is dropped.
            return refusedSTUN > refusedBefore ? .dropped : .consumed
        case .dtls:
            guard isAuthenticated(source) else {
                statistics.unauthenticatedDTLS += 1
                return .dropped
            }
            dtlsPeer = (local, source)
            do {
                try dtls.handleDatagram(datagram, now: now)
            } catch {
                failDTLS(error)
            }
            afterDTLS()
            return .consumed
        case .rtp, .rtcp:
            guard reportedConnected, let path, path.remote == source,
                  path.local == nil || local == nil || path.local == local
            else {
                statistics.unexpectedMedia += 1
                return .dropped
            }
            return .media(kind)
        case .zrtp, .turnChannel, .unknown:
            statistics.unknown += 1
            return .dropped
        }
    }

    /// STUN messages the ICE agent refused so far: malformed, failing authentication, or of a kind it ignores.
    private var refusedSTUN: Int {
        let statistics = lite?.statistics ?? full?.statistics ?? ICEStatistics()
        return statistics.malformed + statistics.integrityFailures + statistics.ignored
    }

    /// The next datagram to send.
    public func pollTransmit() -> Transmit? { transmits.isEmpty ? nil : transmits.removeFirst() }

    /// The next event.
    public func pollEvent() -> Event? { events.isEmpty ? nil : events.removeFirst() }

    /// When `handleTimeout(now:)` must next be called.
    /// - Parameters:
    ///   - now: The current time (DTLS maps OpenSSL's timer onto it).
    public func pollTimeout(now: MonotonicTime) -> MonotonicTime? {
        guard !isClosed else { return nil }
        let ice = lite?.pollTimeout() ?? full?.pollTimeout()
        return [ice, dtls.pollTimeout(now: now), reportedConnected ? nil : handshakeDeadline, gatherer?.pollTimeout()]
            .compactMap { $0 }.min()
    }

    /// Runs the ICE and DTLS timers due at `now`.
    /// - Parameters:
    ///   - now: The current time.
    public func handleTimeout(now: MonotonicTime) {
        guard !isClosed else { return }
        lastNow = now
        if gatherer != nil {
            gatherer!.handleTimeout(now: now)
            afterGatherer(now: now)
            guard !isClosed else { return }
        }
        lite?.handleTimeout(now: now)
        full?.handleTimeout(now: now)
        afterICE(now: now)
        guard !isClosed else { return }
        do {
            try dtls.handleTimeout(now: now)
        } catch {
            failDTLS(error)
        }
        afterDTLS()
        if !isClosed, !reportedConnected, let handshakeDeadline, now >= handshakeDeadline {
            close(.dtlsTimeout)
        }
    }

    /// Sends close_notify, releases the TURN allocations, and closes.
    public func close() {
        guard !isClosed else { return }
        dtls.close()
        afterDTLS()
        close(.closedLocally)
    }

    /// Restarts ICE with new credentials on both sides, keeping the DTLS association and the selected path until a
    /// new pair is selected (`.pathChanged`, also when it is the same pair). ICE-lite (a WHEP viewer's restart): the
    /// viewer's checks select. ICE-full (a WHIP publisher's restart): the checklist is rebuilt from `localCandidates`
    /// (relayed candidates of the gatherer must be among them to be used) and `remoteCandidates`, and checked again.
    /// - Parameters:
    ///   - local: our new credentials.
    ///   - remote: the peer's new credentials.
    ///   - localCandidates: a full agent's candidates now (ignored by a lite one).
    ///   - remoteCandidates: a full agent's remote candidates (ignored by a lite one).
    ///   - now: the current time (nil: the latest input's).
    /// - Returns: whether the agent restarted (false once closed).
    public func restartICE(
        local: ICECredentials, remote: ICECredentials, localCandidates: [ICEFullAgent.LocalCandidate] = [],
        remoteCandidates: [ICECandidate] = [], now: MonotonicTime? = nil
    ) -> Bool {
        guard !isClosed else { return false }
        let now = now ?? lastNow
        if lite != nil {
            lite!.restart(local: local, remote: remote)
        } else {
            full!.restart(local: local, remote: remote, localCandidates: localCandidates, now: now)
            for candidate in remoteCandidates { full!.addRemoteCandidate(candidate) }
            full!.handleTimeout(now: now)  // the first check at once
            afterICE(now: now)
        }
        return true
    }

    /// A remote candidate trickled by the peer (RFC 8838): a full agent pairs it and checks it; an ICE-lite agent
    /// needs none (the peer's checks tell it the addresses). Ignored when closed.
    /// - Parameters:
    ///   - candidate: the candidate (see `ICEFullAgent.addRemoteCandidate` for what is ignored).
    ///   - now: the current time.
    public func addRemoteCandidate(_ candidate: ICECandidate, now: MonotonicTime) {
        guard !isClosed, full != nil else { return }
        lastNow = now
        full!.addRemoteCandidate(candidate)
        full!.handleTimeout(now: now)
        afterICE(now: now)
    }

    /// Whether a full agent is restarting (checking new pairs while media stays on the old one).
    public var isRestartingICE: Bool { full?.isRestarting ?? false }

    /// Releases the TURN allocations (a Refresh with LIFETIME 0 to each server) and stops gathering; nothing else
    /// changes. For an owner that ends the session without close_notify (WHIP ends it with an HTTP DELETE).
    public func releaseRelays() {
        guard gatherer != nil else { return }
        gatherer!.close(now: lastNow)
        moveGathererTransmits()
    }

    /// The connection to a TURN server over TCP or TLS broke or could not be made (see
    /// `ICEGatherer.connectionFailed`): a relay under the selected pair closes the transport.
    /// - Parameters:
    ///   - server: The server's address.
    ///   - transport: TCP or TLS.
    ///   - reason: Why (never a credential).
    ///   - now: The current time.
    public func connectionFailed(
        to server: TransportAddress, over transport: TURNClientConfiguration.Transport, reason: String, now: MonotonicTime
    ) {
        guard !isClosed, gatherer != nil else { return }
        lastNow = now
        gatherer!.connectionFailed(to: server, over: transport, reason: reason)
        afterGatherer(now: now)
    }

    // MARK: - Wiring

    func isAuthenticated(_ source: TransportAddress) -> Bool {
        lite?.isAuthenticated(source) ?? full?.isAuthenticated(source) ?? false
    }

    /// Moves ICE output out and reacts to its events.
    func afterICE(now: MonotonicTime) {
        var iceEvents: [ICEEvent] = []
        while let transmit = lite?.pollTransmit() {
            transmits.append(Transmit(source: nil, destination: transmit.destination, bytes: transmit.bytes))
        }
        while let event = lite?.pollEvent() { iceEvents.append(event) }
        while let transmit = full?.pollTransmit() {
            emit(transmit.bytes, from: transmit.source, to: transmit.destination)
        }
        while let event = full?.pollEvent() { iceEvents.append(event) }
        for event in iceEvents {
            switch event {
            case .selected(let remote): select(local: nil, remote: remote, now: now)
            case .selectedPair(let local, let remote): select(local: local, remote: remote, now: now)
            case .consentExpired: close(.consentExpired)
            case .failed: close(.iceFailed)
            case .disconnected(let remote): events.append(.disconnected(remote: remote))
            }
        }
    }

    func select(local: TransportAddress?, remote: TransportAddress, now: MonotonicTime) {
        let changed = path != nil
        path = (local, remote)
        if let local, gatherer?.isRelayed(local) == true {
            // Media on a relayed pair goes as ChannelData: bind the channel now (it is refreshed from here on).
            gatherer!.bindChannel(from: local, to: remote, now: now)
            afterGatherer(now: now)
        }
        if reportedConnected, changed {
            if mediaRoute != nil {
                events.append(.pathChanged(local: local, remote: remote))
            } else {
                pathChangePending = true
            }
        }
        if dtls.state == .new {
            handshakeDeadline = now + handshakeTimeout
            do {
                try dtls.start(now: now)
            } catch {
                failDTLS(error)
            }
            afterDTLS()
        }
        reportIfConnected()
    }

    /// Moves DTLS output out (to the selected path, or back to where DTLS came from) and reacts to its events.
    func afterDTLS() {
        let destination = path ?? dtlsPeer
        while let datagram = dtls.pollTransmit() {
            guard let destination else { continue }  // nowhere to send yet: OpenSSL retransmits later
            emit(datagram, from: destination.local, to: destination.remote)
        }
        while let event = dtls.pollEvent() {
            switch event {
            case .connected(let keys): self.keys = keys
            case .closed: close(.closedByPeer)
            }
        }
        reportIfConnected()
    }

    func reportIfConnected() {
        guard !reportedConnected, !isClosed, let keys, let path, mediaRoute != nil else { return }
        reportedConnected = true
        events.append(.connected(local: path.local, remote: path.remote, keys: keys))
    }

    func failDTLS(_ error: DTLSError) {
        if case .fingerprintMismatch = error { statistics.fingerprintMismatches += 1 }
        afterDTLS()  // the alert still goes out
        close(.dtlsFailed(error))
    }

    func close(_ reason: CloseReason) {
        guard !isClosed else { return }
        isClosed = true
        releaseRelays()
        events.append(.closed(reason))
    }

    // MARK: Relays

    /// Queues a datagram of ICE or DTLS: as it is, or wrapped for the TURN server when it leaves a relayed candidate.
    func emit(_ bytes: [UInt8], from source: TransportAddress?, to destination: TransportAddress) {
        guard let source, gatherer?.isRelayed(source) == true else {
            transmits.append(Transmit(source: source, destination: destination, bytes: bytes))
            return
        }
        gatherer!.send(bytes, from: source, to: destination, now: lastNow)
        moveGathererTransmits()
    }

    func moveGathererTransmits() {
        guard let base = gatherer?.base else { return }
        while let transmit = gatherer?.pollTransmit() {
            transmits.append(Transmit(
                source: base, destination: transmit.destination, bytes: transmit.bytes, transport: transmit.transport))
        }
    }

    /// Moves the gatherer's transmits out and reacts to its events: a relayed candidate gathered late joins the
    /// agent; a bound channel lets a relayed pair carry media; a lost relay under the selected pair closes.
    func afterGatherer(now: MonotonicTime) {
        moveGathererTransmits()
        while let event = gatherer?.pollEvent() {
            guard !isClosed else { return }
            switch event {
            case .candidate(let candidate):
                events.append(.candidate(candidate))
                guard candidate.kind == .relay, let address = candidate.transportAddress else { continue }
                full?.addLocalCandidate(.init(address: address, priority: candidate.priority))
            case .channelBound(let relayed, let peer):
                guard let path, path.local == relayed, path.remote == peer else { continue }
                if pathChangePending {
                    pathChangePending = false
                    events.append(.pathChanged(local: relayed, remote: peer))
                }
                reportIfConnected()
            case .peerFailed(let relayed, let peer, let reason):
                if let path, path.local == relayed, path.remote == peer, mediaRoute == nil {
                    close(.relayFailed(reason))
                }
            case .relayLost(let relayed, let reason):
                if path?.local == relayed { close(.relayFailed(reason)) }
            case .serverFailed:
                continue  // kept in `gatherer.failures`
            }
        }
    }
}
