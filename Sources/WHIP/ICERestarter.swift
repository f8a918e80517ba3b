import HTTPRequester
import Logging
import MediaTime
import NIOCore
import Sender
import STUN
import Synchronization
import WebRTC
import WebRTCTransport

/// What a WHIP publisher reports while it streams.
public enum WHIPPublisherEvent: Sendable, Equatable {
    /// ICE restarted (RFC 9725 section 4.4) and media flows on the new pair: why (`address change`, `consent checks
    /// unanswered`, `retry`), the pair, and the time from the first sign of trouble to the new pair's selection.
    case iceRestarted(reason: String, local: String, remote: String, duration: Duration)
    /// An ICE restart attempt failed (the PATCH was refused or no pair was selected in time); retried with backoff.
    case iceRestartFailed(reason: String, error: String)
}

/// Keeps a WHIP publisher's path alive (RFC 9725 section 4.4): watches the host's addresses (once a second) and the
/// link's consent (`.disconnected`), restarts ICE when either says the path may be gone (new credentials and the
/// current host and relayed candidates PATCHed with `If-Match: "*"`, the endpoint's new credentials applied to the
/// agent: the DTLS association and the SRTP keys stay), asks the encoder for an IDR as soon as a new pair carries
/// media, and retries failed attempts with backoff (`ICERestartPolicy`). An endpoint that answers the PATCH `405` or
/// `501` does not restart ICE, and `404` says the session is gone: no more attempts are made (consent decides).
///
/// It also trickles (RFC 9725 section 4.3.1, RFC 8840): a candidate gathered after the offer (the relay of a TURN
/// server from the endpoint's `Link` headers) is PATCHed with `If-Match` and the latest `ETag`, the current
/// credentials and the mid; an endpoint that answers `405` or `501` (or sent no `ETag`) gets no more, and learns such
/// candidates from our checks as peer-reflexive instead.
package final class ICERestarter: Sendable {
    /// What the link reports, collected on its loop and read by the restarter's task.
    package final class Signals: Sendable {
        package init() {}
        package enum Signal: Sendable {
            case disconnected
            case pathChanged
            case candidate(ICECandidate)
        }
        private let queue = Mutex<[Signal]>([])
        package func post(_ signal: Signal) { queue.withLock { $0.append(signal) } }
        func drain() -> [Signal] { queue.withLock { queue in defer { queue.removeAll() }; return queue } }
    }

    /// What the restarts need from the publisher.
    package struct Context: Sendable {
        package let client: WHIPClient
        package let session: WHIPSession
        /// The credentials of the offer (a restart replaces them).
        package let credentials: ICECredentials
        package let mid: String
        package let port: UInt16
        package let hostIPs: [String]
        package let remoteCandidates: [ICECandidate]
        package let link: NIOLoopBound<WebRTCLink>
        /// Called when a new (or re-proven) pair carries media: the publisher asks its encoder for an IDR.
        package let afterPathChange: @Sendable () -> Void
        package let logger: Logger

        package init(client: WHIPClient, session: WHIPSession, credentials: ICECredentials, mid: String, port: UInt16, hostIPs: [String], remoteCandidates: [ICECandidate], link: NIOLoopBound<WebRTCLink>, afterPathChange: @escaping @Sendable () -> Void, logger: Logger) {
            self.client = client
            self.session = session
            self.credentials = credentials
            self.mid = mid
            self.port = port
            self.hostIPs = hostIPs
            self.remoteCandidates = remoteCandidates
            self.link = link
            self.afterPathChange = afterPathChange
            self.logger = logger
        }
    }

    /// How often the host's addresses are read.
    static let addressInterval = Duration.seconds(1)
    /// How often the task wakes to read the link's signals.
    static let tick = Duration.milliseconds(100)

    private let context: Context
    private let signals: Signals
    private let events: AsyncStream<WHIPPublisherEvent>.Continuation
    private let state: Mutex<State>
    private let task = Mutex<Task<Void, Never>?>(nil)

    struct State {
        var restarts = 0
        var failures = 0
        var lastDuration: Duration?
        /// The latest entity-tag (the session's, then a restart's).
        var etag: String?
        /// Our current ICE credentials (the offer's, then a restart's).
        var credentials: ICECredentials
        var trickled = 0
    }

    /// Restarts completed.
    package var restarts: Int { state.withLock { $0.restarts } }
    /// Attempts that failed.
    package var failures: Int { state.withLock { $0.failures } }
    /// The time the latest restart took, from the first trigger to the new pair.
    package var lastDuration: Duration? { state.withLock { $0.lastDuration } }
    /// Candidates trickled to the endpoint (and accepted by it).
    package var trickled: Int { state.withLock { $0.trickled } }

    package init(context: Context, signals: Signals, events: AsyncStream<WHIPPublisherEvent>.Continuation) {
        self.context = context
        self.signals = signals
        self.events = events
        state = Mutex(State(etag: context.session.etag, credentials: context.credentials))
    }

    package func start() {
        task.withLock { $0 = Task { await self.run() } }
    }

    package func stop() {
        task.withLock { $0?.cancel() }
        events.finish()
    }

    private func run() async {
        var policy = ICERestartPolicy()
        var addresses = Set(context.hostIPs)
        var unsupported = false
        var attemptReason = ICERestartPolicy.Reason.retry
        var lastAddressCheck = ContinuousClock.now
        var trickling = true  // until the endpoint refuses, or there is no ETag to match (`trickle`)
        let endpoint = context.client.endpoint
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.tick)
            var now = WebRTCLink.monotonicNow()
            var late: [ICECandidate] = []
            for signal in signals.drain() {
                switch signal {
                case .candidate(let candidate):
                    late.append(candidate)
                case .disconnected:
                    if !unsupported { policy.trigger(.disconnected, now: now) }
                case .pathChanged:
                    context.afterPathChange()  // the new (or re-proven) path: an IDR (or a PLI) at once
                    let reason = attemptReason
                    if let gap = policy.succeeded(now: now) {
                        let pair = try? await context.link.eventLoop.submit { [link = context.link] in
                            (link.value.peer.path?.local.map { "\($0)" } ?? "-", link.value.peer.path.map { "\($0.remote)" } ?? "-")
                        }.get()
                        state.withLock {
                            $0.restarts += 1
                            $0.lastDuration = gap
                        }
                        context.logger.info("ICE restarted", metadata: [
                            "local": "\(pair?.0 ?? "-")", "remote": "\(pair?.1 ?? "-")",
                            "ms": "\((gap / .milliseconds(1)).rounded())",
                        ])
                        events.yield(.iceRestarted(reason: reason.rawValue, local: pair?.0 ?? "-", remote: pair?.1 ?? "-",
                                                   duration: gap))
                    }
                }
            }
            if trickling, !late.isEmpty { trickling = await trickle(late) }
            if ContinuousClock.now - lastAddressCheck >= Self.addressInterval {
                lastAddressCheck = ContinuousClock.now
                if let route = try? await OfferingPeer.routeSource(toward: endpoint) {
                    let ips = Set(OfferingPeer.hostCandidateIPs(routeIP: route, includeLoopback: endpoint.isLoopback))
                    if ips != addresses {
                        context.logger.notice("host addresses changed", metadata: [
                            "addresses": "\(ips.sorted().joined(separator: ","))",
                        ])
                        addresses = ips
                        if !unsupported { policy.trigger(.addressChanged, now: now) }
                    }
                }
            }
            now = WebRTCLink.monotonicNow()
            guard !unsupported, let reason = policy.start(now: now) else { continue }
            attemptReason = reason
            context.logger.notice("restarting ICE", metadata: ["reason": "\(reason.rawValue)"])
            do {
                try await attempt()
            } catch {
                policy.failed(now: WebRTCLink.monotonicNow())
                state.withLock { $0.failures += 1 }
                if case WHIPError.httpStatus(let status, _, _) = error, [404, 405, 501].contains(status) {
                    unsupported = true
                }
                context.logger.warning("ICE restart failed", metadata: [
                    "reason": "\(reason.rawValue)", "error": "\(error)",
                    "retry": "\(unsupported ? "no: the endpoint does not restart ICE" : "with backoff")",
                ])
                events.yield(.iceRestartFailed(reason: reason.rawValue, error: "\(error)"))
            }
        }
    }

    /// One restart: our new credentials and candidates PATCHed, the endpoint's applied to the agent.
    private func attempt() async throws {
        let endpoint = context.client.endpoint
        let route = try await OfferingPeer.routeSource(toward: endpoint)
        let ips = OfferingPeer.hostCandidateIPs(routeIP: route, includeLoopback: endpoint.isLoopback)
        let hosts = OfferingPeer.hostCandidates(ips.compactMap { TransportAddress(ipString: $0, port: context.port) })
        let link = context.link
        let relays = try await link.eventLoop.submit {
            link.value.peer.gatherer?.candidates.filter { $0.kind == .relay } ?? []
        }.get()
        let candidates = hosts + relays
        let credentials = ICECredentials.random()
        let (answer, etag) = try await context.client.restartICE(
            context.session,
            fragment: TrickleICEFragment(credentials: credentials, mid: context.mid, candidates: candidates,
                                         endOfCandidates: true))
        guard let remote = answer.credentials else { throw WHIPError.badAnswer("the ICE restart reply has no credentials") }
        let offered = OfferingPeer.usableRemoteCandidates(
            answer.candidates, ipv6: hosts.first?.transportAddress?.ip.isIPv6 ?? false)
        let remotes = offered.isEmpty ? context.remoteCandidates : offered
        let locals = ICEFullAgent.LocalCandidate.checked(from: candidates)
        let restarted = try await link.eventLoop.submit {
            link.value.restartICE(local: credentials, remote: remote, localCandidates: locals, remoteCandidates: remotes)
        }.get()
        guard restarted else { throw WHIPError.transportClosed("the WebRTC transport closed before the ICE restart") }
        state.withLock {
            $0.etag = etag ?? $0.etag
            $0.credentials = credentials
        }
    }

    /// PATCHes candidates gathered after the offer (RFC 9725 section 4.3.1).
    /// - Returns: whether to go on trickling (false once the endpoint said it does not take trickled candidates).
    private func trickle(_ candidates: [ICECandidate]) async -> Bool {
        let (etag, credentials) = state.withLock { ($0.etag, $0.credentials) }
        guard let etag else { return false }
        let fragment = TrickleICEFragment(credentials: credentials, mid: context.mid, candidates: candidates)
        do {
            try await context.client.trickle(context.session, etag: etag, fragment: fragment)
            state.withLock { $0.trickled += candidates.count }
            context.logger.info("trickled candidates", metadata: [
                "candidates": "\(candidates.map { "\($0.kind.rawValue) \($0.address):\($0.port)" }.joined(separator: ","))",
            ])
            return true
        } catch {
            let unsupported: Bool
            if case WHIPError.httpStatus(let status, _, _) = error, [405, 501].contains(status) {
                unsupported = true
            } else {
                unsupported = false
            }
            context.logger.notice("trickle ICE refused", metadata: [
                "error": "\(error)", "retry": "\(unsupported ? "no: the endpoint takes no trickled candidates" : "with the next candidate")",
            ])
            return !unsupported
        }
    }
}
