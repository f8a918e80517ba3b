public import MediaTime
public import STUN
public import TURN

/// Gathers server-reflexive and relayed candidates (RFC 8445 section 5.1.1.2) from STUN and TURN servers on the
/// socket of a host candidate, and once ICE runs, carries the traffic of its relayed candidates through their TURN
/// allocations (RFC 8656). Sans-IO, as `PeerTransport` is: datagrams from the servers and time go in, datagrams for
/// the servers, events and deadlines come out.
///
/// - Each server gets a `STUNBindingClient` (`stun:`) or a `TURNClient` (`turn:` over UDP, TCP or TLS: a stream
///   server's messages travel on a connection the caller keeps, named by `Transmit.transport` and the `over:` of
///   `handle`, so that one address may serve UDP and TCP at once). A Binding answer gives a
///   `srflx` candidate; an allocation gives a `relay` candidate (and a `srflx` one from its mapped address). A
///   server-reflexive address equal to a host candidate is left out (RFC 8445 section 5.1.3: redundant).
/// - Gathering from a server ends with its candidates, its failure, or `timeout` (then it is given up).
/// - Traffic of a relayed candidate: `send(_:from:to:now:)` installs the peer's permission first (the datagram waits
///   for it), then wraps as a Send indication, or as ChannelData once `bindChannel(from:to:now:)` bound a channel.
///   What a peer sends through the relay comes back from `handle(_:from:now:)` as `.relayed`, with where the data
///   lies in the datagram so that it is read in place. Only authenticated TURN answers count (`TURNClient`).
///
/// ```swift
/// var gatherer = ICEGatherer(base: host, hostAddresses: hosts, now: now)
/// gatherer.add(ICEGatherer.Server(address: turnAddress, kind: .turn(credential), name: "turn:..."), now: now)
/// // on a datagram from anywhere: gatherer.handle(bytes, from: source, now: now)  -> .notFromServer: ICE's
/// // at gatherer.pollTimeout(): gatherer.handleTimeout(now: now)
/// while let transmit = gatherer.pollTransmit() { socket.send(transmit.bytes, to: transmit.destination) }
/// while let event = gatherer.pollEvent() { ... .candidate(candidate) ... }
/// ```
public struct ICEGatherer: Sendable {
    /// A STUN or TURN server, its host name already resolved.
    public struct Server: Hashable, Sendable, CustomStringConvertible {
        /// What the server is asked.
        public enum Kind: Hashable, Sendable {
            /// A Binding request: the server-reflexive address.
            case stun
            /// An allocation with this long-term credential (RFC 8656 over UDP).
            case turn(LongTermCredential)
        }

        /// The server's address.
        public var address: TransportAddress
        /// STUN or TURN.
        public var kind: Kind
        /// How messages name it (its URI; never a credential).
        public var name: String
        /// How its messages travel: UDP datagrams, or frames on a TCP or TLS connection (TURN only; STUN is UDP).
        public var transport: TURNClientConfiguration.Transport

        /// Creates a server.
        /// - Parameters:
        ///   - address: The server's resolved address.
        ///   - kind: STUN or TURN with a credential.
        ///   - name: How messages name it, e.g. `turn:turn.example.net:3478`.
        ///   - transport: UDP (the default), or TCP or TLS for a TURN server.
        public init(address: TransportAddress, kind: Kind, name: String, transport: TURNClientConfiguration.Transport = .udp) {
            self.address = address
            self.kind = kind
            self.name = name
            self.transport = transport
        }

        /// The name, and the address when it differs from it.
        public var description: String { name.contains(address.description) ? name : "\(name) (\(address))" }
    }

    /// A datagram for a server.
    public struct Transmit: Hashable, Sendable {
        /// The server.
        public var destination: TransportAddress
        /// The message.
        public var bytes: [UInt8]
        /// How it travels: a UDP datagram, or one frame on the connection to the server over TCP or TLS.
        public var transport: TURNClientConfiguration.Transport = .udp
    }

    /// What a received datagram was.
    public enum Received: Hashable, Sendable {
        /// Not from a server: ICE's and DTLS's own.
        case notFromServer
        /// A server's message, consumed here (an answer, something refused and counted).
        case consumed
        /// Data a peer sent to the relayed candidate `relayed`: handle the bytes in `data` (offsets from the first
        /// byte of the datagram) as a datagram from `peer` to `relayed`.
        case relayed(peer: TransportAddress, relayed: TransportAddress, data: Range<Int>)
    }

    /// What the gatherer reports.
    public enum Event: Hashable, Sendable {
        /// A new local candidate: `srflx` (for the offer) or `relay` (for the offer and for ICE's checks).
        case candidate(ICECandidate)
        /// A server gave no candidate (refused, no answer within the timeout); the reason never holds a credential.
        case serverFailed(server: String, reason: String)
        /// A channel to `peer` is bound on the relayed candidate `relayed`: `route(from:to:)` has it now.
        case channelBound(relayed: TransportAddress, peer: TransportAddress)
        /// A permission or channel for `peer` was refused or went unanswered.
        case peerFailed(relayed: TransportAddress, peer: TransportAddress, reason: String)
        /// The allocation behind the relayed candidate `relayed` was lost (a refresh failed).
        case relayLost(relayed: TransportAddress, reason: String)
    }

    /// How long gathering from one server may take: 5 s (a server that has not answered by then is given up; over
    /// UDP that is the first five transmissions of RFC 8489's schedule).
    public static let defaultTimeout: Duration = .seconds(5)
    /// The most datagrams waiting for one relayed candidate's permissions.
    public static let maximumWaiting = 64

    /// The host candidate the servers are reached from: the base of every candidate gathered here.
    public let base: TransportAddress
    /// The local candidates gathered so far, in order.
    public private(set) var candidates: [ICECandidate] = []
    /// Why servers gave no candidate (`server: reason`), in order.
    public private(set) var failures: [String] = []
    /// How long gathering from one server may take.
    public let timeout: Duration

    struct Entry: Sendable {
        var server: Server
        var index: Int
        var binding: STUNBindingClient?
        var turn: TURNClient?
        var gathering: Bool
        var deadline: MonotonicTime
        var relayed: TransportAddress?
        var waiting: [(peer: TransportAddress, bytes: [UInt8])] = []
    }

    let hostAddresses: Set<TransportAddress>
    var entries: [Entry] = []
    var random: SplitMix64
    var outgoing: [Transmit] = []
    var events: [Event] = []

    /// Creates a gatherer with no server yet.
    /// - Parameters:
    ///   - base: The host candidate whose socket reaches the servers.
    ///   - hostAddresses: Every host candidate (a server-reflexive address equal to one is redundant).
    ///   - timeout: How long gathering from one server may take.
    ///   - generator: The source of the clients' transaction IDs.
    public init(
        base: TransportAddress, hostAddresses: Set<TransportAddress> = [], timeout: Duration = ICEGatherer.defaultTimeout,
        using generator: inout some RandomNumberGenerator
    ) {
        self.base = base
        self.hostAddresses = hostAddresses.union([base])
        self.timeout = timeout
        random = SplitMix64(seed: generator.next())
    }

    /// Creates a gatherer drawing transaction IDs from the system's generator.
    public init(base: TransportAddress, hostAddresses: Set<TransportAddress> = [], timeout: Duration = ICEGatherer.defaultTimeout) {
        var generator = SystemRandomNumberGenerator()
        self.init(base: base, hostAddresses: hostAddresses, timeout: timeout, using: &generator)
    }

    /// The servers added, in order.
    public var servers: [Server] { entries.map(\.server) }

    /// Whether every server's gathering ended (with candidates or failed).
    public var isComplete: Bool { !entries.contains(where: \.gathering) }

    /// Starts gathering from a server (a server already added is ignored).
    /// - Parameters:
    ///   - server: The server.
    ///   - now: The current time.
    public mutating func add(_ server: Server, now: MonotonicTime) {
        guard !entries.contains(where: { $0.server == server }) else { return }
        var entry = Entry(server: server, index: entries.count, gathering: true, deadline: now + timeout)
        switch server.kind {
        case .stun:
            var client = STUNBindingClient(server: server.address, using: &random)
            client.start(now: now)
            entry.binding = client
        case .turn(let credential):
            var client = TURNClient(
                configuration: TURNClientConfiguration(
                    server: server.address, credential: credential, transport: server.transport),
                using: &random)
            client.start(now: now)
            entry.turn = client
        }
        entries.append(entry)
        collect(entries.count - 1)
    }

    // MARK: Inputs

    /// Takes a datagram if it comes from one of the servers.
    /// - Parameters:
    ///   - datagram: The bytes (over a stream: one whole frame, `TURNStreamFramer`).
    ///   - source: Where they came from.
    ///   - transport: What carried them: a UDP datagram, or the TCP or TLS connection to `source`.
    ///   - now: The current time.
    /// - Returns: `.notFromServer` for anything not from a server's address; `.relayed` for a peer's data.
    public mutating func handle(
        _ datagram: some Collection<UInt8>, from source: TransportAddress,
        over transport: TURNClientConfiguration.Transport = .udp, now: MonotonicTime
    ) -> Received {
        var matched = false
        for index in entries.indices where entries[index].server.address == source && entries[index].server.transport == transport {
            matched = true
            if entries[index].turn != nil {
                if let (peer, range) = entries[index].turn!.receive(datagram, now: now), let relayed = entries[index].relayed {
                    return .relayed(peer: peer, relayed: relayed, data: range)
                }
            } else if entries[index].binding != nil {
                entries[index].binding!.handle(datagram, now: now)
            }
            collect(index)
        }
        return matched ? .consumed : .notFromServer
    }

    /// Retransmits, refreshes and gives up what is due.
    /// - Parameter now: The current time.
    public mutating func handleTimeout(now: MonotonicTime) {
        for index in entries.indices {
            entries[index].binding?.handleTimeout(now: now)
            entries[index].turn?.handleTimeout(now: now)
            if entries[index].gathering, now >= entries[index].deadline {
                entries[index].binding = nil
                entries[index].turn = nil
                finishGathering(index, failure: "no answer within \(timeout.components.seconds) s")
            }
            collect(index)
        }
    }

    /// Sends `bytes` from the relayed candidate `relayed` to `peer` through its server: as ChannelData once a
    /// channel is bound, otherwise as a Send indication, after the peer's permission is installed (requested here,
    /// the datagram waiting for it). Dropped when `relayed` is not a live relayed candidate.
    /// - Parameters:
    ///   - bytes: The datagram (a STUN check, DTLS).
    ///   - relayed: The relayed candidate it is sent from.
    ///   - peer: The destination.
    ///   - now: The current time.
    public mutating func send(_ bytes: [UInt8], from relayed: TransportAddress, to peer: TransportAddress, now: MonotonicTime) {
        guard let index = relayIndex(relayed), var client = entries[index].turn else { return }
        defer {
            entries[index].turn = client
            collect(index)
        }
        do {
            outgoing.append(Transmit(
                destination: entries[index].server.address, bytes: try client.wrap(bytes, for: peer),
                transport: entries[index].server.transport))
        } catch .noPermission {
            guard entries[index].waiting.count < Self.maximumWaiting else { return }
            entries[index].waiting.append((peer, bytes))
            try? client.createPermission(for: peer, now: now)
        } catch {
            return  // too large for one message, or the allocation is gone
        }
    }

    /// Binds a channel to `peer` on the relayed candidate `relayed` (for the selected pair: media then goes as
    /// ChannelData); `.channelBound` follows.
    /// - Parameters:
    ///   - relayed: The relayed candidate.
    ///   - peer: The peer.
    ///   - now: The current time.
    public mutating func bindChannel(from relayed: TransportAddress, to peer: TransportAddress, now: MonotonicTime) {
        guard let index = relayIndex(relayed) else { return }
        do {
            try entries[index].turn?.bindChannel(to: peer, now: now)
        } catch {
            events.append(.peerFailed(relayed: relayed, peer: peer, reason: "\(error)"))
        }
        collect(index)
    }

    /// The connection to a TCP or TLS server broke or could not be made: its gathering fails with `reason`, or its
    /// relayed candidate is lost (`.relayLost`).
    /// - Parameters:
    ///   - server: The server's address.
    ///   - transport: TCP or TLS.
    ///   - reason: Why (never a credential).
    public mutating func connectionFailed(
        to server: TransportAddress, over transport: TURNClientConfiguration.Transport, reason: String
    ) {
        for index in entries.indices where entries[index].server.address == server && entries[index].server.transport == transport {
            guard entries[index].turn != nil || entries[index].binding != nil else { continue }
            entries[index].turn = nil
            entries[index].binding = nil
            entries[index].waiting.removeAll()
            if entries[index].gathering {
                finishGathering(index, failure: reason)
            } else if let relayed = entries[index].relayed {
                events.append(.relayLost(relayed: relayed, reason: reason))
            }
        }
    }

    /// Releases every allocation (Refresh with LIFETIME 0) and stops gathering.
    /// - Parameter now: The current time.
    public mutating func close(now: MonotonicTime) {
        for index in entries.indices {
            entries[index].binding = nil
            entries[index].gathering = false
            entries[index].turn?.close(now: now)
            collect(index)
            entries[index].turn = nil
            entries[index].waiting.removeAll()
        }
    }

    // MARK: Outputs

    /// The next datagram for a server.
    public mutating func pollTransmit() -> Transmit? { outgoing.isEmpty ? nil : outgoing.removeFirst() }

    /// The next event.
    public mutating func pollEvent() -> Event? { events.isEmpty ? nil : events.removeFirst() }

    /// When `handleTimeout(now:)` is next due; nil when nothing is pending.
    public func pollTimeout() -> MonotonicTime? {
        var deadlines: [MonotonicTime] = []
        for entry in entries {
            if entry.gathering { deadlines.append(entry.deadline) }
            if let due = entry.binding?.pollTimeout() { deadlines.append(due) }
            if let due = entry.turn?.pollTimeout() { deadlines.append(due) }
        }
        return deadlines.min()
    }

    /// Whether `address` is one of the relayed candidates.
    /// - Parameter address: A local candidate's address.
    public func isRelayed(_ address: TransportAddress) -> Bool { relayIndex(address) != nil }

    /// Where media from the relayed candidate `relayed` to `peer` goes: the server, on the channel bound to the peer.
    /// - Parameters:
    ///   - relayed: The relayed candidate.
    ///   - peer: The peer.
    /// - Returns: The server, the channel and how the server is reached, or nil until the channel is bound.
    public func route(
        from relayed: TransportAddress, to peer: TransportAddress
    ) -> (server: TransportAddress, channel: UInt16, transport: TURNClientConfiguration.Transport)? {
        guard let index = relayIndex(relayed), let channel = entries[index].turn?.channel(for: peer) else { return nil }
        return (entries[index].server.address, channel, entries[index].server.transport)
    }

    /// The server behind the relayed candidate `relayed`.
    /// - Parameter relayed: The relayed candidate.
    public func server(relaying relayed: TransportAddress) -> Server? { relayIndex(relayed).map { entries[$0].server } }

    // MARK: Helpers

    func relayIndex(_ relayed: TransportAddress) -> Int? {
        entries.firstIndex { $0.relayed == relayed && $0.turn != nil }
    }

    /// Moves a client's transmits out and reacts to what it reports.
    mutating func collect(_ index: Int) {
        let server = entries[index].server
        if var binding = entries[index].binding {
            while let bytes = binding.pollTransmit() {
                outgoing.append(Transmit(destination: server.address, bytes: bytes, transport: server.transport))
            }
            switch binding.result {
            case .mapped(let mapped)?:
                entries[index].binding = nil
                addReflexive(mapped, index: index)
                finishGathering(index, failure: nil)
            case .failed(let error)?:
                entries[index].binding = nil
                finishGathering(index, failure: "\(error)")
            case nil:
                entries[index].binding = binding
            }
        }
        guard var client = entries[index].turn else { return }
        while let bytes = client.pollTransmit() {
            outgoing.append(Transmit(destination: server.address, bytes: bytes, transport: server.transport))
        }
        var clientEvents: [TURNEvent] = []
        while let event = client.pollEvent() { clientEvents.append(event) }
        for event in clientEvents {
            switch event {
            case .allocated(let relayed, let allocationMapped, _):
                entries[index].relayed = relayed
                // Over TCP or TLS the mapped address is the connection's, not a UDP mapping: no srflx candidate
                // from it (a peer's checks to that port would go nowhere), and the relay's related address is the base.
                let mapped = server.transport.isStream ? nil : allocationMapped
                if let mapped { addReflexive(mapped, index: index) }
                let related = mapped ?? base
                add(ICECandidate(
                    foundation: "relay\(index + 1)", priority: priority(.relay, index: index),
                    address: relayed.ip.description, port: relayed.port, kind: .relay,
                    relatedAddress: related.ip.description, relatedPort: related.port))
                finishGathering(index, failure: nil)
            case .permissionInstalled(let ip):
                let ready = entries[index].waiting.filter { $0.peer.ip == ip }
                entries[index].waiting.removeAll { $0.peer.ip == ip }
                for (peer, bytes) in ready {
                    if let wrapped = try? client.wrap(bytes, for: peer) {
                        outgoing.append(Transmit(destination: server.address, bytes: wrapped, transport: server.transport))
                    }
                }
            case .channelBound(let peer, _):
                if let relayed = entries[index].relayed { events.append(.channelBound(relayed: relayed, peer: peer)) }
            case .peerRequestFailed(let peer, let error):
                entries[index].waiting.removeAll { $0.peer.ip == peer.ip }
                if let relayed = entries[index].relayed {
                    events.append(.peerFailed(relayed: relayed, peer: peer, reason: "\(error)"))
                }
            case .failed(let error):
                if entries[index].gathering {
                    finishGathering(index, failure: "\(error)")
                } else if let relayed = entries[index].relayed {
                    events.append(.relayLost(relayed: relayed, reason: "\(error)"))
                }
                entries[index].waiting.removeAll()
            case .data, .closed:
                break  // data comes back through `receive`; a release needs no answer
            }
        }
        if case .failed = client.state {
            entries[index].turn = nil
        } else {
            entries[index].turn = client
        }
    }

    mutating func finishGathering(_ index: Int, failure: String?) {
        guard entries[index].gathering else { return }
        entries[index].gathering = false
        guard let failure else { return }
        failures.append("\(entries[index].server): \(failure)")
        events.append(.serverFailed(server: entries[index].server.description, reason: failure))
    }

    /// A server-reflexive candidate, unless it is a host address or already gathered.
    mutating func addReflexive(_ mapped: TransportAddress, index: Int) {
        guard !hostAddresses.contains(mapped),
              !candidates.contains(where: { $0.kind == .srflx && $0.transportAddress == mapped })
        else { return }
        add(ICECandidate(
            foundation: "srflx\(index + 1)", priority: priority(.srflx, index: index), address: mapped.ip.description,
            port: mapped.port, kind: .srflx, relatedAddress: base.ip.description, relatedPort: base.port))
    }

    mutating func add(_ candidate: ICECandidate) {
        candidates.append(candidate)
        events.append(.candidate(candidate))
    }

    /// RFC 8445 section 5.1.2.1's formula: the type preference, then the server's place as the local preference.
    func priority(_ kind: ICECandidate.Kind, index: Int) -> UInt32 {
        ICECandidate.priority(kind: kind, localPreference: ICECandidate.defaultLocalPreference - UInt32(min(index, 1000)))
    }
}
