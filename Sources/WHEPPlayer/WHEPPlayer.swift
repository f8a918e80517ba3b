import DTLS
public import Logging
import NIOCore
public import Receiver
import STUN
import Synchronization
import Transport
public import WHIP
public import WebRTC
import WebRTCTransport

/// Plays a WHEP stream (draft-ietf-wish-whep): a WHEP endpoint's H.264 video (`rtc-h264 serve --whep`, an SFU;
/// proven with ours and aiortc's) into an `H264Receiver`.
///
/// It offers `recvonly` H.264 (Constrained Baseline and High, with RTX and FlexFEC) with `a=setup:actpass` and full
/// ICE (controlling) from one UDP socket, POSTs the offer with the bearer token, runs ICE and DTLS in the role the
/// answer picks, and once DTLS is done receives SRTP on the selected pair: the receiver decodes (or, with
/// `ReceiverConfiguration.decode` off, only reassembles) and answers with Receiver Reports, NACK, PLI and
/// transport-wide feedback. The socket, candidates, ICE servers (`WHIPConfiguration.iceServers` and the endpoint's
/// `Link` headers) and ICE restarts are the WHIP publisher's (`OfferingPeer`, `ICERestarter`): a new pair gets a PLI.
///
/// ```swift
/// var receive = ReceiverConfiguration(listenHost: "0.0.0.0", listenPort: 0)   // the address is ICE's
/// receive.onFrameDecoded = { picture, _ in show(picture) }
/// let player = try await WHEPPlayer(configuration: receive,
///                                   whep: WHIPConfiguration(url: "https://cdn.example/whep/live", token: token))
/// let stats = try await player.run()   // until the endpoint's BYE, a limit, stop() or a closed transport; then DELETE
/// ```
public final class WHEPPlayer: Sendable {
    /// The receiver: `statistics()`, `requestKeyframe()`.
    public let receiver: H264Receiver
    /// The WHEP session (resource URL, answer).
    public let session: WHIPSession
    /// What was negotiated: the format the stream comes in, its RTX and FlexFEC types, the extensions.
    public let negotiated: NegotiatedVideo
    /// The local end of the pair ICE selected (`IP:port`).
    public let localAddress: String
    /// The remote address ICE selected (`IP:port`).
    public let remoteAddress: String
    /// The DTLS-SRTP suite negotiated.
    public let suite: String
    /// How long the POST took, from sending the offer to the answer.
    public let answerDuration: Duration
    /// How long ICE and DTLS took after the answer.
    public let connectDuration: Duration
    /// Why ICE servers gave no candidate or were not used. Never holds a credential.
    public let iceServerProblems: [String]
    /// ICE restarts completed.
    public var iceRestarts: Int { restarter.restarts }

    private let client: WHIPClient
    private let restarter: ICERestarter
    private let link: NIOLoopBound<WebRTCLink>
    private let logger: Logger
    private let closeReason: CloseReason
    private let finished = Atomic<Bool>(false)
    /// From the POST to the receiver's start (the receiver's own times count from its start).
    private let offerToReceiverStart: Duration

    /// Negotiates, connects and starts receiving.
    /// - Parameters:
    ///   - configuration: What the receiver does (limits, jitter buffer, `decode`, callbacks); its address, SRTP,
    ///     `rtcpMux`, NACK, RTX, FlexFEC and extension settings come from the answer.
    ///   - whep: The endpoint, token, CA file and ICE servers (the WHIP client's configuration: WHEP's HTTP exchange is
    ///     WHIP's).
    ///   - receive: What is offered.
    ///   - logger: Where the player logs: the session created and connected at `info` (never a token or credential).
    /// - Throws: `WHIPError` for the HTTP exchange, a bad answer or a failed ICE/DTLS connection (the session is
    ///   deleted again then); `ReceiverError` for an invalid configuration.
    public init(
        configuration: ReceiverConfiguration, whep: WHIPConfiguration,
        receive: VideoReceiveConfiguration = VideoReceiveConfiguration(), logger: Logger? = nil
    ) async throws {
        var logger = logger ?? Logger(label: "rtc-h264.whep-player")
        try configuration.validate()
        let client = try WHIPClient(configuration: whep)
        logger[metadataKey: "endpoint"] = "\(client.endpoint.scheme)://\(client.endpoint.host):\(client.endpoint.port)"
        let peer = try await OfferingPeer.prepare(client: client, whip: whep)
        let offer = VideoReceiveOfferer.offer(video: receive, transport: peer.localTransport)

        let postedAt = ContinuousClock.now
        let (session, negotiated, answerDuration) = try await peer.post(offer.sdp, to: client) {
            try VideoReceiveOfferer.accept($0, video: receive)
        }
        let answeredAt = postedAt + answerDuration
        logger.info("WHEP session created", metadata: [
            "answer_ms": "\((answerDuration / .milliseconds(1) * 10).rounded() / 10)",
        ])
        func abandon(_ error: any Error) async -> any Error { await peer.abandon(session, client: client, error) }
        let (endpointServers, endpointProblems) = await peer.endpointServers(session.iceServers, whip: whep)

        let receiverBox = Mutex<H264Receiver?>(nil)
        let closeReason = CloseReason()
        let restartSignals = ICERestarter.Signals()
        let link: NIOLoopBound<WebRTCLink>
        let remote: TransportAddress
        let usable: [ICECandidate]
        do {
            (link, remote, usable) = try await peer.connect(
                negotiated, endpointServers: endpointServers, allowRepeatTransmission: false, timeout: whep.connectTimeout
            ) { event in
                switch event {
                case .pathChanged: restartSignals.post(.pathChanged)
                case .disconnected: restartSignals.post(.disconnected)
                case .candidate(let candidate): restartSignals.post(.candidate(candidate))
                case .closed(let reason):
                    closeReason.record(reason)
                    receiverBox.withLock { $0 }?.stop()
                }
            }
        } catch {
            throw await abandon(error)
        }
        let connectedAt = ContinuousClock.now
        let connection = try await peer.connection(of: link)

        // The receiver, over the secured transport, set up as the answer says.
        var configuration = configuration
        configuration.rtcpMux = true
        configuration.security = nil
        configuration.nack = configuration.nack && negotiated.feedback.contains("nack")
        configuration.rtxPayloadType = negotiated.rtxPayloadType
        configuration.fecPayloadType = negotiated.fecPayloadType
        configuration.transportWideCCExtensionID = NegotiatedVideo.oneByteID(negotiated.transportCCExtensionID)
        configuration.absoluteCaptureTimeExtensionID = NegotiatedVideo.oneByteID(negotiated.absoluteCaptureTimeExtensionID)
        configuration.playoutDelayExtensionID = NegotiatedVideo.oneByteID(negotiated.playoutDelayExtensionID)
        configuration.dependencyDescriptorExtensionID = NegotiatedVideo.oneByteID(negotiated.dependencyDescriptorExtensionID)
        let receiver: H264Receiver
        do {
            receiver = try await H264Receiver(configuration: configuration, transport: peer.transport)
        } catch {
            try? await peer.loop.submit { link.value.close() }.get()
            throw await abandon(error)
        }
        let receiverStart = ContinuousClock.now
        receiverBox.withLock { $0 = receiver }
        if try await peer.loop.submit({ link.value.peer.isClosed }).get() { receiver.stop() }

        let (_, continuation) = AsyncStream.makeStream(of: WHIPPublisherEvent.self, bufferingPolicy: .bufferingNewest(1))
        restarter = peer.restarter(
            client: client, session: session, mid: negotiated.mid, remoteCandidates: usable, link: link,
            signals: restartSignals, events: continuation, logger: logger
        ) { receiver.requestKeyframe() }
        restarter.start()
        self.receiver = receiver
        self.session = session
        self.negotiated = negotiated
        self.client = client
        self.link = link
        self.logger = logger
        self.closeReason = closeReason
        self.localAddress = (connection.selectedLocal ?? peer.local).description
        self.remoteAddress = remote.description
        self.suite = connection.suite
        self.answerDuration = answeredAt - postedAt
        self.connectDuration = connectedAt - answeredAt
        self.offerToReceiverStart = receiverStart - postedAt
        self.iceServerProblems = peer.problems + endpointProblems + connection.lateProblems
        logger.info("WHEP connected", metadata: [
            "local": "\(localAddress)", "remote": "\(remoteAddress)", "suite": "\(suite)",
            "payload_type": "\(negotiated.format.payloadType)", "profile_level_id": "\(negotiated.format.profileLevelID)",
            "rtx": "\(negotiated.rtxPayloadType != nil)", "fec": "\(negotiated.fecPayloadType != nil)",
            "connect_ms": "\((connectDuration / .milliseconds(1)).rounded())",
        ])
    }

    /// Why the WebRTC transport closed (consent expiry, a DTLS failure, the endpoint's close_notify), or nil.
    public var transportCloseReason: String? { closeReason.reason }

    /// How long after the offer was POSTed the first frame was ready to show (decoded, or with `decode` off, complete
    /// after the first keyframe), given the receiver's statistics; nil before then.
    public func offerToFirstFrame(_ stats: ReceiverStats) -> Duration? {
        stats.keyframeTimes.first.map { offerToReceiverStart + .seconds($0) }
    }

    /// Waits for the end (the endpoint's BYE, a frame or time limit, the idle timeout, `stop()`, or the transport
    /// closing), then ends the session (DELETE). When the endpoint ended the stream (its BYE, its close_notify,
    /// consent lost) the DELETE is a courtesy: a failure is logged, not thrown (the endpoint may be gone).
    /// - Returns: the final statistics.
    /// - Throws: `WHIPError` when the DELETE of a session we ended failed.
    @discardableResult
    public func run() async throws -> ReceiverStats {
        let stats = try await receiver.run()
        try await end(courtesy: stats.byeReceived || transportCloseReason != nil)
        return stats
    }

    /// Stops receiving (`run()` then returns). Safe from any thread.
    public func stop() { receiver.stop() }

    /// Closes the link and DELETEs the session; `courtesy` when the endpoint ended it (a failure is then only logged).
    private func end(courtesy: Bool) async throws {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        closeReason.seal()  // our own close below is no reason to report
        restarter.stop()
        let link = self.link
        try? await link.eventLoop.submit { link.value.close() }.get()
        do {
            try await client.terminate(session)
            logger.info("WHEP session ended", metadata: ["transport_closed": "\(transportCloseReason ?? "-")"])
        } catch {
            // The endpoint ended the session itself (a BYE then the resource gone) is not a failure of ours.
            if case .httpStatus(status: 404, method: _, excerpt: _) = error { return }
            let metadata: Logger.Metadata = ["error": "\(error.description(endpoint: "WHEP"))"]
            if courtesy {
                logger.debug("the DELETE of the ended WHEP session failed", metadata: metadata)
                return
            }
            logger.warning("the DELETE of the WHEP session failed", metadata: metadata)
            throw error
        }
    }
}

/// The first reason the link gave for closing before the player ended it, shared with the link's callback.
private final class CloseReason: Sendable {
    private let state = Mutex<(reason: String?, sealed: Bool)>((nil, false))
    var reason: String? { state.withLock { $0.reason } }
    func record(_ reason: String) { state.withLock { if !$0.sealed, $0.reason == nil { $0.reason = reason } } }
    func seal() { state.withLock { $0.sealed = true } }
}
