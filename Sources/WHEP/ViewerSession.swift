import DTLS
import NIOCore
import RTP
import STUN
import Sender
import Synchronization
import Transport
import WebRTC
import WebRTCTransport

/// One viewer: its UDP socket (`UDPTransport`, media held until DTLS keys exist), its ICE-lite agent and DTLS endpoint
/// (`WebRTCLink`), and once connected its `SenderCore` on the shared encoder (`FanOutViewer`). Confined to the
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
    private let encoder: FanOutEncoder
    private let table: ViewerTable
    private let events: AsyncStream<WHEPEvent>.Continuation
    private var viewer: FanOutViewer?
    private(set) var remote: TransportAddress?
    private var timeout: Scheduled<Void>?
    private(set) var ended = false
    private let reports: AsyncStream<SenderStats>.Continuation
    private let senderEvents: AsyncStream<SenderEvent>.Continuation

    init(id: String, transport: UDPTransport, negotiated: NegotiatedVideo, ssrc: SSRC, rtxSSRC: SSRC?,
         encoder: FanOutEncoder, table: ViewerTable, events: AsyncStream<WHEPEvent>.Continuation) {
        self.id = id
        self.transport = transport
        self.negotiated = negotiated
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.encoder = encoder
        self.table = table
        self.events = events
        // Nobody reads a viewer's own streams: its statistics are polled (`statistics()`); keep only the newest.
        reports = AsyncStream.makeStream(of: SenderStats.self, bufferingPolicy: .bufferingNewest(1)).continuation
        senderEvents = AsyncStream.makeStream(of: SenderEvent.self, bufferingPolicy: .bufferingNewest(1)).continuation
    }

    /// Starts ICE and DTLS over the socket and the connect timer.
    func start(peer: PeerTransport, connectTimeout: Duration) {
        let configuration = encoder.configuration
        let link = WebRTCLink(
            transport: transport, peer: peer,
            allowRepeatTransmission: configuration.nack && negotiated.rtxPayloadType == nil
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
                    rtxSSRC: negotiated.rtxPayloadType == nil ? nil : rtxSSRC, events: senderEvents, reports: reports)
                events.yield(.viewerJoined(id: id, remote: "\(remote)"))
            } catch {
                end(.securityFailed("\(error)"))
            }
        case .pathChanged(let remote):
            self.remote = remote
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
        }
    }

    /// Tears the viewer down: close_notify, its stream's BYE, the socket closed, its slot freed. Idempotent.
    func end(_ reason: WHEPViewerLeaveReason) {
        guard !ended else { return }
        ended = true
        timeout?.cancel()
        timeout = nil
        link?.close()
        if let viewer {
            viewer.finishOnLoop()  // BYE, then the transport closes
        } else {
            transport.close()
        }
        reports.finish()
        senderEvents.finish()
        table.remove(id)
        events.yield(.viewerLeft(id: id, reason: reason))
    }

    /// The viewer's statistics now.
    func statistics() -> WHEPViewerStatistics {
        WHEPViewerStatistics(
            id: id, remote: remote.map { "\($0)" }, connected: viewer != nil,
            sender: viewer?.snapshotOnLoop() ?? SenderStats())
    }
}

/// The viewers, bounded: a slot is reserved before a socket is opened, so a flood of offers cannot hold more than
/// the limit of sockets and sessions.
final class ViewerTable: Sendable {
    /// A session, reachable from any thread through its loop.
    struct Handle: Sendable {
        let loop: EventLoop
        let session: NIOLoopBound<ViewerSession>
    }

    private struct State {
        var reserved = 0
        var sessions: [String: Handle] = [:]
        var closed = false
    }

    let limit: Int
    private let state: Mutex<State>

    init(limit: Int) {
        self.limit = limit
        state = Mutex(State())
    }

    /// Reserves a slot for a viewer being set up; false when full or closed.
    func reserve() -> Bool {
        state.withLock { state in
            guard !state.closed, state.reserved + state.sessions.count < limit else { return false }
            state.reserved += 1
            return true
        }
    }

    /// Gives a reserved slot back (the set-up failed).
    func release() {
        state.withLock { $0.reserved -= 1 }
    }

    /// Turns a reserved slot into a session; false once the table is closed (the caller ends the session).
    func install(_ id: String, _ handle: Handle) -> Bool {
        state.withLock { state in
            state.reserved -= 1
            guard !state.closed else { return false }
            state.sessions[id] = handle
            return true
        }
    }

    /// Removes a session.
    func remove(_ id: String) {
        _ = state.withLock { $0.sessions.removeValue(forKey: id) }
    }

    /// A session by id.
    func session(_ id: String) -> Handle? {
        state.withLock { $0.sessions[id] }
    }

    /// Every session.
    var all: [Handle] { state.withLock { Array($0.sessions.values) } }

    /// Sessions plus slots being set up.
    var count: Int { state.withLock { $0.sessions.count + $0.reserved } }

    /// Refuses new sessions from now on; returns the ones to end.
    func close() -> [Handle] {
        state.withLock { state in
            state.closed = true
            return Array(state.sessions.values)
        }
    }
}
