import DTLS
import HTTPEndpoint
import HTTPRequester
import Logging
import MediaTime
import NIOCore
import NIOPosix
import STUN
import Synchronization
import Transport
import WebRTC
import WebRTCTransport

/// The offering side of a WHIP or WHEP session below the media, shared by `WHIPPublisher` and the WHEP player: one
/// wildcard UDP socket with a host candidate per interface address, the configured ICE servers' candidates, our ICE
/// credentials and DTLS certificate for the offer; after the answer, full ICE (controlling) and DTLS over that socket.
///
/// ```
/// prepare(client:whip:)  -> socket bound, host/srflx/relay candidates, credentials, certificate: make the offer
/// endpointServers(...)   -> the answer's Link-header TURN servers, resolved
/// connect(...)           -> ICE + DTLS done on a WebRTCLink: the transport is secured, media may flow
/// ```
/// One wildcard socket of the family the system routes toward the endpoint with (IPv4, or IPv6 for an IPv6 endpoint);
/// its host candidates are the address the route leaves from, then every other up interface's address of that family
/// (loopback only when the endpoint is on loopback, no IPv6 link-local), at most eight; ICE pairs each datagram by the
/// address it arrived on.
package final class OfferingPeer: Sendable {
    /// The loop the socket, ICE and DTLS run on.
    package let loop: any EventLoop
    /// The socket (media is held until DTLS keys exist).
    package let transport: NIOLoopBound<UDPTransport>
    /// The connections to TURN servers over TCP or TLS.
    package let streams: NIOLoopBound<TURNStreams>
    /// Our host addresses with the socket's port, the routed one first.
    package let locals: [TransportAddress]
    /// The interface addresses of `locals` (an ICE restart re-reads them).
    package let hostIPs: [String]
    /// The socket's port.
    package let port: UInt16
    /// The gatherer after the offer's gathering (its candidates are in `candidates`).
    package let offerGatherer: ICEGatherer
    /// Every candidate of the offer: host, then server-reflexive and relayed.
    package let candidates: [ICECandidate]
    /// The DTLS certificate of the offer's fingerprint.
    package let certificate: DTLSCertificate
    /// The ICE credentials of the offer.
    package let credentials: ICECredentials
    /// Why ICE servers gave no candidate (IPv6 paths, gathering failures). Never holds a credential.
    package let problems: [String]
    /// Whether the socket is IPv6.
    package var ipv6: Bool { locals[0].ip.isIPv6 }
    /// The routed host address.
    package var local: TransportAddress { locals[0] }

    /// Our ICE and DTLS parameters for the offer (full ICE).
    package var localTransport: LocalTransportDescription {
        LocalTransportDescription(credentials: credentials, candidates: candidates, iceLite: false,
                                  fingerprint: certificate.fingerprint)
    }

    private init(loop: any EventLoop, transport: NIOLoopBound<UDPTransport>, streams: NIOLoopBound<TURNStreams>,
                 locals: [TransportAddress], hostIPs: [String], port: UInt16, offerGatherer: ICEGatherer,
                 candidates: [ICECandidate], certificate: DTLSCertificate, credentials: ICECredentials, problems: [String]) {
        self.loop = loop
        self.transport = transport
        self.streams = streams
        self.locals = locals
        self.hostIPs = hostIPs
        self.port = port
        self.offerGatherer = offerGatherer
        self.candidates = candidates
        self.certificate = certificate
        self.credentials = credentials
        self.problems = problems
    }

    /// Binds the socket and gathers the offer's candidates.
    /// - Parameters:
    ///   - client: the endpoint's client (its host decides the route and family; its TLS verifies TURN over TLS).
    ///   - whip: the ICE servers and gathering timeout.
    ///   - loop: the loop to run on; nil picks one of the process's.
    /// - Throws: `WHIPError.connectionFailed` (no route), `.iceServer` (an unresolvable server), socket errors;
    ///   nothing stays open then.
    package static func prepare(client: WHIPClient, whip: WHIPConfiguration, loop: (any EventLoop)? = nil) async throws
        -> OfferingPeer
    {
        let routeIP = try await routeSource(toward: client.endpoint)
        guard let routeAddress = TransportAddress(ipString: routeIP, port: 0) else {
            throw WHIPError.connectionFailed(url: client.endpoint.description, reason: "the route to it is from \(routeIP)")
        }
        let ipv6 = routeAddress.ip.isIPv6
        let loop = loop ?? MultiThreadedEventLoopGroup.singleton.next()
        var transportConfiguration = TransportConfiguration(
            localHost: ipv6 ? "::" : "0.0.0.0", localPort: 0, peer: nil, rtcpMux: true, security: nil)
        transportConfiguration.holdMediaUntilSecured = true
        transportConfiguration.receivePacketInfo = true
        let transport = try await UDPTransport.bind(configuration: transportConfiguration, eventLoop: loop)
        let boundPort = try await loop.submit { transport.value.localPort }.get()
        guard let port = UInt16(exactly: boundPort), port > 0 else {
            try? await loop.submit { transport.value.close() }.get()
            throw WHIPError.connectionFailed(url: client.endpoint.description, reason: "no local port to offer")
        }
        let hostIPs = hostCandidateIPs(routeIP: routeIP, includeLoopback: client.endpoint.isLoopback)
        // ICE servers are resolved to IPv4: of no use from an IPv6 socket.
        let usableServers = ipv6 ? [] : whip.iceServers
        let ipv6Problems = ipv6 ? whip.iceServers.map { "\($0.uri): not used on an IPv6 path (ICE servers are IPv4 only)" } : []
        let locals = hostIPs.compactMap { TransportAddress(ipString: $0, port: port) }
        let hostCandidates = hostCandidates(locals)

        // The configured STUN and TURN servers (host names resolved once): their candidates go into the offer. TURN
        // over TCP or TLS goes over connections of its own (TURNStreams), verified as the WHIP client verifies.
        let tls = client.tls
        let streams = try await loop.submit {
            NIOLoopBound(TURNStreams(servers: [], eventLoop: loop) { host, name in
                let (handler, explain) = try tls.makeStreamHandler(host: host, name: name)
                return (handler, explain)
            }, eventLoop: loop)
        }.get()
        var gatherer = ICEGatherer(base: locals[0], hostAddresses: Set(locals), timeout: whip.gatheringTimeout)
        do {
            var servers: [ICEGatherer.Server] = []
            for server in usableServers {
                let resolved: ICEGatherer.Server
                do { resolved = try await server.gathererServer() } catch { throw WHIPError.iceServer(uri: error.uri, reason: error.reason) }
                if resolved.transport == .tls, !TLSAvailability.isBuilt {
                    throw WHIPError.iceServer(uri: server.uri, reason: TLSAvailability.missingMessage)
                }
                servers.append(resolved)
                try await addStream(server, resolved: resolved, to: streams)
            }
            let now = WebRTCLink.monotonicNow()
            for server in servers { gatherer.add(server, now: now) }
            if !servers.isEmpty { gatherer = try await CandidateGathering.run(gatherer, on: transport, streams: streams) }
        } catch {
            try? await loop.submit { transport.value.close(); streams.value.close() }.get()
            throw error
        }
        return OfferingPeer(
            loop: loop, transport: transport, streams: streams, locals: locals, hostIPs: hostIPs, port: port,
            offerGatherer: gatherer, candidates: hostCandidates + gatherer.candidates,
            certificate: try DTLSCertificate.generate(), credentials: ICECredentials.random(),
            problems: ipv6Problems + gatherer.failures)
    }

    /// POSTs the offer and reads the answer. A failed POST closes the socket; an answer that does not parse or is
    /// refused by `accept` closes it and DELETEs the session, as `abandon` does.
    /// - Parameters:
    ///   - offer: our SDP offer.
    ///   - client: the endpoint's client.
    ///   - accept: reads the parsed answer (`VideoOfferer.accept`, `VideoReceiveOfferer.accept`).
    /// - Returns: the session, what `accept` read, and how long the POST took.
    /// - Throws: the POST's `WHIPError`, or `WHIPError.badAnswer` naming why the answer cannot be used.
    package func post<Negotiated>(
        _ offer: String, to client: WHIPClient, accept: (JSEPSessionDescription) throws -> Negotiated
    ) async throws -> (session: WHIPSession, negotiated: Negotiated, duration: Duration) {
        let postedAt = ContinuousClock.now
        let session: WHIPSession
        do {
            session = try await client.publish(offer: offer)
        } catch {
            await close()
            throw error
        }
        let duration = ContinuousClock.now - postedAt
        do {
            return (session, try accept(try JSEPSessionDescription(parsing: session.answer)), duration)
        } catch {
            throw await abandon(session, client: client, WHIPError.badAnswer("\(error)"))
        }
    }

    /// Gives up a session after its answer: closes the socket and DELETEs the session (its failure ignored).
    /// - Returns: `error`, to throw.
    package func abandon(_ session: WHIPSession, client: WHIPClient, _ error: any Error) async -> any Error {
        await close()
        try? await client.terminate(session)
        return error
    }

    /// Closes the socket and the TURN connections (before `connect`, or when it failed).
    package func close() async {
        let transport = self.transport, streams = self.streams
        try? await loop.submit { transport.value.close(); streams.value.close() }.get()
    }

    /// The TURN servers of the endpoint's `Link` headers that the configuration does not already name, resolved and
    /// registered (TCP and TLS ones get connections): ICE allocates on them next to its first checks.
    /// - Returns: the servers, and why others cannot be used.
    package func endpointServers(_ offered: [ICEServer], whip: WHIPConfiguration) async -> ([ICEGatherer.Server], [String]) {
        guard whip.usesEndpointICEServers, !ipv6 else { return ([], []) }
        var servers: [ICEGatherer.Server] = []
        var problems: [String] = []
        for server in offered {
            guard !whip.iceServers.contains(where: { $0.uri == server.uri && $0.username == server.username }) else {
                continue
            }
            do {
                let resolved = try await server.gathererServer(afterOffer: true)
                servers.append(resolved)
                try await Self.addStream(server, resolved: resolved, to: streams)
            } catch {
                problems.append("the endpoint's \(error)")
            }
        }
        return (servers, problems)
    }

    /// What happens on the link after it connected.
    package enum LinkEvent: Sendable {
        /// ICE moved to another pair (or a restart proved the same one).
        case pathChanged
        /// The selected pair stopped answering consent checks.
        case disconnected
        /// A local candidate gathered late (trickle it).
        case candidate(ICECandidate)
        /// The link closed: why, in words.
        case closed(String)
    }

    /// Runs ICE (full, controlling) and DTLS against the answer's candidates until DTLS is done.
    /// - Parameters:
    ///   - negotiated: the answer's ICE and DTLS parameters.
    ///   - endpointServers: the answer's TURN servers (`endpointServers`).
    ///   - allowRepeatTransmission: see `TransportSecurity.allowRepeatTransmission`.
    ///   - timeout: how long ICE and DTLS may take.
    ///   - onEvent: called on the loop with what happens afterwards (and with `.closed` if the link closes during the
    ///     connection, which then fails).
    /// - Returns: the link and the selected remote address.
    /// - Throws: `WHIPError.badAnswer` without a usable candidate, `.transportClosed` when ICE or DTLS failed or
    ///   timed out (with the ICE servers' failures); the link is closed then, the socket is not.
    package func connect(
        _ negotiated: NegotiatedVideo, endpointServers: [ICEGatherer.Server], allowRepeatTransmission: Bool,
        timeout: Duration, onEvent: @escaping @Sendable (LinkEvent) -> Void
    ) async throws -> (link: NIOLoopBound<WebRTCLink>, remote: TransportAddress, usable: [ICECandidate]) {
        let usable = Self.usableRemoteCandidates(negotiated.remoteCandidates, ipv6: ipv6)
        guard !usable.isEmpty else {
            throw WHIPError.badAnswer(
                "no UDP candidate of our address family (\(ipv6 ? "IPv6" : "IPv4")) in the answer")
        }
        let connected = loop.makePromise(of: TransportAddress.self)
        let transport = self.transport, streams = self.streams, local = self.local
        let agentCandidates = ICEFullAgent.LocalCandidate.checked(from: candidates)
        let credentials = self.credentials, certificate = self.certificate, offerGatherer = self.offerGatherer
        let link = try await loop.submit {
            let now = WebRTCLink.monotonicNow()
            var agent = ICEFullAgent(
                local: credentials, remote: negotiated.remoteCredentials, localCandidates: agentCandidates, now: now)
            for remote in usable { agent.addRemoteCandidate(remote) }
            let dtls = try DTLSEndpoint(
                context: try DTLSContext(certificate: certificate), role: negotiated.dtlsRole,
                remoteFingerprint: negotiated.remoteFingerprint)
            var gatherer = offerGatherer
            for server in endpointServers { gatherer.add(server, now: now) }
            let peer = PeerTransport(agent: .full(agent), dtls: dtls, gatherer: gatherer)
            let link = WebRTCLink(
                transport: transport.value, peer: peer, allowRepeatTransmission: allowRepeatTransmission, local: local,
                streams: streams.value
            ) { event in
                switch event {
                case .connected(let remote): connected.succeed(remote)
                case .pathChanged: onEvent(.pathChanged)
                case .disconnected: onEvent(.disconnected)
                case .candidate(let candidate): onEvent(.candidate(candidate))
                case .closed(let reason):
                    connected.fail(WHIPError.transportClosed(Self.describe(reason)))
                    onEvent(.closed(Self.describe(reason)))
                case .securityFailed(let reason):
                    connected.fail(WHIPError.transportClosed("SRTP keys: \(reason)"))
                    onEvent(.closed("SRTP keys: \(reason)"))
                }
            }
            link.start()
            return NIOLoopBound(link, eventLoop: transport.eventLoop)
        }.get()
        let timer = loop.scheduleTask(in: .nanoseconds(max(0, timeout.saturatingNanoseconds))) {
            connected.fail(WHIPError.transportClosed("ICE and DTLS did not connect within \(timeout)"))
        }
        do {
            let remote = try await connected.futureResult.get()
            timer.cancel()
            return (link, remote, usable)
        } catch {
            timer.cancel()
            // Why servers gave no candidate is part of why nothing connected (a refused TURN credential, say).
            let failures = (try? await loop.submit { () -> [String] in
                let failures = link.value.peer.gatherer?.failures ?? []
                link.value.close()
                return failures
            }.get()) ?? []
            if case WHIPError.transportClosed(let reason) = error, !failures.isEmpty {
                throw WHIPError.transportClosed(reason + "; ICE servers that gave no candidate: " + failures.joined(separator: "; "))
            }
            throw error
        }
    }

    /// What ICE and DTLS settled on, once connected.
    package struct Connection: Sendable {
        /// The SRTP suite's SDP name.
        package var suite: String
        /// The selected pair's local address, if the agent knows it.
        package var selectedLocal: TransportAddress?
        /// The TURN server of the selected pair (its URI) and how it is reached, or nil for a direct pair.
        package var relay: String?
        /// See `relay`.
        package var relayProtocol: String?
        /// Every server-reflexive and relayed candidate gathered (`typ address:port`).
        package var gathered: [String]
        /// Gathering failures after the offer's.
        package var lateProblems: [String]
    }

    /// Reads what the link settled on.
    package func connection(of link: NIOLoopBound<WebRTCLink>) async throws -> Connection {
        let offerFailures = offerGatherer.failures.count
        return try await loop.submit {
            let peer = link.value.peer
            let selected = peer.path?.local
            let relayServer = selected.flatMap { peer.gatherer?.server(relaying: $0) }
            return Connection(
                suite: peer.keys?.suite.sdpName ?? "?", selectedLocal: selected, relay: relayServer?.name,
                relayProtocol: relayServer?.transport.rawValue,
                gathered: (peer.gatherer?.candidates ?? []).map { "\($0.kind.rawValue) \($0.address):\($0.port)" },
                lateProblems: Array((peer.gatherer?.failures ?? []).dropFirst(offerFailures)))
        }.get()
    }

    /// The ICE restarter of a connected session: the offer's credentials, port and host addresses with the session's
    /// endpoint, mid, remote candidates and link.
    /// - Parameters:
    ///   - afterPathChange: what a new (or re-proven) pair asks for at once: an IDR from a publisher, a PLI from a
    ///     player.
    package func restarter(
        client: WHIPClient, session: WHIPSession, mid: String, remoteCandidates: [ICECandidate],
        link: NIOLoopBound<WebRTCLink>, signals: ICERestarter.Signals,
        events: AsyncStream<WHIPPublisherEvent>.Continuation, logger: Logger,
        afterPathChange: @escaping @Sendable () -> Void
    ) -> ICERestarter {
        ICERestarter(
            context: ICERestarter.Context(
                client: client, session: session, credentials: credentials, mid: mid, port: port, hostIPs: hostIPs,
                remoteCandidates: remoteCandidates, link: link, afterPathChange: afterPathChange, logger: logger),
            signals: signals, events: events)
    }

    // MARK: - Helpers

    /// The local IP the system sends from toward the endpoint's host (a connected UDP socket's own address; nothing is
    /// sent).
    static func routeSource(toward url: HTTPURL) async throws(WHIPError) -> String {
        do {
            let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: url.host, port: url.port).get()
            defer { channel.close(promise: nil) }
            guard let ip = channel.localAddress?.ipAddress else {
                throw WHIPError.connectionFailed(url: url.description, reason: "no local address routes to it")
            }
            return ip
        } catch let error as WHIPError {
            throw error
        } catch {
            throw .connectionFailed(url: url.description, reason: "no route to its host (\(HTTPExchange.reason(error)))")
        }
    }

    /// The addresses to offer host candidates for, of the route's family: the routed one first, then every other up
    /// interface's, loopback only when the endpoint itself is on loopback (RFC 8445 section 5.1.1.1 leaves loopback
    /// out), IPv6 link-local addresses never (they need a scope; RFC 8445 section 5.1.1.1 leaves them out too).
    static func hostCandidateIPs(routeIP: String, includeLoopback: Bool) -> [String] {
        var addresses = [routeIP]
        let ipv6 = routeIP.contains(":")
        let devices = (try? System.enumerateDevices()) ?? []
        for device in devices {
            guard let address = device.address, let ip = address.ipAddress else { continue }
            switch address {
            case .v4 where !ipv6:
                guard !ip.hasPrefix("127.") || includeLoopback else { continue }
            case .v6 where ipv6:
                let lower = ip.lowercased()
                guard !lower.hasPrefix("fe8"), !lower.hasPrefix("fe9"), !lower.hasPrefix("fea"), !lower.hasPrefix("feb"),
                      lower != "::1" || includeLoopback, !lower.hasPrefix("::ffff:")
                else { continue }
            default: continue
            }
            guard !addresses.contains(ip) else { continue }
            addresses.append(ip)
        }
        return Array(addresses.prefix(Self.maximumHostCandidates))
    }

    /// Registers a TURN server reached over TCP or TLS with the connections' owner (nothing for UDP and STUN).
    static func addStream(
        _ server: ICEServer, resolved: ICEGatherer.Server, to streams: NIOLoopBound<TURNStreams>
    ) async throws {
        guard resolved.transport.isStream else { return }
        let stream = TURNStreams.Server(
            address: resolved.address, transport: resolved.transport, host: server.host, name: server.uri)
        try await streams.eventLoop.submit { streams.value.add(stream) }.get()
    }

    /// Host candidates for our addresses, the routed one first: foundations 1, 2, ... and local preferences counting
    /// down from the highest, so that the routed address is tried first.
    static func hostCandidates(_ addresses: [TransportAddress]) -> [ICECandidate] {
        addresses.enumerated().map { index, address in
            ICECandidate.host(address, foundation: String(index + 1),
                              localPreference: ICECandidate.defaultLocalPreference - UInt32(index))
        }
    }

    /// The endpoint's candidates we can pair with: UDP, the RTP component, an IP literal of our address family.
    static func usableRemoteCandidates(_ candidates: [ICECandidate], ipv6: Bool) -> [ICECandidate] {
        candidates.filter {
            $0.transport == "udp" && $0.component == ICECandidate.rtpComponent
                && $0.transportAddress.map { $0.ip.isIPv6 == ipv6 } == true
        }
    }

    /// The most host candidates offered (a host with many addresses must not flood the checklist).
    static let maximumHostCandidates = 8

    /// Why a link closed, in words.
    static func describe(_ reason: PeerTransport.CloseReason) -> String {
        switch reason {
        case .consentExpired: "ICE consent expired (no answer to consent checks for 30 s, RFC 7675)"
        case .iceFailed: "ICE found no working candidate pair"
        case .dtlsFailed(let error): "DTLS failed: \(error)"
        case .dtlsTimeout: "the DTLS handshake timed out"
        case .closedByPeer: "the endpoint closed DTLS (close_notify)"
        case .closedLocally: "closed locally"
        case .relayFailed(let reason): "the TURN relay of the selected pair failed: \(reason)"
        }
    }
}
