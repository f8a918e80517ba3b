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

/// What the WHEP tests share: a server on loopback fed with the test pattern, raw HTTP, and a real viewer (our full
/// ICE agent and DTLS client over a UDP socket, through the same `WebRTCLink` a WHIP publisher uses).
enum WHEPTestSupport {
    /// A 320x240 stream at 30 fps, 500 kbit/s.
    static func configuration() -> SenderConfiguration {
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: 9,
            encoder: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 500_000))
        configuration.rtx = .init(payloadType: PayloadType(97))  // used when the viewer offers RTX, with its PT
        return configuration
    }

    /// Starts a server and a task pushing the pattern at 30 fps until cancelled.
    static func start(_ options: WHEPServer.Options) async throws -> (WHEPServer, Task<Void, Never>) {
        let server = try await WHEPServer(configuration: configuration(), options: options)
        let pump = Task.detached {
            guard let pattern = try? PatternSource(width: 320, height: 240) else { return }
            nonisolated(unsafe) let source = pattern
            var next = ContinuousClock.now
            while !Task.isCancelled {
                do {
                    try server.send(captureTime: next) { frame in _ = try source.nextFrame(into: &frame) }
                } catch {
                    return
                }
                next += .milliseconds(33)
                try? await Task.sleep(until: next)
            }
        }
        return (server, pump)
    }

    /// An HTTP reply, parsed.
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// One request over a fresh connection (raw, so that the tests can send what no client would).
    /// The blocking socket calls run on a Dispatch thread, never on the cooperative pool the server's handlers
    /// need (two cores: two blocked test tasks would starve the server until the receive timeout).
    static func request(
        port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: String = ""
    ) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try requestBlocking(port: port, method, path, headers: headers, body: body) })
            }
        }
    }

    static func requestBlocking(
        port: Int, _ method: String, _ path: String, headers: [String: String], body: String
    ) throws -> Reply {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let raw = try rawExchange(port: port, text)
        guard let split = raw.range(of: "\r\n\r\n") else { throw WHEPTestError("no HTTP reply: \(raw.prefix(100))") }
        let head = raw[..<split.lowerBound].components(separatedBy: "\r\n")
        guard let statusLine = head.first, statusLine.hasPrefix("HTTP/1.1 "),
              let status = Int(statusLine.dropFirst(9).prefix(3)) else { throw WHEPTestError("bad status line") }
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: fields, body: String(raw[split.upperBound...]))
    }

    static func rawExchange(port: Int, _ request: String) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw WHEPTestError("cannot connect to 127.0.0.1:\(port)") }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            reply += buffer[0..<n]
        }
        return String(decoding: reply, as: UTF8.self)
    }

    /// Whether a UDP port on 127.0.0.1 can be bound (false while a viewer's socket holds it).
    static func udpPortIsFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// A recvonly offer as a WHEP player writes it: H.264 42e01f mode 1 with RTX, NACK, PLI, FIR, REMB.
    static func offer(credentials: ICECredentials, candidate: TransportAddress, fingerprint: DTLSFingerprint) -> String {
        let video = VideoSendConfiguration(
            profileLevelID: try! ProfileLevelID(string: "42e01f"), packetizationMode: 1, ssrc: 0x0bad_cafe,
            rtxSSRC: 0x0bad_caff, cname: "test-viewer")
        let local = LocalTransportDescription(
            credentials: credentials, candidates: [.host(candidate)], iceLite: false, fingerprint: fingerprint)
        return VideoOfferer.offer(video: video, transport: local).sdp.replacingOccurrences(of: "a=sendonly", with: "a=recvonly")
    }

    /// Polls `condition` every 10 ms for up to `seconds`.
    static func waitFor(seconds: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

struct WHEPTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

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

    /// POSTs an offer, applies the answer and starts ICE and DTLS.
    /// - Parameters:
    ///   - httpPort: the server's HTTP port.
    ///   - token: the bearer token.
    ///   - offeredFingerprint: the fingerprint written in the offer (default: the certificate's own).
    init(serverPort httpPort: Int, token: String? = nil, offeredFingerprint: DTLSFingerprint? = nil) async throws {
        loop = MultiThreadedEventLoopGroup.singleton.next()
        var configuration = TransportConfiguration(localHost: "127.0.0.1", localPort: 0, peer: nil, rtcpMux: true, security: nil)
        configuration.holdMediaUntilSecured = true
        let transport = try await UDPTransport.bind(configuration: configuration, eventLoop: loop)
        self.transport = transport
        let local = try await loop.submit { TransportAddress(transport.value.localAddress!)! }.get()
        let certificate = try DTLSCertificate.generate()
        let credentials = ICECredentials.random()
        var headers = ["Content-Type": "application/sdp"]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let reply = try await WHEPTestSupport.request(
            port: httpPort, "POST", "/whep", headers: headers,
            body: WHEPTestSupport.offer(
                credentials: credentials, candidate: local, fingerprint: offeredFingerprint ?? certificate.fingerprint))
        guard reply.status == 201, let location = reply.headers["location"] else {
            try? await loop.submit { transport.value.close() }.get()
            throw WHEPTestError("POST /whep answered \(reply.status): \(reply.body)")
        }
        #expect(reply.headers["content-type"] == "application/sdp")
        #expect(reply.headers["etag"] != nil)
        self.location = location
        let answer = try JSEPSessionDescription(parsing: reply.body)
        let section = try #require(answer.media.first)
        #expect(answer.attributes.contains { $0.name == "ice-lite" })
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
        let peer = PeerTransport(
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
