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
import TestSupport
import Transport
@testable import WebRTC
import Video
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
    /// The blocking socket calls run on a thread of their own, never on Swift concurrency's pool the server's
    /// handlers need (on Linux that pool is Dispatch's global queue: blocked test tasks, or blocked
    /// `DispatchQueue.global()` work, would starve the server until the receive timeout).
    static func request(
        host: String = "127.0.0.1", port: Int, _ method: String, _ path: String, headers: [String: String] = [:],
        body: String = ""
    ) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try requestBlocking(host: host, port: port, method, path, headers: headers, body: body)
                })
            }.start()
        }
    }

    static func requestBlocking(
        host: String = "127.0.0.1", port: Int, _ method: String, _ path: String, headers: [String: String], body: String
    ) throws -> Reply {
        let hostHeader = host.contains(":") ? "[\(host)]" : host
        var text = "\(method) \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let raw = try RawHTTP.exchangeBlocking(host: host, port: port, text, receiveTimeout: 10).text
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

    /// Raw bytes in, the raw reply out, on a thread of its own; `closed` says whether the server closed the
    /// connection (false: the 10 s receive timeout ended the read).
    static func exchange(port: Int, _ request: String) async throws -> (reply: String, closed: Bool) {
        let reply = try await RawHTTP.exchange(port: port, request, receiveTimeout: 10)
        return (reply.text, reply.end != .timedOut)
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
    static func offer(
        credentials: ICECredentials, candidate: TransportAddress, fingerprint: DTLSFingerprint, transportCC: Bool = false
    ) -> String {
        var video = VideoSendConfiguration(
            profileLevelID: try! ProfileLevelID(string: "42e01f"), packetizationMode: 1, ssrc: 0x0bad_cafe,
            rtxSSRC: 0x0bad_caff, cname: "test-viewer")
        video.transportWideCC = transportCC
        let local = LocalTransportDescription(
            credentials: credentials, candidates: [.host(candidate)], iceLite: false, fingerprint: fingerprint)
        return VideoOfferer.offer(video: video, transport: local).sdp.replacingOccurrences(of: "a=sendonly", with: "a=recvonly")
    }

    /// Polls `condition` every 10 ms for up to `seconds`.
    static func waitFor(seconds: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
        try await Poll.until(seconds: seconds, condition)
    }
}
