import HTTPEndpoint
import HTTPRequester
import Logging
import NIOCore
import STUN
import Synchronization
import TURN
import Transport
import WebRTC
import WebRTCTransport

/// A WHEP server's STUN and TURN servers (`WHEPServer.Options.iceServers`), resolved once, and each viewer's
/// gathering from them: its socket's server-reflexive and relayed candidates, gathered before its answer (a WHEP
/// server cannot trickle its own candidates to a viewer that did not ask), the TURN allocations kept for its
/// session. A server that gave no candidate is logged (at most once a minute per server, never its credential).
final class ViewerGathering: Sendable {
    /// One viewer's gathering: the gatherer (its candidates, and the allocations for the session), the socket's
    /// address the agent checks from, and the connections to the servers reached over TCP or TLS.
    struct Result: Sendable {
        let gatherer: ICEGatherer
        let local: TransportAddress
        let streams: NIOLoopBound<TURNStreams>
        let transport: NIOLoopBound<UDPTransport>

        /// Releases the allocations (a Refresh with lifetime 0 to each TURN server) and closes the connections: for
        /// a viewer whose session does not start. The socket stays open (its owner closes it).
        func release() async {
            let (gatherer, streams, transport) = (gatherer, streams, transport)
            try? await transport.eventLoop.submit {
                ViewerGathering.release(gatherer, streams: streams.value, over: transport.value)
            }.get()
        }
    }

    /// Releases `gatherer`'s allocations over `transport` (or `streams`) and closes `streams`; on their loop.
    static func release(_ gatherer: ICEGatherer, streams: TURNStreams, over transport: UDPTransport) {
        var gatherer = gatherer
        gatherer.close(now: WebRTCLink.monotonicNow())
        while let transmit = gatherer.pollTransmit() {
            transport.send(transmit.bytes, to: transmit.destination, over: transmit.transport, streams: streams)
        }
        streams.close()
    }

    /// When each server's failure was last logged (a failing server is not logged for every viewer).
    private let lastLogged = Mutex<[String: ContinuousClock.Instant]>([:])
    /// How often one server's failures are logged at most.
    static let logInterval: Duration = .seconds(60)

    /// A server resolved, with how it was configured (its host name verifies a `turns:` certificate).
    private struct Resolved: Sendable {
        let server: ICEServer
        let gathering: ICEGatherer.Server
    }

    private let servers: [Resolved]
    /// How a `turns:` connection is verified (the system's trust store and the CA file), or nil without one.
    private let tls: TLSClientContext?
    private let timeout: Duration
    /// The address the viewers' sockets are bound to (the advertised one on a wildcard socket).
    private let localIP: IPAddress
    /// The addresses a server-reflexive candidate must differ from to be worth offering.
    private let hostIPs: Set<IPAddress>

    private init(servers: [Resolved], tls: TLSClientContext?, timeout: Duration, localIP: IPAddress, hostIPs: Set<IPAddress>) {
        self.servers = servers
        self.tls = tls
        self.timeout = timeout
        self.localIP = localIP
        self.hostIPs = hostIPs
    }

    /// The longest gathering allowed: 10 s, well inside the HTTP connection's 30 s idle timeout (the POST waits for
    /// it).
    static let maximumTimeout: Duration = .seconds(10)

    /// Resolves the servers' host names and reads the CA file once; nil without servers.
    /// - Throws: `WHEPServerError.iceServer` for a server that cannot be used, whose name does not resolve, a bad CA
    ///   file, or an IPv6 binding (the servers are IPv4).
    static func resolve(
        _ servers: [ICEServer], caFile: String?, timeout: Duration, bound: IPAddress, advertised: IPAddress
    ) async throws(WHEPServerError) -> ViewerGathering? {
        guard !servers.isEmpty else { return nil }
        guard !bound.isIPv6, !advertised.isIPv6 else {
            throw .iceServer("ICE servers are IPv4 only: bind --whep to an IPv4 address to use them")
        }
        guard timeout >= .milliseconds(100), timeout <= maximumTimeout else {
            throw .iceServer("the ICE gathering timeout must be 0.1-10 s")
        }
        var resolved: [Resolved] = []
        for server in servers {
            do {
                resolved.append(Resolved(server: server, gathering: try await server.gathererServer()))
            } catch {
                throw .iceServer("\(error)")
            }
        }
        var tls: TLSClientContext?
        if let turns = resolved.first(where: { $0.gathering.transport == .tls }) {
            guard TLSAvailability.isBuilt else { throw .iceServer("\(turns.server.uri): \(TLSAvailability.missingMessage)") }
            do {
                tls = try TLSClientContext(caFile: caFile)
            } catch {
                throw .iceServer("the TLS set-up for turns: servers failed: \(error)")
            }
        }
        let wildcard = bound == IPAddress("0.0.0.0")
        return ViewerGathering(servers: resolved, tls: tls, timeout: timeout, localIP: wildcard ? advertised : bound,
                               hostIPs: [bound, advertised])
    }

    /// Gathers for one viewer's socket: every server answered or given up within the timeout (a server that
    /// failed is left out of the answer and logged; the viewer may still reach the host candidate).
    /// - Throws: what the event loop throws when it is shutting down.
    func gather(on transport: NIOLoopBound<UDPTransport>, port: Int, logger: Logger) async throws -> Result {
        let loop = transport.eventLoop
        let local = TransportAddress(ip: localIP, port: UInt16(clamping: port))
        var makeTLSHandler: TURNStreams.TLSHandlerFactory?
        if let tls {
            makeTLSHandler = { host, name in
                let (handler, explain) = try tls.makeStreamHandler(host: host, name: name)
                return (handler, explain)
            }
        }
        let (factory, servers) = (makeTLSHandler, servers)
        let streams = try await loop.submit {
            let streams = TURNStreams(servers: [], eventLoop: loop, makeTLSHandler: factory)
            for resolved in servers where resolved.gathering.transport.isStream {
                streams.add(TURNStreams.Server(
                    address: resolved.gathering.address, transport: resolved.gathering.transport,
                    host: resolved.server.host, name: resolved.server.uri))
            }
            return NIOLoopBound(streams, eventLoop: loop)
        }.get()
        let hosts = Set(hostIPs.map { TransportAddress(ip: $0, port: local.port) })
        var gatherer = ICEGatherer(base: local, hostAddresses: hosts, timeout: timeout)
        let now = WebRTCLink.monotonicNow()
        for resolved in servers { gatherer.add(resolved.gathering, now: now) }
        do {
            gatherer = try await CandidateGathering.run(gatherer, on: transport, streams: streams)
        } catch {
            try? await loop.submit { streams.value.close() }.get()
            throw error
        }
        logFailures(gatherer.failures, logger: logger)
        return Result(gatherer: gatherer, local: local, streams: streams, transport: transport)
    }

    /// Logs why servers gave no candidate, each server at most once per `logInterval` (the failures name the URI and
    /// the reason, never the credential).
    private func logFailures(_ failures: [String], logger: Logger) {
        guard !failures.isEmpty else { return }
        let now = ContinuousClock.now
        let due = lastLogged.withLock { logged in
            failures.filter { failure in
                let key = String(failure.prefix { $0 != " " })
                guard logged[key].map({ now - $0 >= Self.logInterval }) ?? true else { return false }
                logged[key] = now
                return true
            }
        }
        for failure in due {
            logger.warning("an ICE server gave no candidate for a viewer", metadata: ["problem": "\(failure)"])
        }
    }
}
