import DTLS
import Foundation
import H264
import MediaTime
import RTP
import SRTP
import STUN
import Testing
@testable import WebRTC

/// What the interop tests share: an x264 stream, a helper process speaking JSON lines on stdio, and the loop that
/// runs our `PeerTransport` over a real UDP socket and sends the stream at 30 fps once connected.
enum InteropHarness {
    static let frameCount = 60
    static let frameInterval: Duration = .milliseconds(33)

    /// Elapsed time on the test's clock.
    struct Clock {
        let clock = ContinuousClock()
        let origin = ContinuousClock.now
        func now() -> MonotonicTime { MonotonicTime(nanoseconds: (clock.now - origin).saturatingNanoseconds) }
    }

    /// An x264 Constrained Baseline stream of `frameCount` 320x240 frames, one keyframe per second.
    static func makeStream() throws -> (annexB: [UInt8], accessUnits: [AccessUnit]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aiortc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let h264 = directory.appendingPathComponent("stream.h264")
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-frames:v",
                            "\(frameCount)", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-profile:v", "baseline",
                            "-g", "30", "-bf", "0", "-f", "h264", h264.path]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        #expect(ffmpeg.terminationStatus == 0)
        let annexB = try [UInt8](Data(contentsOf: h264))
        let accessUnits = try AnnexB.accessUnits(in: annexB)
        #expect(accessUnits.count == frameCount)
        return (annexB, accessUnits)
    }

    /// Starts one of the aiortc scripts beside this file.
    static func launch(
        _ script: String, python: String, frames: Int = frameCount - 2, timeoutSeconds: Int = 20, extra: [String] = []
    ) throws
        -> (process: Process, input: FileHandle, lines: LineReader)
    {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Interop/\(script)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [path.path, "--frames", "\(frames)", "--timeout", "\(timeoutSeconds)"] + extra
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        return (process, input.fileHandleForWriting, LineReader(handle: output.fileHandleForReading))
    }

    static func send(_ object: [String: String], to handle: FileHandle) throws {
        handle.write(try JSONSerialization.data(withJSONObject: object) + Data("\n".utf8))
    }

    static func receive(_ key: String, from lines: inout LineReader) throws -> String {
        let line = lines.next(timeoutMilliseconds: 20_000)
        let object = try JSONSerialization.jsonObject(with: Data(try #require(line).utf8)) as? [String: String]
        return try #require(object?[key])
    }

    /// Our side answering a peer's offer as a WHEP server does: ICE-lite on `socket`, a DTLS endpoint in the role the
    /// answer gives, 42e01f packetization mode 1 on `ssrc`.
    struct LiteAnswer {
        let transport: PeerTransport
        let negotiated: NegotiatedVideo
        let video: VideoSendConfiguration
        let clock: Clock
    }

    /// Answers `offer`, writes `{"answer": sdp}` to the peer's `input`, and starts the clock there (the drive loop's
    /// "connected after the answer" counts from it).
    /// - Parameters:
    ///   - context: the DTLS context to use (a join loop shares one); by default a new one for `certificate`.
    ///   - setup: our preferred `a=setup` (passive: the peer is the DTLS client).
    static func answerAsLite(
        _ offer: JSEPSessionDescription, ssrc: UInt32, feedback: [String]? = nil, socket: UDPTestSocket,
        certificate: DTLSCertificate, context: DTLSContext? = nil, setup: DTLSSetup = .passive, input: FileHandle
    ) throws -> LiteAnswer {
        let credentials = ICECredentials.random()
        var video = VideoSendConfiguration(profileLevelID: try ProfileLevelID(string: "42e01f"), packetizationMode: 1,
                                           ssrc: ssrc, cname: "interop")
        if let feedback { video.feedback = feedback }
        var local = LocalTransportDescription(credentials: credentials, candidates: [.host(socket.address)],
                                              iceLite: true, fingerprint: certificate.fingerprint)
        local.preferredSetup = setup
        let (answer, negotiated) = try VideoAnswerer.answer(offer, video: video, transport: local)
        let clock = Clock()
        try send(["answer": answer.sdp], to: input)
        let transport = PeerTransport(
            agent: .lite(ICELiteAgent(local: credentials, remote: negotiated.remoteCredentials, now: clock.now())),
            dtls: try DTLSEndpoint(context: try context ?? DTLSContext(certificate: certificate), role: negotiated.dtlsRole,
                                   remoteFingerprint: negotiated.remoteFingerprint))
        return LiteAnswer(transport: transport, negotiated: negotiated, video: video, clock: clock)
    }

    /// Drives a `LiteAnswer` until the peer reports (see `drive(_:socket:clock:payloadType:ssrc:stream:lines:)`).
    static func drive(
        _ answer: LiteAnswer, socket: UDPTestSocket, stream: (annexB: [UInt8], accessUnits: [AccessUnit]),
        lines: inout LineReader
    ) throws -> Outcome {
        try drive(answer.transport, socket: socket, clock: answer.clock, payloadType: answer.negotiated.format.payloadType,
                  ssrc: answer.video.ssrc, stream: stream, lines: &lines)
    }

    /// What the drive loop saw.
    struct Outcome {
        var report: [String: Any]
        var connectedAt: MonotonicTime?
        var rtcpDecrypted = 0
    }

    /// Runs the socket, the transport and a 30 fps sender until aiortc reports.
    static func drive(
        _ transport: PeerTransport, socket: UDPTestSocket, clock: Clock, payloadType: UInt8, ssrc: UInt32,
        stream: (annexB: [UInt8], accessUnits: [AccessUnit]), lines: inout LineReader
    ) throws -> Outcome {
        var packetizer = try H264Packetizer(
            ssrc: SSRC(ssrc), payloadType: PayloadType(payloadType), firstSequenceNumber: SequenceNumber(1000),
            srtpTrailerSize: SRTPSuite.maxRTPTrailer)
        var packetBuffer = packetizer.makePacketBuffer()
        var outbound: SRTPSession?
        var inbound: SRTPSession?
        var remote: TransportAddress?
        var connectedAt: MonotonicTime?
        var nextFrame = 0
        var nextFrameTime = MonotonicTime.zero
        var rtcpDecrypted = 0
        var receiveBuffer = [UInt8](repeating: 0, count: 2048)
        while clock.now() < MonotonicTime.zero + .seconds(60) {
            while let (count, source) = socket.receive(into: &receiveBuffer) {
                let datagram = receiveBuffer[0..<count]
                if case .media(.rtcp) = transport.handleDatagram(datagram, from: source, to: socket.address, now: clock.now()),
                   let inbound {
                    var copy = Array(datagram)
                    if (try? inbound.unprotectRTCP(&copy, length: count)) != nil { rtcpDecrypted += 1 }
                }
            }
            transport.handleTimeout(now: clock.now())
            while let transmit = transport.pollTransmit() { socket.send(transmit.bytes, to: transmit.destination) }
            while let event = transport.pollEvent() {
                switch event {
                case .connected(_, let address, let keys):
                    remote = address
                    connectedAt = clock.now()
                    nextFrameTime = clock.now()
                    outbound = try SRTPSession(direction: .outbound, suite: keys.suite, key: keys.localKey)
                    inbound = try SRTPSession(direction: .inbound, suite: keys.suite, key: keys.remoteKey)
                case .pathChanged(_, let address): remote = address
                case .disconnected, .candidate: break  // the harness runs ICE-lite: never reported
                case .closed(.closedByPeer): break  // the page closes its connection before it reports
                case .closed(let reason): Issue.record("transport closed: \(reason)")
                }
            }
            if let outbound, let remote, nextFrame < stream.accessUnits.count, clock.now() >= nextFrameTime {
                let unit = stream.accessUnits[nextFrame]
                let frame = EncodedFrame(annexB: Array(stream.annexB[unit.byteRange]), timestamp: Int64(nextFrame))
                try packetizer.packetize(frame, timestamp: RTPTimestamp(UInt32(nextFrame * 3000)), into: &packetBuffer) {
                    buffer in
                    try buffer.withUnsafeMutableBytes { raw, length in
                        length = try outbound.protectRTP(raw, length: length)
                    }
                    socket.send(buffer.bytes, to: remote)
                }
                nextFrame += 1
                nextFrameTime = nextFrameTime + frameInterval
            }
            if let line = lines.next(timeoutMilliseconds: 5),
               let report = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] {
                return Outcome(report: report, connectedAt: connectedAt, rtcpDecrypted: rtcpDecrypted)
            }
        }
        Issue.record("the peer did not report within 60 s")
        return Outcome(report: [:], connectedAt: connectedAt, rtcpDecrypted: rtcpDecrypted)
    }

    static func expectDecoded(_ outcome: Outcome, frames: Int = frameCount - 2) {
        #expect(outcome.connectedAt != nil)
        #expect(["completed", "connected"].contains(outcome.report["ice"] as? String ?? ""))
        #expect(outcome.report["connection"] as? String == "connected")
        #expect((outcome.report["frames"] as? Int ?? 0) >= frames)
        #expect(outcome.report["width"] as? Int == 320)
        #expect(outcome.report["height"] as? Int == 240)
        #expect(outcome.rtcpDecrypted >= 1)  // aiortc's receiver reports, decrypted with the DTLS-derived keys
    }

}
