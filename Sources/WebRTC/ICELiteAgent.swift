public import MediaTime
public import STUN

/// An ICE-lite agent (RFC 8445 section 2.5) for the server side of a WHEP session: sans-IO, one per peer.
///
/// It never sends checks. It answers the browser's authenticated binding requests on our one socket with
/// XOR-MAPPED-ADDRESS, selects the address the controlling peer nominates with USE-CANDIDATE, and applies consent
/// freshness (RFC 7675): when the selected address has sent no authenticated request for `consentTimeout`, it
/// reports `.consentExpired`. STUN without valid MESSAGE-INTEGRITY is ignored and counted, never answered.
///
/// Drive it with datagrams and time; it holds no socket and reads no clock:
/// ```swift
/// var agent = ICELiteAgent(local: .random(), remote: offerCredentials, now: now)
/// agent.handleSTUN(datagram, from: source, now: now)
/// while let transmit = agent.pollTransmit() { socket.send(transmit.bytes, to: transmit.destination) }
/// while let event = agent.pollEvent() { ... }
/// // at agent.pollTimeout(): agent.handleTimeout(now: now)
/// ```
public struct ICELiteAgent: Sendable {
    /// Timeouts, with the defaults RFC 7675 and common practice suggest.
    public struct Configuration: Hashable, Sendable {
        /// How long the selected address may stay silent (no authenticated binding request) before consent expires:
        /// 30 s (RFC 7675 section 5.1).
        public var consentTimeout: Duration = .seconds(30)
        /// How long to wait for a nomination before reporting `.failed`: 30 s.
        public var nominationTimeout: Duration = .seconds(30)
        /// The most remote addresses remembered as having authenticated (a bound on per-peer state).
        public var maxRemoteAddresses = 16
        /// The most datagrams queued for `pollTransmit` before the oldest are dropped.
        public var maxQueuedTransmits = 64

        /// The defaults.
        public init() {}
    }

    /// The agent's state.
    public enum State: Hashable, Sendable {
        /// Waiting for a nominated check.
        case waiting
        /// A pair is selected; media may flow to `remote`.
        case connected(remote: TransportAddress)
        /// Consent expired or no nomination came: the session is over.
        case closed
    }

    /// Our credentials, advertised in the answer (new ones after `restart(local:remote:)`).
    public private(set) var localCredentials: ICECredentials
    /// The peer's credentials from its offer, when known; a request naming another remote ufrag is ignored.
    public var remoteCredentials: ICECredentials?
    /// The timeouts.
    public let configuration: Configuration
    /// The current state.
    public private(set) var state: State = .waiting
    /// The counters.
    public private(set) var statistics = ICEStatistics()

    /// The address media goes to, once nominated.
    public var selectedRemote: TransportAddress? {
        if case .connected(let remote) = state { return remote }
        return nil
    }

    /// When the agent was created: the nomination timeout runs from here.
    let createdAt: MonotonicTime
    /// Remote addresses that sent an authenticated request, with when they last did (consent, RFC 7675).
    var lastAuthenticated: [TransportAddress: MonotonicTime] = [:]
    var transmits: [ICETransmit] = []
    var events: [ICEEvent] = []
    /// 487 Role Conflict (RFC 8445 section 7.3.1.1).
    static let roleConflictCode = 487
    /// 420 Unknown Attribute (RFC 8489 section 6.3.1.1).
    static let unknownAttributeCode = 420

    /// Creates an agent.
    /// - Parameters:
    ///   - local: Our ufrag and password.
    ///   - remote: The peer's, from its offer (`nil` accepts any remote ufrag, authenticated by our password).
    ///   - configuration: The timeouts.
    ///   - now: The current time; the nomination timeout starts now.
    public init(
        local: ICECredentials, remote: ICECredentials?, configuration: Configuration = Configuration(),
        now: MonotonicTime
    ) {
        localCredentials = local
        remoteCredentials = remote
        self.configuration = configuration
        createdAt = now
    }

    /// Whether an address has sent us an authenticated binding request: the peer filter for DTLS and SRTP.
    /// - Parameters:
    ///   - address: A datagram's source.
    /// - Returns: `true` for addresses the peer proved it owns.
    public func isAuthenticated(_ address: TransportAddress) -> Bool { lastAuthenticated[address] != nil }

    /// Handles one datagram the demultiplexer classified as STUN.
    /// - Parameters:
    ///   - datagram: The bytes received.
    ///   - source: Where they came from.
    ///   - now: The current time.
    public mutating func handleSTUN(_ datagram: some Collection<UInt8>, from source: TransportAddress, now: MonotonicTime) {
        guard state != .closed else { return }
        let message: STUNMessage
        do {
            message = try STUNMessage(parsing: datagram)
        } catch {
            statistics.malformed += 1
            return
        }
        guard message.type == .bindingRequest else {
            statistics.ignored += 1
            return
        }
        guard authenticate(message) else {
            statistics.integrityFailures += 1
            return
        }
        let key = localCredentials.integrityKey
        let unknown = message.unknownComprehensionRequired
        if !unknown.isEmpty {
            respond(to: message, from: source, key: key, error: (Self.unknownAttributeCode, "Unknown Attribute"),
                    extra: [.unknownAttributes(unknown)])
            return
        }
        // RFC 8445 7.3.1.1: a lite agent is always controlled, so a peer that also claims to be controlled is told
        // to change role (whatever the tie-breakers: we cannot become controlling).
        if case .iceControlled = message.attribute(.iceControlled) {
            statistics.roleConflicts += 1
            respond(to: message, from: source, key: key, error: (Self.roleConflictCode, "Role Conflict"), extra: [])
            return
        }
        remember(source, at: now)
        respond(to: message, from: source, key: key, error: nil, extra: [])
        if message.hasUseCandidate, selectedRemote != source {
            state = .connected(remote: source)
            events.append(.selected(remote: source))
        }
    }

    /// Restarts ICE (RFC 8445 section 9) with new credentials on both sides, as a `PATCH` with `If-Match: "*"`
    /// asks (RFC 9725 section 4.4): from now on only checks with the new ufrag and password are answered. The selected
    /// address stays selected (media keeps flowing) until the peer nominates another, and its consent is refreshed by
    /// the new checks; addresses the peer already proved it owns stay trusted for DTLS. A closed agent stays closed.
    /// - Parameters:
    ///   - local: our new credentials (to be sent in the reply).
    ///   - remote: the peer's new credentials, from its fragment.
    public mutating func restart(local: ICECredentials, remote: ICECredentials) {
        guard state != .closed else { return }
        localCredentials = local
        remoteCredentials = remote
        statistics.restarts += 1
    }

    /// The next datagram to send, oldest first.
    public mutating func pollTransmit() -> ICETransmit? {
        transmits.isEmpty ? nil : transmits.removeFirst()
    }

    /// The next event, oldest first.
    public mutating func pollEvent() -> ICEEvent? {
        events.isEmpty ? nil : events.removeFirst()
    }

    /// When `handleTimeout(now:)` must next be called: the consent or nomination deadline, or `nil` when closed.
    public func pollTimeout() -> MonotonicTime? {
        switch state {
        case .waiting: createdAt + configuration.nominationTimeout
        case .connected(let remote): (lastAuthenticated[remote] ?? createdAt) + configuration.consentTimeout
        case .closed: nil
        }
    }

    /// Applies the timeouts due at `now`.
    /// - Parameters:
    ///   - now: The current time.
    public mutating func handleTimeout(now: MonotonicTime) {
        guard let deadline = pollTimeout(), now >= deadline else { return }
        switch state {
        case .waiting:
            events.append(.failed)
        case .connected(let remote):
            events.append(.consentExpired(remote: remote))
        case .closed:
            return
        }
        state = .closed
    }

    /// USERNAME is `ourUfrag:theirUfrag` and MESSAGE-INTEGRITY verifies with our password (RFC 8445 7.3).
    func authenticate(_ message: STUNMessage) -> Bool {
        guard let username = message.username,
              let colon = username.firstIndex(of: ":"),
              username[..<colon] == localCredentials.ufrag
        else { return false }
        if let remote = remoteCredentials, username[username.index(after: colon)...] != remote.ufrag { return false }
        return message.hasValidIntegrity(key: localCredentials.integrityKey)
    }

    mutating func remember(_ source: TransportAddress, at now: MonotonicTime) {
        if lastAuthenticated[source] == nil, lastAuthenticated.count >= configuration.maxRemoteAddresses {
            // Forget the address silent longest, but never the selected one.
            let selected = selectedRemote
            if let oldest = lastAuthenticated.filter({ $0.key != selected }).min(by: { $0.value < $1.value })?.key {
                lastAuthenticated[oldest] = nil
            }
        }
        lastAuthenticated[source] = now
    }

    mutating func respond(
        to request: STUNMessage, from source: TransportAddress, key: [UInt8], error: (Int, String)?,
        extra: [STUNAttribute]
    ) {
        var response = STUNMessage(type: error == nil ? .bindingSuccess : .bindingError,
                                   transactionID: request.transactionID)
        if let (code, reason) = error {
            response.attributes = [.errorCode(code: code, reason: reason)] + extra
            statistics.errorResponsesSent += 1
        } else {
            response.attributes = [.xorMappedAddress(source)]
            statistics.requestsAnswered += 1
        }
        // Every value above is in range, so serialization cannot fail.
        guard let bytes = try? response.serialized(integrityKey: key, fingerprint: true) else { return }
        if transmits.count >= configuration.maxQueuedTransmits { transmits.removeFirst() }
        transmits.append(ICETransmit(destination: source, bytes: bytes))
    }
}
