public import MediaTime
public import STUN

/// A TURN client (RFC 8656), sans-IO: one allocation on one server, its refreshes, the permissions and channels of the
/// peers its owner talks to, and the framing of data to and from them.
///
/// Bytes from the server go in through `handle(_:now:)` (one UDP datagram, or one frame cut by `TURNStreamFramer`),
/// time through `handleTimeout(now:)`; what to send to the server comes out of `pollTransmit()`, what happened out of
/// `pollEvent()`, and the next deadline out of `pollTimeout()`.
///
/// - Authentication: the first Allocate goes without credentials; the server's 401 names the realm and the nonce,
///   and every later request carries USERNAME, REALM, NONCE and MESSAGE-INTEGRITY. A 438 Stale Nonce is retried with
///   the new nonce (three times in a row at most). A success response without a valid MESSAGE-INTEGRITY is ignored,
///   as if lost: a forged answer cannot move the client.
/// - Lifetimes: the allocation is refreshed a minute before it ends (or at half its lifetime when that is shorter),
///   permissions every 4 minutes (they last 5), channels every 9 (they last 10).
/// - Retransmissions: over UDP at RTO, 2 RTO, 4 RTO... (`TURNClientConfiguration.maximumTransmissions` in all); over
///   TCP and TLS none. A request with no authenticated answer within `transactionTimeout` fails.
public struct TURNClient: Sendable {
    /// Where the allocation stands.
    public enum State: Sendable, Equatable {
        /// `start` not called yet.
        case idle
        /// The Allocate request is out.
        case allocating
        /// The allocation exists.
        case allocated(relayed: TransportAddress)
        /// `close` sent the releasing Refresh.
        case closing
        /// Released.
        case closed
        /// Failed or lost; nothing more is sent.
        case failed(TURNError)
    }

    /// Counters for statistics and tests.
    public struct Counters: Sendable, Equatable {
        /// Requests sent, retransmissions included.
        public var requestsSent = 0
        /// Transactions started: each request once, whatever its retransmissions.
        public var transactionsStarted = 0
        /// Responses and indications dropped: unauthenticated or forged success responses, unknown transactions,
        /// data from peers without a permission, ChannelData on unbound channels.
        public var messagesIgnored = 0
        /// Bytes from the server that were neither STUN nor ChannelData, or did not parse.
        public var malformed = 0
        /// Allocation refreshes that succeeded.
        public var refreshes = 0
    }

    /// Permissions last 300 s (RFC 8656 section 9); refreshed this long after each install.
    public static let permissionRefreshInterval: Duration = .seconds(240)
    /// Channel bindings last 600 s (RFC 8656 section 12); refreshed this long after each bind.
    public static let channelRefreshInterval: Duration = .seconds(540)
    /// 438 Stale Nonce answers in a row before giving up.
    public static let maximumStaleNonceRetries = 3

    /// The configuration.
    public let configuration: TURNClientConfiguration
    /// Where the allocation stands.
    public private(set) var state: State = .idle
    /// The relayed address once allocated.
    public private(set) var relayedAddress: TransportAddress?
    /// The client's address as the server saw it, once allocated.
    public private(set) var mappedAddress: TransportAddress?
    /// Counters.
    public private(set) var counters = Counters()

    private enum Kind: Sendable, Equatable {
        case allocate
        case refresh(lifetime: UInt32)
        case createPermission(TransportAddress)
        case channelBind(channel: UInt16, peer: TransportAddress)

        var method: UInt16 {
            switch self {
            case .allocate: STUNMessageType.allocateMethod
            case .refresh: STUNMessageType.refreshMethod
            case .createPermission: STUNMessageType.createPermissionMethod
            case .channelBind: STUNMessageType.channelBindMethod
            }
        }

        var name: String {
            switch self {
            case .allocate: "Allocate"
            case .refresh: "Refresh"
            case .createPermission: "CreatePermission"
            case .channelBind: "ChannelBind"
            }
        }

        var peer: TransportAddress? {
            switch self {
            case .createPermission(let peer), .channelBind(_, let peer): peer
            case .allocate, .refresh: nil
            }
        }
    }

    private struct Transaction: Sendable {
        var id: STUNTransactionID
        var kind: Kind
        var bytes: [UInt8]
        var authenticated: Bool
        var transmissions: Int
        var nextRetransmit: MonotonicTime?
        var deadline: MonotonicTime
        var staleNonceRetries: Int
    }

    private struct Binding: Sendable {
        var channel: UInt16
        var confirmed: Bool
        var refreshAt: MonotonicTime?
    }

    private var random: SplitMix64
    private var realm: String?
    private var nonce: String?
    private var key: [UInt8]?
    private var transactions: [Transaction] = []
    private var outgoing: [[UInt8]] = []
    private var events: [TURNEvent] = []
    private var allocationRefreshAt: MonotonicTime?
    /// Installed permissions by peer IP, with when each is refreshed.
    private var permissions: [IPAddress: MonotonicTime] = [:]
    /// Channels by peer, bound or being bound.
    private var bindings: [TransportAddress: Binding] = [:]
    private var peersByChannel: [UInt16: TransportAddress] = [:]
    private var nextChannel = ChannelData.channelRange.lowerBound

    /// Creates a client; nothing is sent before `start`.
    /// - Parameters:
    ///   - configuration: The server, credential and transport.
    ///   - generator: The source of transaction IDs (seeded once from it).
    public init(configuration: TURNClientConfiguration, using generator: inout some RandomNumberGenerator) {
        self.configuration = configuration
        random = SplitMix64(seed: generator.next())
    }

    /// Creates a client drawing transaction IDs from the system's generator.
    /// - Parameter configuration: The server, credential and transport.
    public init(configuration: TURNClientConfiguration) {
        var generator = SystemRandomNumberGenerator()
        self.init(configuration: configuration, using: &generator)
    }

    // MARK: Inputs

    /// Sends the first Allocate request.
    /// - Parameter now: The current time.
    public mutating func start(now: MonotonicTime) {
        guard state == .idle else { return }
        state = .allocating
        send(.allocate, now: now)
    }

    /// Asks the server to let `peer`'s datagrams through (CreatePermission); `.permissionInstalled` follows. The
    /// permission is kept until `close`.
    /// - Parameters:
    ///   - peer: The peer (its port is not part of a permission).
    ///   - now: The current time.
    /// - Throws: `TURNError.noAllocation` before the allocation exists.
    public mutating func createPermission(for peer: TransportAddress, now: MonotonicTime) throws(TURNError) {
        guard case .allocated = state else { throw .noAllocation }
        guard permissions[peer.ip] == nil,
              !transactions.contains(where: { $0.kind == .createPermission(TransportAddress(ip: peer.ip, port: 0)) })
        else { return }
        send(.createPermission(TransportAddress(ip: peer.ip, port: 0)), now: now)
    }

    /// Binds a channel to `peer` (which installs its permission too); `.channelBound` follows, and `wrap` then frames
    /// data for it as ChannelData.
    /// - Parameters:
    ///   - peer: The peer.
    ///   - now: The current time.
    /// - Throws: `TURNError.noAllocation` before the allocation exists, `.channelsExhausted` past 4,096 peers.
    public mutating func bindChannel(to peer: TransportAddress, now: MonotonicTime) throws(TURNError) {
        guard case .allocated = state else { throw .noAllocation }
        guard bindings[peer] == nil else { return }
        guard nextChannel <= ChannelData.channelRange.upperBound else { throw .channelsExhausted }
        let channel = nextChannel
        nextChannel += 1
        bindings[peer] = Binding(channel: channel, confirmed: false, refreshAt: nil)
        peersByChannel[channel] = peer
        send(.channelBind(channel: channel, peer: peer), now: now)
    }

    /// Releases the allocation (a Refresh with LIFETIME 0); `.closed` follows.
    /// - Parameter now: The current time.
    public mutating func close(now: MonotonicTime) {
        switch state {
        case .allocated:
            state = .closing
            transactions.removeAll()
            send(.refresh(lifetime: 0), now: now)
        case .idle, .allocating:
            state = .closed
            transactions.removeAll()
            events.append(.closed)
        case .closing, .closed, .failed:
            return
        }
    }

    /// Takes one message from the server: a UDP datagram, or one frame of a stream (`TURNStreamFramer`).
    /// - Parameters:
    ///   - bytes: The message.
    ///   - now: The current time.
    public mutating func handle(_ bytes: some Collection<UInt8>, now: MonotonicTime) {
        guard let first = bytes.first else {
            counters.malformed += 1
            return
        }
        if ChannelData.startsChannelData(first) {
            handleChannelData(bytes)
            return
        }
        guard let message = try? STUNMessage(parsing: bytes) else {
            counters.malformed += 1
            return
        }
        switch message.type.messageClass {
        case .indication:
            handleIndication(message)
        case .successResponse, .errorResponse:
            handleResponse(message, now: now)
        case .request:
            counters.messagesIgnored += 1  // servers do not send requests to clients
        }
    }

    /// Retransmits, times out and refreshes what is due.
    /// - Parameter now: The current time.
    public mutating func handleTimeout(now: MonotonicTime) {
        var index = 0
        while index < transactions.count {
            if transactions[index].deadline <= now {
                let expired = transactions.remove(at: index)
                fail(expired.kind, with: .timedOut(method: expired.kind.name, after: configuration.transactionTimeout))
                continue
            }
            if let retransmit = transactions[index].nextRetransmit, retransmit <= now {
                outgoing.append(transactions[index].bytes)
                counters.requestsSent += 1
                transactions[index].transmissions += 1
                transactions[index].nextRetransmit = nextRetransmission(after: transactions[index].transmissions, now: now)
            }
            index += 1
        }
        guard case .allocated = state else { return }
        if let refresh = allocationRefreshAt, refresh <= now {
            allocationRefreshAt = nil
            send(.refresh(lifetime: Self.seconds(configuration.requestedLifetime)), now: now)
        }
        for (ip, refreshAt) in permissions where refreshAt <= now {
            permissions[ip] = now + configuration.transactionTimeout  // not due again while the request is out
            send(.createPermission(TransportAddress(ip: ip, port: 0)), now: now)
        }
        for (peer, binding) in bindings {
            guard let refreshAt = binding.refreshAt, refreshAt <= now else { continue }
            bindings[peer]?.refreshAt = nil
            send(.channelBind(channel: binding.channel, peer: peer), now: now)
        }
    }

    // MARK: Outputs

    /// The next message for the server, if any.
    public mutating func pollTransmit() -> [UInt8]? {
        outgoing.isEmpty ? nil : outgoing.removeFirst()
    }

    /// The next event, if any.
    public mutating func pollEvent() -> TURNEvent? {
        events.isEmpty ? nil : events.removeFirst()
    }

    /// When `handleTimeout` is next due; nil when nothing is pending.
    public func pollTimeout() -> MonotonicTime? {
        var next: MonotonicTime?
        func consider(_ time: MonotonicTime?) {
            guard let time else { return }
            next = next.map { min($0, time) } ?? time
        }
        for transaction in transactions {
            consider(transaction.nextRetransmit)
            consider(transaction.deadline)
        }
        guard case .allocated = state else { return next }
        consider(allocationRefreshAt)
        for refreshAt in permissions.values { consider(refreshAt) }
        for binding in bindings.values { consider(binding.refreshAt) }
        return next
    }

    /// The channel bound to `peer`, once the server confirmed it.
    /// - Parameter peer: The peer.
    /// - Returns: The channel number, or nil.
    public func channel(for peer: TransportAddress) -> UInt16? {
        guard let binding = bindings[peer], binding.confirmed else { return nil }
        return binding.channel
    }

    /// Frames data for `peer`: ChannelData on its bound channel, otherwise a Send indication.
    /// - Parameters:
    ///   - payload: The application data.
    ///   - peer: The peer.
    /// - Returns: The message for the server.
    /// - Throws: `TURNError.noAllocation`, `.noPermission` (neither a permission nor a channel yet), or
    ///   `.payloadTooLarge`.
    public mutating func wrap(_ payload: some Collection<UInt8>, for peer: TransportAddress) throws(TURNError) -> [UInt8] {
        guard case .allocated = state else { throw .noAllocation }
        if let channel = channel(for: peer) {
            return try ChannelData.message(channel: channel, payload: payload, padded: configuration.transport.isStream)
        }
        guard permissions[peer.ip] != nil else { throw .noPermission(peer.ip) }
        guard payload.count <= Int(UInt16.max) - 64 else { throw .payloadTooLarge(payload.count) }
        let indication = STUNMessage(
            type: STUNMessageType(method: STUNMessageType.sendMethod, messageClass: .indication),
            transactionID: .random(using: &random),
            attributes: [.xorPeerAddress(peer), .data(Array(payload))])
        do {
            return try indication.serialized(fingerprint: false)
        } catch {
            throw .payloadTooLarge(payload.count)
        }
    }

    // MARK: Requests

    private static func seconds(_ duration: Duration) -> UInt32 {
        UInt32(clamping: max(duration.components.seconds, 0))
    }

    private func nextRetransmission(after transmissions: Int, now: MonotonicTime) -> MonotonicTime? {
        guard !configuration.transport.isStream else { return nil }
        return configuration.schedule.nextTransmission(after: transmissions, now: now)
    }

    private mutating func send(_ kind: Kind, now: MonotonicTime, staleNonceRetries: Int = 0) {
        var attributes: [STUNAttribute]
        switch kind {
        case .allocate:
            attributes = [.requestedTransport(17), .lifetime(Self.seconds(configuration.requestedLifetime))]
        case .refresh(let lifetime):
            attributes = [.lifetime(lifetime)]
        case .createPermission(let peer):
            attributes = [.xorPeerAddress(peer)]
        case .channelBind(let channel, let peer):
            attributes = [.channelNumber(channel), .xorPeerAddress(peer)]
        }
        if let software = configuration.software { attributes.append(.software(software)) }
        let authenticated = key != nil
        if let realm, let nonce {
            attributes += [.username(configuration.credential.username), .realm(realm), .nonce(nonce)]
        }
        let id = STUNTransactionID.random(using: &random)
        let message = STUNMessage(
            type: STUNMessageType(method: kind.method, messageClass: .request), transactionID: id, attributes: attributes)
        let bytes: [UInt8]
        do {
            bytes = try message.serialized(integrityKey: key, fingerprint: true)
        } catch {
            // Only over-long texts fail here: a username or realm past RFC 8489's limits.
            fail(kind, with: .malformed("cannot write the \(kind.name) request: \(error)"))
            return
        }
        outgoing.append(bytes)
        counters.requestsSent += 1
        counters.transactionsStarted += 1
        transactions.append(Transaction(
            id: id, kind: kind, bytes: bytes, authenticated: authenticated, transmissions: 1,
            nextRetransmit: nextRetransmission(after: 1, now: now), deadline: now + configuration.transactionTimeout,
            staleNonceRetries: staleNonceRetries))
    }

    // MARK: Responses

    private mutating func handleResponse(_ message: STUNMessage, now: MonotonicTime) {
        guard let index = transactions.firstIndex(where: { $0.id == message.transactionID }),
              transactions[index].kind.method == message.type.method
        else {
            counters.messagesIgnored += 1
            return
        }
        let transaction = transactions[index]
        if message.type.messageClass == .successResponse {
            // Only an answer signed with our key counts; anything else is treated as lost (it may be forged).
            guard let key, transaction.authenticated, message.hasValidIntegrity(key: key) else {
                counters.messagesIgnored += 1
                return
            }
            transactions.remove(at: index)
            succeed(transaction.kind, message, now: now)
            return
        }
        let (code, reason) = message.errorCode ?? (0, "")
        switch code {
        case 401 where !transaction.authenticated:
            // The challenge: learn the realm and nonce, and ask again with the credential.
            guard case .realm(let realm) = message.attribute(.realm), case .nonce(let nonce) = message.attribute(.nonce)
            else {
                transactions.remove(at: index)
                fail(transaction.kind, with: .malformed("401 without REALM and NONCE"))
                return
            }
            transactions.remove(at: index)
            self.realm = realm
            self.nonce = nonce
            key = configuration.credential.key(realm: realm)
            send(transaction.kind, now: now)
        case 438:
            guard case .nonce(let nonce) = message.attribute(.nonce) else {
                counters.messagesIgnored += 1
                return
            }
            transactions.remove(at: index)
            guard transaction.staleNonceRetries < Self.maximumStaleNonceRetries else {
                fail(transaction.kind, with: .staleNonceLoop(
                    server: configuration.server, attempts: transaction.staleNonceRetries + 1))
                return
            }
            self.nonce = nonce
            if case .realm(let realm) = message.attribute(.realm), realm != self.realm {
                self.realm = realm
                key = configuration.credential.key(realm: realm)
            }
            send(transaction.kind, now: now, staleNonceRetries: transaction.staleNonceRetries + 1)
        case 401, 441:
            transactions.remove(at: index)
            fail(transaction.kind, with: .unauthorized(
                server: configuration.server, reason: "\(code) \(TURNError.meaning(code) ?? reason)"))
        default:
            transactions.remove(at: index)
            if case .refresh(0) = transaction.kind, code == 437 {
                finishClose()  // already gone: released all the same
                return
            }
            fail(transaction.kind, with: .refused(method: transaction.kind.name, code: code, reason: reason))
        }
    }

    private mutating func succeed(_ kind: Kind, _ message: STUNMessage, now: MonotonicTime) {
        switch kind {
        case .allocate:
            guard state == .allocating else { return }
            guard case .xorRelayedAddress(let relayed) = message.attribute(.xorRelayedAddress) else {
                fail(kind, with: .malformed("Allocate success without XOR-RELAYED-ADDRESS"))
                return
            }
            let lifetime = grantedLifetime(message)
            relayedAddress = relayed
            mappedAddress = message.xorMappedAddress
            state = .allocated(relayed: relayed)
            scheduleRefresh(lifetime: lifetime, now: now)
            events.append(.allocated(relayed: relayed, mapped: message.xorMappedAddress, lifetime: lifetime))
        case .refresh(let requested):
            if requested == 0 {
                finishClose()
                return
            }
            counters.refreshes += 1
            scheduleRefresh(lifetime: grantedLifetime(message), now: now)
        case .createPermission(let peer):
            guard case .allocated = state else { return }
            let isNew = permissions[peer.ip] == nil
            permissions[peer.ip] = now + Self.permissionRefreshInterval
            if isNew { events.append(.permissionInstalled(peer.ip)) }
        case .channelBind(let channel, let peer):
            guard case .allocated = state, var binding = bindings[peer], binding.channel == channel else { return }
            let isNew = !binding.confirmed
            binding.confirmed = true
            binding.refreshAt = now + Self.channelRefreshInterval
            bindings[peer] = binding
            if permissions[peer.ip] == nil { permissions[peer.ip] = now + Self.permissionRefreshInterval }
            if isNew { events.append(.channelBound(peer: peer, channel: channel)) }
        }
    }

    private func grantedLifetime(_ message: STUNMessage) -> Duration {
        if case .lifetime(let seconds) = message.attribute(.lifetime) { return .seconds(Int64(seconds)) }
        return .seconds(600)  // RFC 8656 section 3.2's default
    }

    private mutating func scheduleRefresh(lifetime: Duration, now: MonotonicTime) {
        // A minute before the end, or at half the lifetime when that is shorter than two minutes.
        let lead = lifetime > .seconds(120) ? lifetime - .seconds(60) : lifetime / 2
        allocationRefreshAt = now + max(lead, .seconds(1))
    }

    private mutating func finishClose() {
        guard state == .closing else { return }
        state = .closed
        events.append(.closed)
    }

    /// What a failed request means: a lost allocation for Allocate and Refresh, a failed peer otherwise.
    private mutating func fail(_ kind: Kind, with error: TURNError) {
        switch kind {
        case .allocate, .refresh:
            if state == .closing {
                finishClose()  // the release went unanswered: the allocation times out on the server
                return
            }
            guard state != .closed else { return }
            if case .failed = state { return }
            state = .failed(error)
            transactions.removeAll()
            allocationRefreshAt = nil
            events.append(.failed(error))
        case .createPermission(let peer):
            permissions[peer.ip] = nil
            events.append(.peerRequestFailed(peer: peer, error: error))
        case .channelBind(let channel, let peer):
            if bindings[peer]?.channel == channel {
                bindings[peer] = nil
                peersByChannel[channel] = nil
            }
            events.append(.peerRequestFailed(peer: peer, error: error))
        }
    }

    // MARK: Data from peers

    private mutating func handleIndication(_ message: STUNMessage) {
        guard let peer = permittedSender(of: message), case .data(let payload) = message.attribute(.data) else {
            counters.messagesIgnored += 1
            return
        }
        events.append(.data(from: peer, payload: payload))
    }

    /// The peer a Data indication comes from, when it is one from a permitted peer on a live allocation.
    private func permittedSender(of message: STUNMessage) -> TransportAddress? {
        guard message.type.method == STUNMessageType.dataMethod, case .allocated = state,
              case .xorPeerAddress(let peer) = message.attribute(.xorPeerAddress), permissions[peer.ip] != nil
        else { return nil }
        return peer
    }

    private mutating func handleChannelData(_ bytes: some Collection<UInt8>) {
        guard let (peer, range) = channelDataSender(bytes) else { return }
        events.append(.data(from: peer, payload: Array(bytes[range])))
    }

    /// The peer of a ChannelData message on a bound channel, and where its data lies; counts what it refuses.
    private mutating func channelDataSender<Bytes: Collection<UInt8>>(
        _ bytes: Bytes
    ) -> (peer: TransportAddress, data: Range<Bytes.Index>)? {
        guard let (channel, range) = try? ChannelData.parse(bytes) else {
            counters.malformed += 1
            return nil
        }
        guard case .allocated = state, let peer = peersByChannel[channel] else {
            counters.messagesIgnored += 1
            return nil
        }
        return (peer, range)
    }

    // MARK: Data in place

    /// Takes one message from the server as `handle(_:now:)` does, except that data from a peer (ChannelData on a
    /// bound channel, a Data indication from a permitted peer) is returned instead of reported as `.data`: where it
    /// lies in `bytes`, so that a receive path reads it in place (SRTP unprotected in the socket's own buffer).
    /// - Parameters:
    ///   - bytes: The message.
    ///   - now: The current time.
    /// - Returns: The peer and the data's range as offsets from the first byte of `bytes`; nil for anything else.
    public mutating func receive(_ bytes: some Collection<UInt8>, now: MonotonicTime) -> (peer: TransportAddress, data: Range<Int>)? {
        guard let first = bytes.first else {
            counters.malformed += 1
            return nil
        }
        if ChannelData.startsChannelData(first) {
            guard let (peer, range) = channelDataSender(bytes) else { return nil }
            let start = ChannelData.headerSize
            return (peer, start..<(start + bytes.distance(from: range.lowerBound, to: range.upperBound)))
        }
        guard let message = try? STUNMessage(parsing: bytes) else {
            counters.malformed += 1
            return nil
        }
        switch message.type.messageClass {
        case .indication:
            guard let peer = permittedSender(of: message), let range = STUNMessage.valueRange(of: .data, in: bytes) else {
                counters.messagesIgnored += 1
                return nil
            }
            return (peer, range)
        case .successResponse, .errorResponse:
            handleResponse(message, now: now)
        case .request:
            counters.messagesIgnored += 1
        }
        return nil
    }

    /// The peer a confirmed channel is bound to.
    /// - Parameter channel: The channel number.
    /// - Returns: The peer, or nil when the channel is not bound (or not confirmed yet).
    public func peer(onChannel channel: UInt16) -> TransportAddress? {
        guard let peer = peersByChannel[channel], bindings[peer]?.confirmed == true else { return nil }
        return peer
    }
}
