import DTLS
import Foundation
import H264
import RTP
import SRTP
import STUN
import Testing
@testable import WebRTC

/// Our ICE-lite + DTLS-SRTP + JSEP answer against aiortc, an independent WebRTC stack (aioice, pyOpenSSL, pylibsrtp,
/// PyAV), over real UDP: aiortc offers as a WHEP viewer, we answer, packetize an x264 stream with our RFC 6184
/// packetizer, protect it with the DTLS-derived keys, and aiortc decodes the frames.
///
/// Opt-in: set RTC_H264_AIORTC_PYTHON to a Python that has aiortc (`python3 -m venv v && v/bin/pip install aiortc`).
@Suite struct AiortcInteropTests {
    static let python = ProcessInfo.processInfo.environment["RTC_H264_AIORTC_PYTHON"]
    static let frameCount = 60
    static let frameInterval: Duration = .milliseconds(33)

    @Test(.enabled(if: python != nil, "set RTC_H264_AIORTC_PYTHON to a Python with aiortc"), .timeLimit(.minutes(1)))
    func aiortcViewerDecodesOurStream() throws {
        let clock = ContinuousClock()
        let origin = clock.now
        func now() -> MonotonicTime { MonotonicTime(nanoseconds: (clock.now - origin).saturatingNanoseconds) }

        // An x264 Constrained Baseline stream, one keyframe per second.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aiortc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let h264 = directory.appendingPathComponent("stream.h264")
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-frames:v",
                            "\(Self.frameCount)", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-profile:v", "baseline",
                            "-g", "30", "-bf", "0", "-f", "h264", h264.path]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        #expect(ffmpeg.terminationStatus == 0)
        let annexB = try [UInt8](Data(contentsOf: h264))
        let accessUnits = try AnnexB.accessUnits(in: annexB)
        #expect(accessUnits.count == Self.frameCount)

        // aiortc as the viewer.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Interop/aiortc_whep_client.py")
        let viewer = Process()
        viewer.executableURL = URL(fileURLWithPath: try #require(Self.python))
        viewer.arguments = [script.path, "--frames", "\(Self.frameCount - 2)", "--timeout", "20"]
        let toViewer = Pipe()
        let fromViewer = Pipe()
        viewer.standardInput = toViewer
        viewer.standardOutput = fromViewer
        try viewer.run()
        defer { if viewer.isRunning { viewer.terminate() } }
        var lines = LineReader(handle: fromViewer.fileHandleForReading)
        let firstLine = lines.next(timeoutMilliseconds: 20_000)
        let offerLine = try #require(firstLine)
        let offerObject = try JSONSerialization.jsonObject(with: Data(offerLine.utf8)) as? [String: String]
        let offer = try JSEPSessionDescription(parsing: try #require(offerObject?["offer"]))

        // Our side: one socket on an external interface (aioice leaves loopback out), ICE-lite, DTLS server.
        let ip = try #require(UDPTestSocket.firstExternalIPv4())
        let socket = try UDPTestSocket(ip: ip)
        let certificate = try DTLSCertificate.generate()
        let credentials = ICECredentials.random()
        var video = VideoSendConfiguration(profileLevelID: try ProfileLevelID(string: "42e01f"), packetizationMode: 1,
                                           ssrc: 0x5eed_0001, cname: "interop")
        video.feedback = ["nack", "nack pli"]
        let (answer, negotiated) = try VideoAnswerer.answer(
            offer, video: video,
            transport: LocalTransportDescription(credentials: credentials, candidates: [.host(socket.address)],
                                                 iceLite: true, fingerprint: certificate.fingerprint))
        let answerJSON = try JSONSerialization.data(withJSONObject: ["answer": answer.sdp])
        toViewer.fileHandleForWriting.write(answerJSON + Data("\n".utf8))
        let answeredAt = now()
        let transport = PeerTransport(
            agent: .lite(ICELiteAgent(local: credentials, remote: negotiated.remoteCredentials, now: now())),
            dtls: try DTLSEndpoint(context: try DTLSContext(certificate: certificate), role: negotiated.dtlsRole,
                                   remoteFingerprint: negotiated.remoteFingerprint))

        var packetizer = try H264Packetizer(
            ssrc: SSRC(video.ssrc), payloadType: PayloadType(negotiated.format.payloadType),
            firstSequenceNumber: SequenceNumber(1000), srtpTrailerSize: SRTPSuite.maxRTPTrailer)
        var packetBuffer = packetizer.makePacketBuffer()
        var outbound: SRTPSession?
        var inbound: SRTPSession?
        var remote: TransportAddress?
        var connectedAt: MonotonicTime?
        var nextFrame = 0
        var nextFrameTime = MonotonicTime.zero
        var rtcpDecrypted = 0
        var receiveBuffer = [UInt8](repeating: 0, count: 2048)
        var result: [String: Any]?

        while result == nil, now() < MonotonicTime.zero + .seconds(40) {
            while let (count, source) = socket.receive(into: &receiveBuffer) {
                let datagram = receiveBuffer[0..<count]
                if case .media(.rtcp) = transport.handleDatagram(datagram, from: source, to: nil, now: now()),
                   let inbound {
                    var copy = Array(datagram)
                    if (try? inbound.unprotectRTCP(&copy, length: count)) != nil { rtcpDecrypted += 1 }
                }
            }
            transport.handleTimeout(now: now())
            while let transmit = transport.pollTransmit() { socket.send(transmit.bytes, to: transmit.destination) }
            while let event = transport.pollEvent() {
                switch event {
                case .connected(_, let address, let keys):
                    remote = address
                    connectedAt = now()
                    nextFrameTime = now()
                    outbound = try SRTPSession(direction: .outbound, suite: keys.suite, key: keys.localKey)
                    inbound = try SRTPSession(direction: .inbound, suite: keys.suite, key: keys.remoteKey)
                case .pathChanged(_, let address): remote = address
                case .closed(let reason): Issue.record("transport closed: \(reason)")
                }
            }
            if let outbound, let remote, nextFrame < accessUnits.count, now() >= nextFrameTime {
                let unit = accessUnits[nextFrame]
                let frame = EncodedFrame(annexB: Array(annexB[unit.byteRange]), timestamp: Int64(nextFrame))
                try packetizer.packetize(frame, timestamp: RTPTimestamp(UInt32(nextFrame * 3000)), into: &packetBuffer) {
                    buffer in
                    try buffer.withUnsafeMutableBytes { raw, length in
                        length = try outbound.protectRTP(raw, length: length)
                    }
                    socket.send(buffer.bytes, to: remote)
                }
                nextFrame += 1
                nextFrameTime = nextFrameTime + Self.frameInterval
            }
            if let line = lines.next(timeoutMilliseconds: 5) {
                result = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            }
        }
        let report = try #require(result)
        #expect(connectedAt != nil)
        #expect(report["ice"] as? String == "completed")
        #expect(report["connection"] as? String == "connected")
        #expect((report["frames"] as? Int ?? 0) >= Self.frameCount - 2)
        #expect(report["width"] as? Int == 320)
        #expect(report["height"] as? Int == 240)
        #expect(rtcpDecrypted >= 1)  // aiortc's receiver reports, decrypted with the DTLS-derived keys
        if case .lite(let agent) = transport.agent {
            #expect(agent.statistics.integrityFailures == 0)
            #expect(agent.statistics.requestsAnswered >= 1)
        }
        print("aiortc interop: \(report), negotiated PT \(negotiated.format.payloadType) \(negotiated.format.profileLevelID), "
              + "suite \(transport.keys?.suite.sdpName ?? "-"), SRTCP decrypted \(rtcpDecrypted), "
              + "connected \(connectedAt.map { "\($0 - answeredAt)" } ?? "-") after the answer")
    }
}

/// Reads newline-terminated lines from a pipe with a timeout (poll).
struct LineReader {
    let handle: FileHandle
    var pending: [UInt8] = []

    init(handle: FileHandle) { self.handle = handle }

    mutating func next(timeoutMilliseconds: Int32) -> String? {
        if let line = takeLine() { return line }
        var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + .milliseconds(Int(timeoutMilliseconds))
        while ContinuousClock.now < deadline {
            let remaining = max(0, (deadline - ContinuousClock.now).saturatingNanoseconds / 1_000_000)
            guard poll(&descriptor, 1, Int32(remaining)) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = read(handle.fileDescriptor, &chunk, chunk.count)
            guard count > 0 else { return nil }
            pending += chunk[0..<count]
            if let line = takeLine() { return line }
        }
        return nil
    }

    mutating func takeLine() -> String? {
        guard let newline = pending.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = String(decoding: pending[..<newline], as: UTF8.self)
        pending.removeSubrange(...newline)
        return line
    }
}
