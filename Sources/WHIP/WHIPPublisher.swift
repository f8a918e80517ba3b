import Codec
import DTLS
import H264
import HTTPRequester
public import Logging
import MediaTime
import NIOCore
import NIOPosix
import RTP
import STUN
import Sender
import Synchronization
import Transport
import WebRTC
import WebRTCTransport

/// Publishes an `H264Sender`'s stream to a WHIP endpoint (RFC 9725): an SFU such as Janus, MediaMTX or LiveKit, or
/// any WebRTC peer behind one.
///
/// It offers `sendonly` H.264 with `a=setup:actpass` and full ICE (controlling) from one UDP socket, POSTs the offer,
/// runs ICE and DTLS in the role the answer picks, and once DTLS is done installs the derived SRTP keys: from then on
/// the sender's RTP (and RTX), Sender Reports, and its answers to NACK, PLI/FIR and REMB/TMMBR flow over the selected
/// pair. Consent expiry or a DTLS failure ends the sender (`finish()` then throws `SenderError.transportClosed`).
///
/// ```swift
/// var configuration = SenderConfiguration(publishing: EncoderConfiguration(width: 1280, height: 720, ...))
/// let publisher = try await WHIPPublisher(configuration: configuration,
///                                         whip: WHIPConfiguration(url: "http://sfu:8080/whip/room1", token: token))
/// try publisher.sender.send(frame, captureTime: .now)     // the H264Sender push API
/// let stats = try await publisher.finish()                 // BYE, socket closed, DELETE of the session
/// ```
///
/// One wildcard socket of the family the system routes toward the endpoint with (IPv4, or IPv6 for an IPv6 endpoint);
/// its host candidates are the address the route leaves from, then every other up interface's address of that family
/// (loopback only when the endpoint is on loopback, no IPv6 link-local), at most eight; ICE pairs each datagram by the
/// address it arrived on. When the addresses change, or the selected pair stops answering consent checks, ICE is
/// restarted (`events`, `iceRestarts`; Docs/Guide.md "When the address changes"). The configuration's peer address, local address, SRTP settings and
/// `rtcpMux` are not used: ICE, DTLS and BUNDLE decide them.
///
/// ICE servers (`WHIPConfiguration.iceServers`): before the offer, the same socket asks each STUN server for its
/// server-reflexive address and allocates a relayed address on each TURN server (UDP, long-term credential), for at
/// most `gatheringTimeout`; the offer carries those `srflx` and `relay` candidates. The TURN servers of the endpoint's
/// `Link` headers are allocated on after the answer, their relayed candidates checked without being offered (the
/// endpoint learns them as peer-reflexive). ICE checks every pair, relayed ones through their server; when a
/// relayed pair is selected a channel is bound to the peer and the media goes as ChannelData. The allocations are
/// refreshed while the stream runs and released when it ends.
public final class WHIPPublisher: Sendable {
    /// The sender: push frames, read `events` and `reports`, `setBitrate`, `requestKeyframe`.
    public let sender: H264Sender
    /// The WHIP session (resource URL, answer).
    public let session: WHIPSession
    private let logger: Logger
    /// The STUN and TURN servers the endpoint offered (`session.iceServers`, from the 201's `Link` headers); its TURN
    /// servers (UDP, TCP and TLS) are used (see `iceServerProblems` for the others).
    public var iceServers: [ICEServer] { session.iceServers }
    /// The type of the selected pair's local candidate: `.host`, or `.relay` (through `relayServer`).
    public let localCandidateType: ICECandidate.Kind
    /// The type of the selected pair's remote candidate, as the endpoint's answer gave it (`.host`, `.srflx`,
    /// `.relay`), or `.prflx` when the answer had none at that address (learnt from the endpoint's checks).
    public let remoteCandidateType: ICECandidate.Kind
    /// The TURN server the selected pair runs through (its URI), or nil for a direct pair.
    public let relayServer: String?
    /// How the publisher reaches `relayServer`: "udp", "tcp" or "tls" (`getStats()`'s `relayProtocol`), or nil for a
    /// direct pair.
    public let relayProtocol: String?
    /// The server-reflexive and relayed candidates gathered: those of the offer, then those gathered after the
    /// answer (`typ address:port`).
    public let gatheredCandidates: [String]
    /// Why ICE servers gave no candidate or were not used: unsupported, unresolvable, refused, no answer. Never holds
    /// a credential.
    public let iceServerProblems: [String]
    /// The local end of the pair ICE selected (`IP:port`).
    public let localAddress: String
    /// All our host candidates (`IP:port`): one per IPv4 interface address, loopback only for a loopback endpoint.
    public let localCandidates: [String]
    /// The remote address ICE selected (`IP:port`).
    public let remoteAddress: String
    /// The DTLS-SRTP suite negotiated (`AES_CM_128_HMAC_SHA1_80` or `AEAD_AES_128_GCM`).
    public let suite: String
    /// How long ICE and DTLS took after the answer arrived.
    public let connectDuration: Duration

    /// ICE restarts and their failures, as they happen (ends when the publisher finishes). Newest kept when not read.
    public let events: AsyncStream<WHIPPublisherEvent>
    /// ICE restarts completed (`iceRestarts`, as `getStats()` names the transport's count).
    public var iceRestarts: Int { restarter.restarts }
    /// ICE restart attempts that failed (each retried with backoff).
    public var iceRestartFailures: Int { restarter.failures }
    /// Candidates gathered after the offer and trickled to the endpoint (`PATCH`, RFC 9725 section 4.3.1), accepted.
    public var trickledCandidates: Int { restarter.trickled }
    /// How long the latest ICE restart took, from the first sign of trouble (an address change, consent checks
    /// unanswered for 2.5 s) to the new pair's selection.
    public var lastICERestartDuration: Duration? { restarter.lastDuration }

    private let client: WHIPClient
    private let restarter: ICERestarter
    private let link: NIOLoopBound<WebRTCLink>
    private let finished = Atomic<Bool>(false)
    private let deleteResult = Mutex<WHIPError?>(nil)

    /// Why the DELETE of `finish()` failed, when the stream itself had already failed (`finish()` throws the stream's
    /// error then); nil otherwise.
    public var deleteFailure: WHIPError? { deleteResult.withLock { $0 } }

    /// Negotiates, connects, and starts the sender.
    /// - Parameters:
    ///   - configuration: The stream (encoder, payload type, NACK, RTX, CNAME, ...); addresses and SRTP are ignored.
    ///   - whip: The endpoint and token.
    ///   - logger: Where the publisher logs (swift-log): the session created and connected (the selected pair, its
    ///     candidate type and relay, the SRTP suite, how long ICE and DTLS took) and ended at `info`, ICE servers that
    ///     gave no candidate and a failed DELETE at `warning`; its sender's lines too. The endpoint appears as its
    ///     scheme, host and port only (a path may hold a stream key), never a token or a credential. Nil logs to
    ///     `Logger(label: "rtc-h264.whip")`, the process's logging system.
    /// - Throws: `WHIPError` for the HTTP exchange, a bad answer or a failed ICE/DTLS connection (the session is
    ///   deleted again then); `SenderError` for an invalid configuration; encoder errors.
    public init(configuration: SenderConfiguration, whip: WHIPConfiguration, logger: Logger? = nil) async throws {
        var logger = logger ?? Logger(label: "rtc-h264.whip")
        let client = try WHIPClient(configuration: whip)
        logger[metadataKey: "endpoint"] = "\(client.endpoint.scheme)://\(client.endpoint.host):\(client.endpoint.port)"
        self.logger = logger
        var configuration = configuration
        configuration.security = nil
        configuration.acceptPlainRTCP = false
        configuration.rtcpMux = true
        // Simulcast is offered with our default ids (the answer's replace them): the stream identification it needs.
        let simulcastOffered = configuration.simulcast.count > 1
        if simulcastOffered {
            let defaults = VideoSendConfiguration(profileLevelID: configuration.encoder.profileLevelID,
                                                  packetizationMode: 1, ssrc: 1, cname: "-")
            configuration.mid = VideoOfferer.mid
            configuration.midExtensionID = UInt8(defaults.offerMIDExtensionID)
            configuration.ridExtensionID = UInt8(defaults.offerRIDExtensionID)
            configuration.repairedRIDExtensionID = UInt8(defaults.offerRepairedRIDExtensionID)
        }
        try configuration.validate()
        var rng = SystemRandomNumberGenerator()
        // The SSRCs go into the offer: drawn now, and kept by the sender.
        let identity = StreamIdentity.draw(for: configuration, using: &rng)
        let ssrc = identity.ssrc
        configuration.ssrc = ssrc
        configuration.rtx?.ssrc = identity.rtxSSRC
        configuration.fec?.ssrc = identity.fecSSRC

        // One wildcard socket, a host candidate per interface address, the ICE servers' candidates.
        let peer = try await OfferingPeer.prepare(client: client, whip: whip)
        let loop = peer.loop

        // The offer.
        var video = VideoSendConfiguration(
            profileLevelID: configuration.encoder.profileLevelID,
            packetizationMode: configuration.packetizationMode == .singleNALUnit ? 0 : 1,
            ssrc: ssrc.rawValue, rtxSSRC: configuration.rtx?.ssrc?.rawValue, cname: configuration.cname)
        video.offerPayloadType = configuration.payloadType.rawValue
        if let rtx = configuration.rtx { video.offerRTXPayloadType = rtx.payloadType.rawValue }
        if let fec = configuration.fec {
            video.fecSSRC = fec.ssrc?.rawValue
            video.offerFECPayloadType = fec.payloadType.rawValue
        }
        video.feedback = configuration.answeredFeedback
        // Delay-based congestion control when the endpoint answers transport-cc.
        video.transportWideCC = configuration.congestionControl
        // The capture time always; the playout delay when the configuration has one.
        video.absoluteCaptureTime = true
        video.playoutDelay = configuration.playoutDelay != nil
        // The dependency descriptor with temporal layers, so that the SFU can thin the stream per subscriber.
        video.dependencyDescriptor = configuration.encoder.temporalLayers > 1
        // Simulcast: the encodings highest first, as Janus numbers them (substream 0 is the last, the lowest).
        if simulcastOffered {
            video.simulcast = SimulcastDescription(
                direction: .send, streams: configuration.simulcast.reversed().map { SimulcastDescription.Stream(rid: $0.rid) })
        }
        let offer = VideoOfferer.offer(video: video, transport: peer.localTransport)

        // POST, then read the answer; from here on a failure deletes the session again.
        let (session, negotiated, postDuration) = try await peer.post(offer.sdp, to: client) {
            try VideoOfferer.accept($0, video: video)
        }
        let answeredAt = ContinuousClock.now
        // The exchange as the endpoint's user sees it: connection, TLS handshake, the POST and its answer.
        logger.info("WHIP session created", metadata: [
            "ice_servers": "\(session.iceServers.count)",
            "post_ms": "\((postDuration / .milliseconds(1) * 10).rounded() / 10)",
        ])
        func abandon(_ error: any Error) async -> any Error { await peer.abandon(session, client: client, error) }
        if negotiated.rtxPayloadType == nil { configuration.rtx = nil }
        if negotiated.fecPayloadType == nil { configuration.fec = nil }
        configuration.transportWideCCExtensionID = NegotiatedVideo.oneByteID(negotiated.transportCCExtensionID)
        configuration.absoluteCaptureTimeExtensionID = NegotiatedVideo.oneByteID(negotiated.absoluteCaptureTimeExtensionID)
        configuration.playoutDelayExtensionID = NegotiatedVideo.oneByteID(negotiated.playoutDelayExtensionID)
        configuration.dependencyDescriptorExtensionID = NegotiatedVideo.oneByteID(negotiated.dependencyDescriptorExtensionID)
        // Simulcast with the encodings the answer keeps (two or more); otherwise one stream of the full size.
        if let rids = negotiated.simulcastRIDs, rids.count > 1 {
            configuration.simulcast = configuration.simulcast.filter { rids.contains($0.rid) }
            configuration.mid = negotiated.mid
            configuration.midExtensionID = NegotiatedVideo.oneByteID(negotiated.midExtensionID)
            configuration.ridExtensionID = NegotiatedVideo.oneByteID(negotiated.ridExtensionID)
            configuration.repairedRIDExtensionID = NegotiatedVideo.oneByteID(negotiated.repairedRIDExtensionID)
            if configuration.repairedRIDExtensionID == nil { configuration.rtx = nil }
        } else {
            if simulcastOffered {
                logger.warning("the WHIP answer takes no simulcast: one stream of the full size is sent", metadata: [
                    "kept": "\(negotiated.simulcastRIDs ?? [])",
                ])
            }
            configuration.simulcast = []
            configuration.mid = nil
            configuration.midExtensionID = nil
            configuration.ridExtensionID = nil
            configuration.repairedRIDExtensionID = nil
        }
        // The endpoint's TURN servers (Link headers): allocated on from now on, next to ICE's first checks.
        let (endpointServers, endpointProblems) = await peer.endpointServers(session.iceServers, whip: whip)
        let problems = peer.problems + endpointProblems
        if !negotiated.feedback.contains("nack") {
            configuration.nack = false
            configuration.rtx = nil
        }
        // ICE (full, controlling) and DTLS on the loop; wait for the keys.
        let senderBox = Mutex<H264Sender?>(nil)
        let restartSignals = ICERestarter.Signals()
        let allowRepeat = configuration.nack && configuration.rtx == nil
        let link: NIOLoopBound<WebRTCLink>
        let remote: TransportAddress
        let usable: [ICECandidate]
        do {
            (link, remote, usable) = try await peer.connect(
                negotiated, endpointServers: endpointServers, allowRepeatTransmission: allowRepeat,
                timeout: whip.connectTimeout
            ) { event in
                switch event {
                case .pathChanged: restartSignals.post(.pathChanged)
                case .disconnected: restartSignals.post(.disconnected)
                case .candidate(let candidate): restartSignals.post(.candidate(candidate))
                case .closed(let reason): senderBox.withLock { $0 }?.end(with: .transportClosed(reason))
                }
            }
        } catch {
            throw await abandon(error)
        }
        let connectDuration = ContinuousClock.now - answeredAt
        let connection = try await peer.connection(of: link)
        let (suite, selectedLocal, relay, relayProtocol) = (connection.suite, connection.selectedLocal, connection.relay, connection.relayProtocol)
        let (gathered, lateProblems) = (connection.gathered, connection.lateProblems)

        // The sender, over the secured transport.
        let origin = ContinuousClock.now
        let sender: H264Sender
        do {
            sender = try await H264Sender(
                configuration: configuration, clock: .system(origin: origin), origin: origin, ioLoop: loop,
                makeEncoder: { [preference = configuration.degradationPreference] in
                    try AdaptiveH264Encoder(configuration: $0, preference: preference)
                }, transport: peer.transport, logger: logger)
        } catch {
            try? await loop.submit { link.value.close() }.get()
            throw await abandon(error)
        }
        senderBox.withLock { $0 = sender }
        // Closed between connecting and now: end the sender at once.
        let closedEarly = try await loop.submit { link.value.peer.isClosed }.get()
        if closedEarly { sender.end(with: .transportClosed("the WebRTC transport closed while the sender started")) }

        let (events, continuation) = AsyncStream.makeStream(
            of: WHIPPublisherEvent.self, bufferingPolicy: .bufferingNewest(64))
        self.events = events
        restarter = peer.restarter(
            client: client, session: session, mid: negotiated.mid, remoteCandidates: usable, link: link,
            signals: restartSignals, events: continuation, logger: logger
        ) { sender.requestKeyframe() }
        restarter.start()
        self.sender = sender
        self.session = session
        self.client = client
        self.link = link
        self.localAddress = (selectedLocal ?? peer.local).description
        self.localCandidates = peer.locals.map(\.description)
        self.localCandidateType = relay == nil ? .host : .relay
        self.relayServer = relay
        self.relayProtocol = relayProtocol
        self.gatheredCandidates = gathered
        self.iceServerProblems = problems + lateProblems
        self.remoteAddress = remote.description
        self.remoteCandidateType = ICECandidate.kind(of: remote, among: usable)
        self.suite = suite
        self.connectDuration = connectDuration
        for problem in problems + lateProblems {
            logger.warning("an ICE server gave no candidate", metadata: ["problem": "\(problem)"])
        }
        logger.info("WHIP connected", metadata: [
            "local": "\(localAddress)", "remote": "\(remoteAddress)", "candidate": "\(relay == nil ? "host" : "relay")",
            "remote_candidate": "\(remoteCandidateType.rawValue)",
            "relay": "\(relay ?? "-")", "relay_protocol": "\(relayProtocol ?? "-")", "suite": "\(suite)",
            "connect_ms": "\((connectDuration / .milliseconds(1)).rounded())",
        ])
    }

    /// Ends the stream: the last frame, an RTCP BYE, the socket closed, then DELETE of the session resource. Safe to
    /// call more than once (the DELETE is sent once).
    ///
    /// No DTLS close_notify is sent: RFC 9725 ends a session with the DELETE, and an endpoint that tears the session
    /// down on close_notify (simple-whip-server in front of Janus does) would answer that DELETE with 404.
    /// - Returns: The final statistics.
    /// - Throws: The error that ended the stream early (`SenderError.transportClosed` when ICE consent expired or
    ///   DTLS failed); otherwise a `WHIPError` when the DELETE failed.
    @discardableResult
    public func finish() async throws -> SenderStats {
        let first = !finished.exchange(true, ordering: .acquiringAndReleasing)
        if first { restarter.stop() }
        let result: Result<SenderStats, any Error>
        do {
            result = .success(try await sender.finish())
        } catch {
            result = .failure(error)
        }
        if first {
            let link = self.link
            try? await link.eventLoop.submit { link.value.close() }.get()
            do {
                try await client.terminate(session)
                logger.info("WHIP session ended")
            } catch {
                logger.warning("the DELETE of the WHIP session failed", metadata: ["error": "\(error)"])
                if case .success = result { throw error }
                deleteResult.withLock { $0 = error }
            }
        }
        return try result.get()
    }

    /// The WebRTC counters: ICE checks, DTLS refusals.
    public func transportStatistics() async -> PeerTransport.Statistics? {
        let link = self.link
        return try? await link.eventLoop.submit { link.value.peer.statistics }.get()
    }
}

extension SenderConfiguration {
    /// A configuration for publishing over WebRTC (WHIP, WHEP): the peer address and SRTP come from ICE and DTLS, so
    /// only the encoder is given; everything else has the usual defaults.
    /// - Parameters:
    ///   - encoder: The encoder's settings.
    public init(publishing encoder: EncoderConfiguration) {
        // A placeholder peer (the discard port of an unspecified address): never used with a prepared transport.
        self.init(peerHost: "0.0.0.0", peerPort: 9, encoder: encoder)
    }
}
