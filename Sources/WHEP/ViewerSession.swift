import DTLS
import Logging
import MediaTime
import NIOCore
import RTP
import STUN
import Sender
import Synchronization
import Transport
import WebRTC
import WebRTCTransport

/// One viewer: its UDP socket (`UDPTransport`, media held until DTLS keys exist), its ICE agent (ICE-lite, or full and
/// controlled when the server has ICE servers) and DTLS endpoint (`WebRTCLink`), and once connected its `SenderSessionDriver` on the shared encoder (`FanOutViewer`). Confined to the
/// transport's loop.
///
/// Lifecycle: answered -> (ICE + DTLS within the connect timeout) -> connected: attached to the encoder, which sends
/// it an IDR first -> ended by DELETE, consent expiry, a DTLS failure or close_notify, the connect timeout, or the
/// server finishing. Ending closes the socket and frees the viewer's slot.
final class ViewerSession {
    let id: String
    let transport: UDPTransport
    private(set) var link: WebRTCLink?
    private let negotiated: NegotiatedVideo
    private let ssrc: SSRC
    private let rtxSSRC: SSRC?
    /// The FlexFEC SSRC of the answer, nil without FlexFEC.
    private let fecSSRC: SSRC?
    private let encoder: FanOutEncoder
    private let table: ViewerTable
    private let events: AsyncStream<WHEPEvent>.Continuation
    private(set) var viewer: FanOutViewer?
    private(set) var remote: TransportAddress?
    private var timeout: Scheduled<Void>?
    private(set) var ended = false
    private let reports: AsyncStream<SenderStats>.Continuation
    private let senderEvents: AsyncStream<SenderEvent>.Continuation
    /// The server's logger with this viewer's id in the metadata.
    private let logger: Logger
    /// Our ICE credentials now: the `ETag` is `"<ufrag>"`; an ICE restart draws new ones.
    private var localCredentials: ICECredentials
    /// The viewer's ICE credentials now (from its offer, then from its latest restart), if it gave any.
    private var remoteCredentials: ICECredentials?
    /// Our candidates, as the answer gave them (a restart's reply repeats them): the host one, then any gathered.
    private let localCandidates: [ICECandidate]
    /// What a full agent checks from (a restart checks from them again); empty for ICE-lite.
    private let checkedCandidates: [ICEFullAgent.LocalCandidate]
    /// The storm bound on the viewer's ICE restarts.
    private var restartLimiter = RestartLimiter()
    /// ICE restarts the viewer made.
    private(set) var iceRestarts = 0
    /// Candidates the viewer trickled for its current credentials.
    private(set) var trickledCandidates = 0
    /// The viewer's signalled candidates for its current credentials (its offer's or restart's, then trickled ones,
    /// at most `maximumRemoteCandidates`): what names the selected pair's remote type.
    private var remoteCandidates: [ICECandidate]
    /// The most remote candidates kept per ICE generation.
    static let maximumRemoteCandidates = 100
    /// The clock (the loop's monotonic time).
    private let now: () -> MonotonicTime


    init(id: String, transport: UDPTransport, negotiated: NegotiatedVideo, ssrc: SSRC, rtxSSRC: SSRC?,
         fecSSRC: SSRC? = nil, credentials: ICECredentials, candidates: [ICECandidate], checkedCandidates: [ICEFullAgent.LocalCandidate],
         encoder: FanOutEncoder, table: ViewerTable,
         events: AsyncStream<WHEPEvent>.Continuation, logger: Logger,
         now: @escaping () -> MonotonicTime = WebRTCLink.monotonicNow) {
        var logger = logger
        logger[metadataKey: "viewer"] = "\(Self.logID(id))"
        self.logger = logger
        self.id = id
        self.transport = transport
        self.negotiated = negotiated
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.fecSSRC = fecSSRC
        self.encoder = encoder
        self.table = table
        self.events = events
        localCredentials = credentials
        remoteCredentials = negotiated.remoteCredentials
        remoteCandidates = Array(negotiated.remoteCandidates.prefix(Self.maximumRemoteCandidates))
        localCandidates = candidates
        self.checkedCandidates = checkedCandidates
        self.now = now
        // Nobody reads a viewer's own streams: its statistics are polled (`statistics()`); keep only the newest.
        reports = AsyncStream.makeStream(of: SenderStats.self, bufferingPolicy: .bufferingNewest(1)).continuation
        senderEvents = AsyncStream.makeStream(of: SenderEvent.self, bufferingPolicy: .bufferingNewest(1)).continuation
    }

    /// The part of a viewer's id that its log lines carry: the first 8 of 32 hex digits, enough to tell viewers
    /// apart; the whole id lets its holder `DELETE` the viewer, so it stays out of logs.
    static func logID(_ id: String) -> Substring { id.prefix(8) }

    /// Starts ICE and DTLS over the socket and the connect timer.
    /// - Parameters:
    ///   - local: a full agent's socket address (its checks are paired by it); nil for ICE-lite.
    ///   - streams: the connections to TURN servers over TCP or TLS (closed with the link), or nil.
    func start(peer: PeerTransport, local: TransportAddress? = nil, streams: TURNStreams? = nil, connectTimeout: Duration) {
        let configuration = encoder.configuration
        let link = WebRTCLink(
            transport: transport, peer: peer,
            allowRepeatTransmission: configuration.nack && negotiated.rtxPayloadType == nil, local: local,
            streams: streams
        ) { [weak self] event in self?.handle(event) }
        self.link = link
        let weakSelf = NIOLoopBound(WeakReference(self), eventLoop: transport.eventLoop)
        timeout = transport.eventLoop.scheduleTask(in: .nanoseconds(connectTimeout.saturatingNanoseconds)) {
            guard let session = weakSelf.value.object, session.viewer == nil else { return }
            session.end(.connectTimeout)
        }
        link.start()
    }

    private func handle(_ event: WebRTCLink.Event) {
        switch event {
        case .connected(let remote):
            self.remote = remote
            timeout?.cancel()
            timeout = nil
            do {
                viewer = try encoder.attach(
                    transport: transport, payloadType: PayloadType(negotiated.format.payloadType),
                    rtxPayloadType: negotiated.rtxPayloadType.map { PayloadType($0) }, ssrc: ssrc,
                    rtxSSRC: negotiated.rtxPayloadType == nil ? nil : rtxSSRC,
                    fec: negotiated.fecPayloadType.flatMap { type in
                        fecSSRC.map { SenderConfiguration.FEC(payloadType: PayloadType(type), ssrc: $0) }
                    },
                    transportWideCCExtensionID: NegotiatedVideo.oneByteID(negotiated.transportCCExtensionID),
                    absoluteCaptureTimeExtensionID: NegotiatedVideo.oneByteID(negotiated.absoluteCaptureTimeExtensionID),
                    playoutDelayExtensionID: NegotiatedVideo.oneByteID(negotiated.playoutDelayExtensionID),
                    dependencyDescriptorExtensionID: NegotiatedVideo.oneByteID(negotiated.dependencyDescriptorExtensionID),
                    events: senderEvents, reports: reports, logger: logger)
                let path = selectedPath()
                logger.info("viewer joined", metadata: [
                    "remote": "\(remote)", "local_candidate": "\(path.type)",
                    "remote_candidate": "\(ICECandidate.kind(of: remote, among: remoteCandidates).rawValue)",
                    "relay_protocol": "\(path.relayProtocol ?? "-")",
                ])
                events.yield(.viewerJoined(id: id, remote: "\(remote)"))
            } catch {
                end(.securityFailed("\(error)"))
            }
        case .pathChanged(let remote):
            logger.info("viewer path changed", metadata: ["remote": "\(remote)"])
            self.remote = remote
        case .disconnected, .candidate:
            break  // a full agent's: the viewer restarts ICE if it wants to, and every candidate was in the answer
        case .closed(let reason):
            end(Self.leaveReason(reason))
        case .securityFailed(let why):
            end(.securityFailed(why))
        }
    }

    static func leaveReason(_ reason: PeerTransport.CloseReason) -> WHEPViewerLeaveReason {
        switch reason {
        case .consentExpired: .consentExpired
        case .iceFailed: .iceFailed
        case .dtlsFailed(let error): .dtlsFailed("\(error)")
        case .dtlsTimeout: .dtlsFailed("handshake timeout")
        case .closedByPeer: .closedByViewer
        case .closedLocally: .deleted
        case .relayFailed: .iceFailed  // the relay under the selected pair was lost
        }
    }

    /// Tears the viewer down: its stream's RTCP BYE, DTLS close_notify, the socket closed, its slot freed. Idempotent.
    func end(_ reason: WHEPViewerLeaveReason) {
        guard !ended else { return }
        ended = true
        timeout?.cancel()
        timeout = nil
        viewer?.finishOnLoop()  // the RTCP BYE first, while the viewer still reads SRTCP
        link?.close()           // then DTLS close_notify (and the TURN allocations released)
        transport.close()
        reports.finish()
        senderEvents.finish()
        table.remove(id)
        logger.log(level: Self.logLevel(reason), "viewer left", metadata: [
            "reason": "\(reason)", "remote": "\(remote.map { "\($0)" } ?? "-")",
        ])
        events.yield(.viewerLeft(id: id, reason: reason))
    }

    /// How a departure is logged: the ordinary ones at `info`, a viewer that never connected at `notice`, failures
    /// at `warning`.
    static func logLevel(_ reason: WHEPViewerLeaveReason) -> Logger.Level {
        switch reason {
        case .deleted, .closedByViewer, .serverFinished, .consentExpired: .info
        case .connectTimeout, .iceFailed: .notice
        case .dtlsFailed, .securityFailed, .streamFailed: .warning
        }
    }

    /// The session's entity tag: our ufrag, quoted (RFC 9110 section 8.8.3), new after each ICE restart.
    var etag: String { "\"\(localCredentials.ufrag)\"" }

    /// A `PATCH` from the viewer (RFC 9725 sections 4.3-4.4): trickled candidates or an ICE restart.
    ///
    /// - `If-Match: *` (or `"*"`, as RFC 9725's examples write it) with new credentials restarts ICE: new credentials
    ///   of ours, 200 with them, our candidates and a new `ETag`; the DTLS association and the stream go on (an
    ///   ICE-lite agent learns the viewer's new address from its checks; a full one checks the fragment's candidates
    ///   again). A restart sooner than a second after the last, or beyond ten a minute (`RestartLimiter`), gets 429
    ///   with `Retry-After`.
    /// - `If-Match` with the current `ETag`: trickled candidates, 204. They are counted; a full agent checks them, an
    ///   ICE-lite one needs none (the viewer's checks tell it its addresses). Candidates of an older generation
    ///   (another ufrag) are ignored.
    /// - Another `ETag`: 412.
    func patch(_ fragment: TrickleICEFragment, ifMatch: String) -> WHEPReply {
        guard !ended, let link else { return .error(404, "the WHEP session has ended") }
        // RFC 9110 writes the wildcard `*`; RFC 9725's examples quote it (`"*"`), and clients send either.
        guard ifMatch == "*" || ifMatch == "\"*\"" else {
            guard ifMatch == etag || ifMatch == "W/" + etag else {
                return .error(412, "If-Match \(ifMatch.prefix(80)) is not the session's ETag (an ICE restart changed it; send If-Match: \"*\" to restart ICE)")
            }
            if fragment.credentials == nil || fragment.credentials?.ufrag == remoteCredentials?.ufrag {
                trickledCandidates += fragment.candidates.count
                remoteCandidates += fragment.candidates.prefix(Self.maximumRemoteCandidates - remoteCandidates.count)
                link.addRemoteCandidates(fragment.candidates)  // a full agent checks them; ICE-lite needs none
            }
            logger.debug("candidates trickled", metadata: [
                "candidates": "\(fragment.candidates.count)", "end_of_candidates": "\(fragment.endOfCandidates)",
            ])
            return WHEPReply(status: 204, headers: [("ETag", etag)])
        }
        guard let remote = fragment.credentials, remote.ufrag != remoteCredentials?.ufrag,
              remote.password != remoteCredentials?.password
        else {
            return .error(400, "an ICE restart (If-Match: \"*\") needs a new a=ice-ufrag and a=ice-pwd in the fragment")
        }
        let time = now()
        if let retryAfter = restartLimiter.refusal(now: time) { return Self.tooManyRestarts(retryAfter: retryAfter) }
        let local = ICECredentials.random()
        guard link.restartICE(local: local, remote: remote, localCandidates: checkedCandidates,
                              remoteCandidates: fragment.candidates)
        else {
            return .error(404, "the WHEP session has ended")
        }
        restartLimiter.record(now: time)
        localCredentials = local
        remoteCredentials = remote
        remoteCandidates = Array(fragment.candidates.prefix(Self.maximumRemoteCandidates))
        iceRestarts += 1
        logger.info("viewer restarted ICE", metadata: ["restarts": "\(iceRestarts)"])
        let reply = TrickleICEFragment(credentials: local, mid: fragment.mid, candidates: localCandidates,
                                       endOfCandidates: true)
        return WHEPReply(status: 200, headers: [("Content-Type", TrickleICEFragment.mediaType), ("ETag", etag)],
                         body: reply.sdp)
    }

    static func tooManyRestarts(retryAfter seconds: Int) -> WHEPReply {
        var reply = WHEPReply.error(429, "too many ICE restarts: at most one a second and \(RestartLimiter.perMinute) a minute")
        reply.headers.append(("Retry-After", "\(seconds)"))
        return reply
    }

    /// The viewer's statistics now.
    func statistics() -> WHEPViewerStatistics {
        let path = selectedPath()
        return WHEPViewerStatistics(
            id: id, remote: remote.map { "\($0)" }, connected: viewer != nil,
            localCandidateType: remote == nil ? nil : path.type,
            remoteCandidateType: remote.map { ICECandidate.kind(of: $0, among: remoteCandidates).rawValue },
            relayProtocol: path.relayProtocol,
            iceRestarts: iceRestarts, trickledCandidates: trickledCandidates,
            sender: viewer?.snapshotOnLoop() ?? SenderStats(), layer: viewer?.layer?.rid,
            layerSwitches: viewer?.layer?.switches ?? 0)
    }

    /// Our side of the selected pair, as `getStats()` names it: `host`, or `relay` with the protocol to the TURN
    /// server (`udp`, `tcp`, `tls`).
    private func selectedPath() -> (type: String, relayProtocol: String?) {
        guard let peer = link?.peer, let local = peer.path?.local, let server = peer.gatherer?.server(relaying: local)
        else { return ("host", nil) }
        return ("relay", server.transport.rawValue)
    }
}
