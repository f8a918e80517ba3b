public import MediaTime
public import STUN

/// A full ICE agent (RFC 8445) for the client side of WHIP, which RFC 9725 section 4.3 requires to do full ICE:
/// sans-IO, one per session.
///
/// It starts controlling (the WHIP client is the offerer), pairs its local sockets' host candidates with the
/// remote candidates of the answer, paces one check every `Ta`, retransmits each with a doubling RTO, and
/// nominates the first pair that succeeds by checking it again with USE-CANDIDATE (regular nomination). It answers
/// the peer's checks (a full peer such as Janus sends them too), learns peer-reflexive remote candidates from them,
/// resolves role conflicts by tie-breaker (RFC 8445 section 7.3.1.1, 487 responses in section 7.2.5.1), and keeps
/// consent fresh on the selected pair (RFC 7675: a request every 4-6 s, expiry after 30 s without a response).
///
/// ```swift
/// var agent = ICEFullAgent(local: credentials, remote: answerCredentials, localCandidates: sockets, now: now)
/// for candidate in negotiated.remoteCandidates { agent.addRemoteCandidate(candidate) }
/// // on a STUN datagram:    agent.handleSTUN(bytes, from: source, to: localSocket, now: now)
/// // at agent.pollTimeout(): agent.handleTimeout(now: now)
/// while let transmit = agent.pollTransmit() { socket(transmit.source).send(transmit.bytes, to: transmit.destination) }
/// while let event = agent.pollEvent() { ... .selectedPair(local:remote:) ... }
/// ```
public struct ICEFullAgent: Sendable {
    /// Timing, with RFC 8445 and RFC 7675 defaults.
    public struct Configuration: Hashable, Sendable {
        /// The pacing interval between new checks: 50 ms (RFC 8445 section 14.2).
        public var pacingInterval: Duration = .milliseconds(50)
        /// The first retransmission timeout of a check: 500 ms (RFC 8445 section 14.3), doubled per retransmission.
        public var initialRTO: Duration = .milliseconds(500)
        /// The most RTO grows to.
        public var maxRTO: Duration = .seconds(3)
        /// Transmissions of one check before its pair fails: 7 (Rc, RFC 8489 section 6.2.1).
        public var maxTransmissions = 7
        /// Consent requests are sent every 4-6 s, uniformly (RFC 7675 section 5.1).
        public var consentIntervalRange: ClosedRange<Duration> = .seconds(4) ... .seconds(6)
        /// Consent expires 30 s after the last successful response (RFC 7675 section 5.1).
        public var consentTimeout: Duration = .seconds(30)
        /// How long to try before reporting `.failed` when no pair is nominated (from the start, or from a restart).
        public var nominationTimeout: Duration = .seconds(30)
        /// A consent request on the selected pair unanswered this long reports `.disconnected` (the path may be gone:
        /// time to restart ICE). 2.5 s: libwebrtc's "weak" connection after 2.5 s without a response.
        public var disconnectTimeout: Duration = .milliseconds(2500)
        /// The most candidate pairs kept (RFC 8445 section 6.1.2.5 suggests 100).
        public var maxPairs = 100

        /// The defaults.
        public init() {}
    }

    /// Our role (RFC 8445 section 6.1.1).
    public enum Role: Hashable, Sendable {
        /// We nominate.
        case controlling
        /// The peer nominates.
        case controlled
    }

    /// A local socket's host candidate, as the agent sends from it.
    public struct LocalCandidate: Hashable, Sendable {
        /// The socket's address.
        public var address: TransportAddress
        /// The candidate's priority (see `ICECandidate.priority(kind:localPreference:component:)`).
        public var priority: UInt32

        /// Creates a local candidate.
        /// - Parameters:
        ///   - address: The socket's address.
        ///   - priority: The priority advertised for it.
        public init(address: TransportAddress, priority: UInt32) {
            self.address = address
            self.priority = priority
        }

        /// What an agent checks from, of the candidates it signals: host and relayed candidates (a server-reflexive
        /// one is checked from its base, a host candidate, RFC 8445 section 6.1.2.4).
        /// - Parameters:
        ///   - candidates: The candidates of our offer or answer.
        public static func checked(from candidates: [ICECandidate]) -> [LocalCandidate] {
            candidates.filter { $0.kind != .srflx }.compactMap { candidate in
                candidate.transportAddress.map { LocalCandidate(address: $0, priority: candidate.priority) }
            }
        }
    }

    /// A datagram to send from a given local socket.
    public struct Transmit: Hashable, Sendable {
        /// The local socket to send from.
        public var source: TransportAddress
        /// Where to send it.
        public var destination: TransportAddress
        /// The STUN message.
        public var bytes: [UInt8]
    }

    struct Transaction: Sendable {
        var id: STUNTransactionID
        var local: TransportAddress
        var remote: TransportAddress
        var useCandidate: Bool
        var bytes: [UInt8]
        var transmissions: Int
        var rto: Duration
        var deadline: MonotonicTime
        var startedAt: MonotonicTime
    }

    /// Our credentials (new ones after `restart`).
    public private(set) var localCredentials: ICECredentials
    /// The peer's credentials (new ones after `restart`).
    public private(set) var remoteCredentials: ICECredentials
    /// The settings.
    public let configuration: Configuration
    /// Our current role.
    public private(set) var role: Role
    /// Our tie-breaker (RFC 8445 section 7.1.3).
    public let tieBreaker: UInt64
    /// The checklist.
    public private(set) var pairs: [ICECandidatePair] = []
    /// The selected (nominated) pair.
    public private(set) var selected: (local: TransportAddress, remote: TransportAddress)?
    /// Whether the session is over (consent expired or never connected).
    public private(set) var isClosed = false
    /// The counters.
    public private(set) var statistics = ICEStatistics()

    /// Remote addresses that sent us an authenticated check (a peer filter for DTLS before our own checks succeed).
    var authenticatedRemotes: Set<TransportAddress> = []
    private(set) var localCandidates: [LocalCandidate]
    let createdAt: MonotonicTime
    var random: SplitMix64
    var transactions: [Transaction] = []
    var triggered: [Int] = []
    var nextPacing: MonotonicTime
    var nextConsent: MonotonicTime?
    var lastConsent: MonotonicTime?
    var transmits: [Transmit] = []
    var events: [ICEEvent] = []
    /// When the restart in progress began (nil when none is): pairs are checked and nominated again while media stays
    /// on `selected`.
    var restartedAt: MonotonicTime?
    /// Whether `.disconnected` was reported for the consent request outstanding now.
    var reportedDisconnected = false

    /// Whether a restart is in progress (new pairs being checked; media still on the old selected pair).
    public var isRestarting: Bool { restartedAt != nil }
    /// Whether a pair may be nominated now: none is yet, or a restart is looking for a new one.
    var nominating: Bool { selected == nil || restartedAt != nil }

    /// 487 Role Conflict (RFC 8445 section 7.2.5.1).
    static let roleConflictCode = 487

    /// Creates an agent.
    /// - Parameters:
    ///   - local: Our credentials (from our offer).
    ///   - remote: The peer's (from its answer).
    ///   - localCandidates: Our sockets' host candidates.
    ///   - role: The starting role; `.controlling` for the offerer (RFC 8445 section 6.1.1).
    ///   - configuration: Timing.
    ///   - now: The current time; the first check may go out at once.
    ///   - generator: The source of the tie-breaker and transaction IDs.
    public init(
        local: ICECredentials, remote: ICECredentials, localCandidates: [LocalCandidate], role: Role = .controlling,
        configuration: Configuration = Configuration(), now: MonotonicTime,
        using generator: inout some RandomNumberGenerator
    ) {
        localCredentials = local
        remoteCredentials = remote
        self.localCandidates = localCandidates
        self.role = role
        self.configuration = configuration
        tieBreaker = generator.next()
        random = SplitMix64(seed: generator.next())
        createdAt = now
        nextPacing = now
    }

    /// Creates an agent drawing from the system's secure generator.
    public init(
        local: ICECredentials, remote: ICECredentials, localCandidates: [LocalCandidate], role: Role = .controlling,
        configuration: Configuration = Configuration(), now: MonotonicTime
    ) {
        var generator = SystemRandomNumberGenerator()
        self.init(local: local, remote: remote, localCandidates: localCandidates, role: role,
                  configuration: configuration, now: now, using: &generator)
    }

    /// Adds a remote candidate (from the answer or trickled); pairs it with every local candidate of its family.
    /// Candidates without an IP literal (mDNS `.local` names), or not UDP, or for another component, are ignored.
    /// - Parameters:
    ///   - candidate: The remote candidate.
    public mutating func addRemoteCandidate(_ candidate: ICECandidate) {
        guard candidate.transport == "udp", candidate.component == ICECandidate.rtpComponent,
              let address = candidate.transportAddress
        else { return }
        addPairs(remote: address, priority: candidate.priority)
    }

    /// Restarts ICE (RFC 8445 section 9): new credentials on both sides, the checklist rebuilt from `localCandidates`
    /// and the remote candidates added next. Media stays on the selected pair until a new pair is nominated, which
    /// reports `.selectedPair` (the same pair too: the path is proven again); no consent is checked or expires
    /// meanwhile. A restart that nominates nothing within `nominationTimeout` reports `.failed`. Ignored when closed.
    /// - Parameters:
    ///   - local: our new credentials (sent to the peer in the restart's offer or fragment).
    ///   - remote: the peer's new credentials (from its answer).
    ///   - localCandidates: our host and relayed candidates now (an address that changed is replaced here).
    ///   - now: the current time; the first check may go out at once.
    public mutating func restart(
        local: ICECredentials, remote: ICECredentials, localCandidates: [LocalCandidate], now: MonotonicTime
    ) {
        guard !isClosed else { return }
        localCredentials = local
        remoteCredentials = remote
        self.localCandidates = localCandidates
        // The selected remote proved itself: its DTLS and SRTP stay accepted while the new checks run.
        if let selected { authenticatedRemotes.insert(selected.remote) }
        pairs.removeAll()
        transactions.removeAll()
        triggered.removeAll()
        restartedAt = now
        nextPacing = now
        reportedDisconnected = false
        statistics.restarts += 1
    }

    /// Adds a local candidate after the start (a relayed candidate whose TURN allocation finished later): pairs it
    /// with every remote candidate of its family known so far. Ignored once a pair is selected or the agent closed.
    /// - Parameters:
    ///   - candidate: The candidate (the address the agent sends from and receives on).
    public mutating func addLocalCandidate(_ candidate: LocalCandidate) {
        guard !isClosed, nominating, !localCandidates.contains(where: { $0.address == candidate.address }) else { return }
        localCandidates.append(candidate)
        var remotes: [TransportAddress: UInt32] = [:]
        for pair in pairs where remotes[pair.remote] == nil { remotes[pair.remote] = pair.remotePriority }
        for (remote, priority) in remotes.sorted(by: { $0.value > $1.value }) {
            addPairs(remote: remote, priority: priority, onlyLocal: candidate.address)
        }
    }

    /// Whether an address proved it holds the peer's credentials: a check to it succeeded, or it sent us an
    /// authenticated check. The peer filter for DTLS and SRTP.
    /// - Parameters:
    ///   - address: A datagram's source.
    public func isAuthenticated(_ address: TransportAddress) -> Bool {
        authenticatedRemotes.contains(address) || pairs.contains { $0.remote == address && $0.state == .succeeded }
    }

    /// Handles a datagram the demultiplexer classified as STUN.
    /// - Parameters:
    ///   - datagram: The bytes.
    ///   - source: Where they came from.
    ///   - local: The local socket they arrived on.
    ///   - now: The current time.
    public mutating func handleSTUN(
        _ datagram: some Collection<UInt8>, from source: TransportAddress, to local: TransportAddress,
        now: MonotonicTime
    ) {
        guard !isClosed else { return }
        let message: STUNMessage
        do {
            message = try STUNMessage(parsing: datagram)
        } catch {
            statistics.malformed += 1
            return
        }
        switch message.type {
        case .bindingRequest: handleRequest(message, from: source, to: local, now: now)
        case .bindingSuccess, .bindingError: handleResponse(message, from: source, to: local, now: now)
        default: statistics.ignored += 1
        }
    }

    /// The next datagram to send.
    public mutating func pollTransmit() -> Transmit? { transmits.isEmpty ? nil : transmits.removeFirst() }

    /// The next event.
    public mutating func pollEvent() -> ICEEvent? { events.isEmpty ? nil : events.removeFirst() }

    /// When `handleTimeout(now:)` must next be called, or `nil` when closed.
    public func pollTimeout() -> MonotonicTime? {
        guard !isClosed else { return nil }
        var deadlines = transactions.map(\.deadline)
        if hasCheckToStart { deadlines.append(nextPacing) }
        if let restartedAt {
            deadlines.append(restartedAt + configuration.nominationTimeout)
        } else if selected == nil {
            deadlines.append(createdAt + configuration.nominationTimeout)
        } else {
            if let nextConsent { deadlines.append(nextConsent) }
            if let lastConsent { deadlines.append(lastConsent + configuration.consentTimeout) }
            if !reportedDisconnected, let consent = pendingConsentStart {
                deadlines.append(consent + configuration.disconnectTimeout)
            }
        }
        return deadlines.min()
    }

    /// Sends due checks, retransmits, consent requests, and applies timeouts.
    /// - Parameters:
    ///   - now: The current time.
    public mutating func handleTimeout(now: MonotonicTime) {
        guard !isClosed else { return }
        retransmit(now: now)
        if now >= nextPacing, let index = nextCheck() {
            startCheck(pair: index, useCandidate: false, now: now)
            nextPacing = now + configuration.pacingInterval
        }
        if let restartedAt {
            if now >= restartedAt + configuration.nominationTimeout {
                events.append(.failed)
                close()
            }
        } else if let selected {
            if let lastConsent, now >= lastConsent + configuration.consentTimeout {
                events.append(.consentExpired(remote: selected.remote))
                close()
                return
            }
            if !reportedDisconnected, let consent = pendingConsentStart, now >= consent + configuration.disconnectTimeout {
                reportedDisconnected = true
                events.append(.disconnected(remote: selected.remote))
            }
            if let next = nextConsent, now >= next {
                sendRequest(local: selected.local, remote: selected.remote, useCandidate: false, now: now)
                nextConsent = now + consentInterval()
            }
        } else if now >= createdAt + configuration.nominationTimeout {
            events.append(.failed)
            close()
        }
    }

    /// When the oldest consent request still unanswered on the selected pair was first sent.
    var pendingConsentStart: MonotonicTime? {
        guard let selected else { return nil }
        return transactions.lazy.filter { $0.local == selected.local && $0.remote == selected.remote && !$0.useCandidate }
            .map(\.startedAt).min()
    }

    // MARK: - Checks

    var hasCheckToStart: Bool { !triggered.isEmpty || pairs.contains { $0.state == .waiting } }

    /// The triggered check queue first, then the highest-priority waiting pair (RFC 8445 section 6.1.4.2).
    mutating func nextCheck() -> Int? {
        while !triggered.isEmpty {
            let index = triggered.removeFirst()
            if pairs[index].state != .inProgress, pairs[index].state != .succeeded || !pairs[index].nominated {
                return index
            }
        }
        let controlling = role == .controlling
        return pairs.indices.filter { pairs[$0].state == .waiting }
            .max { pairs[$0].priority(controlling: controlling) < pairs[$1].priority(controlling: controlling) }
    }

    mutating func startCheck(pair index: Int, useCandidate: Bool, now: MonotonicTime) {
        pairs[index].state = pairs[index].state == .succeeded ? .succeeded : .inProgress
        sendRequest(local: pairs[index].local, remote: pairs[index].remote, useCandidate: useCandidate, now: now)
    }

    /// Builds, queues and tracks a binding request (RFC 8445 section 7.1.2).
    mutating func sendRequest(local: TransportAddress, remote: TransportAddress, useCandidate: Bool, now: MonotonicTime) {
        let id = STUNTransactionID.random(using: &random)
        let localPriority = localCandidates.first { $0.address == local }?.priority ?? 0
        // PRIORITY carries what a peer-reflexive candidate of ours would have (RFC 8445 section 7.1.1).
        let prflxPriority = ICECandidate.priority(kind: .prflx, localPreference: (localPriority >> 8) & 0xFFFF)
        var attributes: [STUNAttribute] = [
            .username("\(remoteCredentials.ufrag):\(localCredentials.ufrag)"), .priority(prflxPriority),
            role == .controlling ? .iceControlling(tieBreaker: tieBreaker) : .iceControlled(tieBreaker: tieBreaker),
        ]
        if useCandidate, role == .controlling { attributes.append(.useCandidate) }
        let message = STUNMessage(type: .bindingRequest, transactionID: id, attributes: attributes)
        guard let bytes = try? message.serialized(integrityKey: remoteCredentials.integrityKey) else { return }
        transactions.append(Transaction(
            id: id, local: local, remote: remote, useCandidate: useCandidate && role == .controlling, bytes: bytes,
            transmissions: 1, rto: configuration.initialRTO, deadline: now + configuration.initialRTO, startedAt: now))
        transmits.append(Transmit(source: local, destination: remote, bytes: bytes))
        statistics.requestsSent += 1
    }

    /// Retransmits due checks with a doubled RTO; fails the pair after `maxTransmissions`.
    mutating func retransmit(now: MonotonicTime) {
        var index = 0
        while index < transactions.count {
            guard now >= transactions[index].deadline else {
                index += 1
                continue
            }
            let transaction = transactions[index]
            if transaction.transmissions >= configuration.maxTransmissions {
                transactions.remove(at: index)
                if let pair = pairIndex(local: transaction.local, remote: transaction.remote) {
                    if pairs[pair].state == .inProgress || transaction.useCandidate {
                        pairs[pair].state = .failed
                    }
                    if transaction.useCandidate, nominating,
                       let other = pairs.indices.first(where: { pairs[$0].state == .succeeded }) {
                        // The nominating check went unanswered: nominate another valid pair.
                        startCheck(pair: other, useCandidate: true, now: now)
                    }
                    failIfNothingLeft()
                }
                continue
            }
            let rto = min(transaction.rto * 2, configuration.maxRTO)
            transactions[index].transmissions += 1
            transactions[index].rto = rto
            transactions[index].deadline = now + rto
            transmits.append(Transmit(source: transaction.local, destination: transaction.remote, bytes: transaction.bytes))
            statistics.requestsSent += 1
            index += 1
        }
    }

    mutating func handleResponse(_ message: STUNMessage, from source: TransportAddress, to local: TransportAddress,
                                 now: MonotonicTime) {
        guard let index = transactions.firstIndex(where: { $0.id == message.transactionID }) else {
            statistics.ignored += 1
            return
        }
        guard message.hasValidIntegrity(key: remoteCredentials.integrityKey) else {
            statistics.integrityFailures += 1
            return
        }
        let transaction = transactions.remove(at: index)
        statistics.responsesReceived += 1
        let pair = pairIndex(local: transaction.local, remote: transaction.remote)
        // Consent (RFC 7675) counts any authenticated answer on the selected pair.
        if let selected, selected.local == transaction.local, selected.remote == transaction.remote,
           message.type == .bindingSuccess {
            lastConsent = now
            reportedDisconnected = false
        }
        if message.type == .bindingError {
            if message.errorCode?.code == Self.roleConflictCode {
                // RFC 8445 section 7.2.5.1: switch role and check the pair again.
                role = role == .controlling ? .controlled : .controlling
                statistics.roleConflicts += 1
                if let pair {
                    pairs[pair].state = .waiting
                    triggered.append(pair)
                }
            } else if let pair {
                pairs[pair].state = .failed
                failIfNothingLeft()
            }
            return
        }
        // Symmetric addresses (RFC 8445 section 7.2.5.2.1): the answer must come from where the check went.
        guard source == transaction.remote, local == transaction.local, let pair else {
            if let pair { pairs[pair].state = .failed }
            return
        }
        pairs[pair].state = .succeeded
        if transaction.useCandidate {
            nominate(pair, now: now)
        } else if role == .controlling, nominating,
                  !transactions.contains(where: \.useCandidate) {
            // Regular nomination: check the first valid pair again with USE-CANDIDATE.
            startCheck(pair: pair, useCandidate: true, now: now)
        } else if role == .controlled, pairs[pair].nominated, nominating {
            nominate(pair, now: now)
        }
    }

    mutating func nominate(_ pair: Int, now: MonotonicTime) {
        pairs[pair].nominated = true
        let chosen = (local: pairs[pair].local, remote: pairs[pair].remote)
        if restartedAt == nil, let selected, selected.local == chosen.local, selected.remote == chosen.remote { return }
        restartedAt = nil
        reportedDisconnected = false
        selected = chosen
        lastConsent = now
        nextConsent = now + consentInterval()
        events.append(.selectedPair(local: chosen.local, remote: chosen.remote))
        // Checks still outstanding on other pairs are no longer needed (RFC 8445 section 8.1.2).
        transactions.removeAll { $0.local != chosen.local || $0.remote != chosen.remote }
        triggered.removeAll()
        for index in pairs.indices where pairs[index].state == .waiting { pairs[index].state = .failed }
    }

    // MARK: - The peer's checks

    mutating func handleRequest(_ message: STUNMessage, from source: TransportAddress, to local: TransportAddress,
                                now: MonotonicTime) {
        guard let username = message.username, username == "\(localCredentials.ufrag):\(remoteCredentials.ufrag)",
              message.hasValidIntegrity(key: localCredentials.integrityKey)
        else {
            statistics.integrityFailures += 1
            return
        }
        // RFC 8445 section 7.3.1.1: resolve a role conflict by tie-breaker.
        switch (role, message.attribute(.iceControlling), message.attribute(.iceControlled)) {
        case (.controlling, .iceControlling(let theirs)?, _):
            statistics.roleConflicts += 1
            if tieBreaker >= theirs {
                respond(to: message, from: source, to: local, errorCode: Self.roleConflictCode)
                return
            }
            role = .controlled
        case (.controlled, _, .iceControlled(let theirs)?):
            statistics.roleConflicts += 1
            if tieBreaker >= theirs {
                role = .controlling
            } else {
                respond(to: message, from: source, to: local, errorCode: Self.roleConflictCode)
                return
            }
        default: break
        }
        respond(to: message, from: source, to: local, errorCode: nil)
        if authenticatedRemotes.count < configuration.maxPairs { authenticatedRemotes.insert(source) }
        // A request from an unknown address is a peer-reflexive remote candidate (RFC 8445 section 7.3.1.3).
        if pairIndex(local: local, remote: source) == nil, localCandidates.contains(where: { $0.address == local }) {
            addPairs(remote: source, priority: message.priority ?? 0, onlyLocal: local)
        }
        guard let pair = pairIndex(local: local, remote: source) else { return }
        if role == .controlled, message.hasUseCandidate {
            pairs[pair].nominated = true
            if pairs[pair].state == .succeeded {
                nominate(pair, now: now)
                return
            }
        }
        // Triggered check (RFC 8445 section 7.3.1.4).
        if pairs[pair].state == .waiting || pairs[pair].state == .failed {
            pairs[pair].state = .waiting
            triggered.append(pair)
        }
    }

    mutating func respond(to request: STUNMessage, from source: TransportAddress, to local: TransportAddress,
                          errorCode: Int?) {
        var response = STUNMessage(type: errorCode == nil ? .bindingSuccess : .bindingError,
                                   transactionID: request.transactionID)
        if let errorCode {
            response.attributes = [.errorCode(code: errorCode, reason: "Role Conflict")]
            statistics.errorResponsesSent += 1
        } else {
            response.attributes = [.xorMappedAddress(source)]
            statistics.requestsAnswered += 1
        }
        guard let bytes = try? response.serialized(integrityKey: localCredentials.integrityKey) else { return }
        transmits.append(Transmit(source: local, destination: source, bytes: bytes))
    }

    // MARK: - Helpers

    mutating func addPairs(remote: TransportAddress, priority: UInt32, onlyLocal: TransportAddress? = nil) {
        for candidate in localCandidates where candidate.address.ip.isIPv6 == remote.ip.isIPv6 {
            if let onlyLocal, candidate.address != onlyLocal { continue }
            guard pairIndex(local: candidate.address, remote: remote) == nil, pairs.count < configuration.maxPairs
            else { continue }
            pairs.append(ICECandidatePair(local: candidate.address, localPriority: candidate.priority,
                                          remote: remote, remotePriority: priority))
        }
    }

    func pairIndex(local: TransportAddress, remote: TransportAddress) -> Int? {
        pairs.firstIndex { $0.local == local && $0.remote == remote }
    }

    /// Reports `.failed` when every pair failed and nothing is in flight.
    mutating func failIfNothingLeft() {
        guard nominating, !pairs.isEmpty, pairs.allSatisfy({ $0.state == .failed }), transactions.isEmpty
        else { return }
        events.append(.failed)
        close()
    }

    mutating func consentInterval() -> Duration {
        let range = configuration.consentIntervalRange
        let low = range.lowerBound.saturatingNanoseconds
        let high = max(low, range.upperBound.saturatingNanoseconds)
        return .nanoseconds(Int64.random(in: low...high, using: &random))
    }

    mutating func close() {
        isClosed = true
        transactions.removeAll()
        triggered.removeAll()
    }
}
