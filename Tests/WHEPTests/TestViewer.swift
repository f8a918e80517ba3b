import Codec
import DTLS
import Foundation
import H264
import NIOCore
import NIOPosix
import RTP
import STUN
import Sender
import Testing
import Transport
@testable import WebRTC
import WebRTCTransport
@testable import WHEP

#if canImport(Glibc)
import Glibc
#endif

/// A real viewer: a held UDP transport, our full ICE agent (controlling) and DTLS client, the packets it receives.
final class TestViewer: Sendable {
    /// What the viewer saw, confined to its loop.
    final class Observed {
        var events: [WebRTCLink.Event] = []
        /// Received RTP packets, unprotected.
        var rtp: [[UInt8]] = []
        var rtcp: [RTCPPacket] = []
    }

    let loop: EventLoop
    let transport: NIOLoopBound<UDPTransport>
    /// The server's answer.
    let answerSDP: String
    let link: NIOLoopBound<WebRTCLink>
    let observed: NIOLoopBound<Observed>
    /// The session's path (`Location`).
    let location: String
    /// The server's candidate port (the viewer's socket on the server).
    let serverPort: Int
    /// The H.264 and RTX payload types the answer chose.
    let payloadType: UInt8
    let rtxPayloadType: UInt8?
    /// The answer's media SSRC.
    let mediaSSRC: UInt32
    /// The viewer's ICE credentials (in its offer).
    let credentials: ICECredentials
    /// The session's `ETag` from the 201.
    let etag: String?

    /// POSTs an offer, applies the answer and starts ICE and DTLS.
    /// - Parameters:
    ///   - httpPort: the server's HTTP port.
    ///   - token: the bearer token.
    ///   - offeredFingerprint: the fingerprint written in the offer (default: the certificate's own).
    ///   - transportCC: whether the offer has transport-cc (`a=extmap` id 3 and `a=rtcp-fb ... transport-cc`).
    ///   - host: the server's and the viewer's address (an IPv4 or IPv6 literal).
    ///   - iceLite: whether the answer must say `a=ice-lite` (a server without ICE servers), or must not.
    init(
        serverPort httpPort: Int, token: String? = nil, offeredFingerprint: DTLSFingerprint? = nil,
        transportCC: Bool = false, host: String = "127.0.0.1", iceLite: Bool = true
    ) async throws {
        loop = MultiThreadedEventLoopGroup.singleton.next()
        var configuration = TransportConfiguration(localHost: host, localPort: 0, peer: nil, rtcpMux: true, security: nil)
        configuration.holdMediaUntilSecured = true
        let transport = try await UDPTransport.bind(configuration: configuration, eventLoop: loop)
        self.transport = transport
        let local = try await loop.submit { TransportAddress(transport.value.localAddress!)! }.get()
        let certificate = try DTLSCertificate.generate()
        let credentials = ICECredentials.random()
        self.credentials = credentials
        var headers = ["Content-Type": "application/sdp"]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let reply = try await WHEPTestSupport.request(
            host: host, port: httpPort, "POST", "/whep", headers: headers,
            body: WHEPTestSupport.offer(
                credentials: credentials, candidate: local, fingerprint: offeredFingerprint ?? certificate.fingerprint,
                transportCC: transportCC))
        guard reply.status == 201, let location = reply.headers["location"] else {
            try? await loop.submit { transport.value.close() }.get()
            throw WHEPTestError("POST /whep answered \(reply.status): \(reply.body)")
        }
        #expect(reply.headers["content-type"] == "application/sdp")
        #expect(reply.headers["etag"] != nil)
        etag = reply.headers["etag"]
        self.location = location
        answerSDP = reply.body
        let answer = try JSEPSessionDescription(parsing: reply.body)
        let section = try #require(answer.media.first)
        #expect(answer.attributes.contains { $0.name == "ice-lite" } == iceLite)
        #expect(section.direction == "sendonly")
        let remote = try answer.remoteTransport(for: section)
        let candidate = try #require(remote.candidates.first?.transportAddress)
        serverPort = Int(candidate.port)
        let format = try #require(H264PayloadFormat.formats(in: section).first)
        payloadType = format.payloadType
        rtxPayloadType = format.rtxPayloadType
        let ssrcLine = try #require(section.attributes.first { $0.name == "ssrc" }?.value)
        mediaSSRC = try #require(UInt32(ssrcLine.split(separator: " ").first ?? ""))
        var generator = SystemRandomNumberGenerator()
        let now = WebRTCLink.monotonicNow()
        var agent = ICEFullAgent(
            local: credentials, remote: remote.credentials,
            localCandidates: [.init(address: local, priority: 2_122_260_223)], now: now, using: &generator)
        agent.addRemoteCandidate(try #require(remote.candidates.first))
        let role: DTLSRole = remote.setup == .passive ? .client : .server
        // nonisolated(unsafe): handed to the loop once, never touched here again.
        nonisolated(unsafe) let peer = PeerTransport(
            agent: .full(agent),
            dtls: try DTLSEndpoint(context: try DTLSContext(certificate: certificate), role: role,
                                   remoteFingerprint: remote.fingerprint))
        let (link, observed) = try await loop.submit {
            let observed = Observed()
            let link = WebRTCLink(transport: transport.value, peer: peer, allowRepeatTransmission: false, local: local) {
                observed.events.append($0)
            }
            transport.value.onRTP = { bytes, _ in observed.rtp.append([UInt8](bytes)) }
            transport.value.onRTCP = { packets in observed.rtcp += packets }
            link.start()
            return (NIOLoopBound(link, eventLoop: transport.value.eventLoop),
                    NIOLoopBound(observed, eventLoop: transport.value.eventLoop))
        }.get()
        self.link = link
        self.observed = observed
    }

    /// Reads what the viewer saw, on its loop.
    func read<T: Sendable>(_ body: @escaping @Sendable (Observed) -> T) async throws -> T {
        let observed = self.observed
        return try await loop.submit { body(observed.value) }.get()
    }

    var isConnected: Bool {
        get async throws { try await read { $0.events.contains { if case .connected = $0 { true } else { false } } } }
    }

    /// Sends RTCP feedback to the server (SRTCP with the DTLS-derived keys), an RR first as RFC 3550 requires.
    func sendRTCP(_ packets: [RTCPPacket]) async throws {
        let transport = self.transport
        try await loop.submit {
            try transport.value.sendRTCP([.receiverReport(ReceiverReport(ssrc: SSRC(0x0bad_cafe), reportBlocks: []))] + packets)
        }.get()
    }

    /// Goes silent without a word (no close_notify, no more consent checks): the socket closes under the link.
    func vanish() async {
        let transport = self.transport
        try? await loop.submit { transport.value.close() }.get()
    }

    /// Closes the viewer's side.
    func close() async {
        let link = self.link, transport = self.transport
        try? await loop.submit {
            link.value.close()
            transport.value.close()
        }.get()
    }

    // MARK: What arrived

    /// The H.264 packets (not RTX), in arrival order.
    func mediaPackets() async throws -> [[UInt8]] {
        let payloadType = self.payloadType
        return try await read { $0.rtp.filter { $0.count > 12 && $0[1] & 0x7f == payloadType } }
    }

    /// The RTX packets.
    func rtxPackets() async throws -> [[UInt8]] {
        guard let rtx = rtxPayloadType else { return [] }
        return try await read { $0.rtp.filter { $0.count > 12 && $0[1] & 0x7f == rtx } }
    }

    /// Whether an RTP packet starts a keyframe: its payload is an SPS or a STAP-A that starts with one.
    static func startsKeyframe(_ packet: [UInt8]) -> Bool {
        let headerSize = 12 + 4 * Int(packet[0] & 0x0f) + (packet[0] & 0x10 != 0 ? extensionSize(packet) : 0)
        guard packet.count > headerSize + 3 else { return false }
        let type = packet[headerSize] & 0x1f
        if type == 7 { return true }
        return type == 24 && packet[headerSize + 3] & 0x1f == 7  // STAP-A: 1 header + 2 size bytes, then the NAL
    }

    static func extensionSize(_ packet: [UInt8]) -> Int {
        let at = 12 + 4 * Int(packet[0] & 0x0f)
        guard packet.count >= at + 4 else { return 0 }
        return 4 + 4 * (Int(packet[at + 2]) << 8 | Int(packet[at + 3]))
    }

    /// The keyframes that arrived (packets starting one).
    func keyframeCount() async throws -> Int {
        try await mediaPackets().filter(Self.startsKeyframe).count
    }
}
