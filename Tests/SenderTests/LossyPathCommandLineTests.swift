import Foundation
import Testing
import TestSupport

/// Issue 12, end to end at a short duration: `rtc-h264 send` -> the impairment relay -> `rtc-h264 receive`. The full
/// table is the network benchmark. The processes are `ChildProcess`es: waiting for them holds no cooperative thread.
@Suite(.serialized) struct LossyPathCommandLineTests {
    static func relay() throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tools/ImpairmentRelay/impairment_relay.py")
        try #require(FileManager.default.fileExists(atPath: url.path), "the impairment relay is missing at \(url.path)")
        return url.path
    }

    /// What one run through the relay produced.
    struct Run: Sendable {
        var sdp: (status: Int32, stdout: String, stderr: String)
        var send: (status: Int32, stderr: String)
        /// The receiver's final statistics (JSON) and the sender's last `--stats` line.
        var receiverJSON: Data
        var senderJSON: Data
        /// The receiver's exit status and standard error, for the failure messages.
        var receiver: (status: Int32, reason: Process.TerminationReason, stderr: String)
    }

    /// `sdp`, then the relay, `receive --sdp` and `send` for 180 frames.
    static func runThroughRelay(stream: [String], fwd: String, rev: String, relayPath: String) async throws -> Run {
        let dir = try CommandLineTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let relayPort = TestPorts.reserve()
        let receivePort = TestPorts.reserve()
        let sdp = dir.appendingPathComponent("stream.sdp").path
        let common = ["--to", "127.0.0.1:\(relayPort)"] + stream
        let sdpRun = try await CommandLineTests.run(["sdp"] + common)
        try sdpRun.stdout.write(toFile: sdp, atomically: false, encoding: .utf8)

        let relay = try ChildProcess(
            executable: URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["python3", relayPath, "--listen", "127.0.0.1:\(relayPort)", "--to", "127.0.0.1:\(receivePort)",
                        "--fwd", fwd, "--rev", rev, "--seed", "7", "--duration", "30"])
        defer { relay.terminate() }
        try await Task.sleep(for: .milliseconds(500))
        let receiver = try CommandLineTests.start(
            ["receive", "--listen", "127.0.0.1:\(receivePort)", "--sdp", sdp, "--json", "--idle-timeout", "3"])
        defer { receiver.terminate() }
        try await Task.sleep(for: .milliseconds(300))
        let statsPath = dir.appendingPathComponent("stats.jsonl").path
        let send = try await CommandLineTests.run(["send"] + common + ["--frames", "180", "--stats", statsPath, "--quiet"])
        let received = await receiver.finished()
        let lines = (try? String(contentsOfFile: statsPath, encoding: .utf8))?.split(separator: "\n") ?? []
        return Run(
            sdp: (sdpRun.status, sdpRun.stdout, sdpRun.stderr), send: (send.status, send.stderr),
            receiverJSON: received.standardOutput, senderJSON: Data((lines.last.map(String.init) ?? "{}").utf8),
            receiver: (received.status, received.reason, received.stderr))
    }

    static func dictionary(_ json: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any], "\(String(decoding: json, as: UTF8.self))")
    }

    /// The receiver's statistics; a receiver that printed none fails with its exit status and standard error.
    static func receiverStatistics(_ run: Run) throws -> [String: Any] {
        try #require(!run.receiverJSON.isEmpty, "the receiver printed no statistics: status \(run.receiver.status) (\(run.receiver.reason == .uncaughtSignal ? "signal" : "exit")), \(run.receiver.stderr)")
        return try dictionary(run.receiverJSON)
    }

    /// 3 % loss both ways, 25 ms each way: with NACK and the jitter buffer nearly every frame is decoded; on 9c36cd3
    /// about 30 % were (one loss froze the picture until the next PLI's IDR).
    @Test(.timeLimit(.minutes(1)))
    func nackRepairsAThreePercentLossyPath() async throws {
        let key = Data((0..<30).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 5) }).base64EncodedString()
        let relay = try Self.relay()
        let run = try await Self.runThroughRelay(
            stream: ["--key", key, "--size", "640x360", "--bitrate", "800k", "--ssrc", "777"],
            fwd: "delay_ms=25,loss=0.03", rev: "delay_ms=25,loss=0.03", relayPath: relay)
        #expect(run.sdp.status == 0, "\(run.sdp.stderr)")
        #expect(run.sdp.stdout.contains("a=rtcp-fb:96 nack\r\n"))
        #expect(run.sdp.stdout.contains("RTP/SAVPF"))
        #expect(run.send.status == 0, "\(run.send.stderr)")
        let stats = try Self.receiverStatistics(run)
        let sent = try Self.dictionary(run.senderJSON)
        let framesSent = sent["framesSent"] as? Int ?? 0
        let decoded = stats["framesDecoded"] as? Int ?? 0
        #expect(framesSent >= 170)
        #expect(Double(decoded) >= 0.9 * Double(framesSent), "decoded \(decoded) of \(framesSent): \(stats)")
        #expect((stats["nackCount"] as? Int ?? 0) > 0)
        #expect((sent["retransmittedPacketsSent"] as? Int ?? 0) > 0)
    }

    /// `--fec` (issue 24): the SDP announces flexfec-03 with its FEC-FR group, and over a 5 % lossy path with 100 ms
    /// each way (the receiver's loss reports turn the protection on) our receiver recovers packets from the FEC packets
    /// and decodes nearly every frame.
    @Test(.timeLimit(.minutes(1)))
    func flexFECRecoversLostPacketsEndToEnd() async throws {
        let key = Data((0..<30).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }).base64EncodedString()
        let relay = try Self.relay()
        let run = try await Self.runThroughRelay(
            stream: ["--key", key, "--size", "640x360", "--bitrate", "800k", "--ssrc", "778", "--rtx", "--fec",
                     "--fec-ssrc", "4242"],
            fwd: "delay_ms=100,loss=0.05", rev: "delay_ms=100,loss=0.05", relayPath: relay)
        #expect(run.sdp.status == 0, "\(run.sdp.stderr)")
        #expect(run.sdp.stdout.contains("a=rtpmap:49 flexfec-03/90000\r\n"), "\(run.sdp.stdout)")
        #expect(run.sdp.stdout.contains("a=ssrc-group:FEC-FR 778 4242\r\n"), "\(run.sdp.stdout)")
        #expect(run.send.status == 0, "\(run.send.stderr)")
        let stats = try Self.receiverStatistics(run)
        let sent = try Self.dictionary(run.senderJSON)
        let framesSent = sent["framesSent"] as? Int ?? 0
        let decoded = stats["framesDecoded"] as? Int ?? 0
        #expect((sent["fecPacketsSent"] as? Int ?? 0) > 0, "\(sent)")
        #expect((stats["fecPacketsReceived"] as? Int ?? 0) > 0, "\(stats)")
        #expect((stats["packetsRecovered"] as? Int ?? 0) > 0, "\(stats)")
        #expect(Double(decoded) >= 0.9 * Double(framesSent), "decoded \(decoded) of \(framesSent): \(stats)")
    }

    /// `--transport-cc`: the SDP carries the extension and the feedback, our receiver sends transport-wide feedback,
    /// and through a 500 kbit/s bottleneck (30-packet queue) the sender's delay-based detector sees the queue grow and
    /// brings its estimate below the 1.2 Mbit/s start. How fast and how close it settles is the network benchmark's.
    @Test(.timeLimit(.minutes(1)))
    func transportWideFeedbackDrivesTheDelayBasedEstimateThroughABottleneck() async throws {
        let relay = try Self.relay()
        let run = try await Self.runThroughRelay(
            stream: ["--no-srtp", "--size", "640x360", "--bitrate", "1.2M", "--ssrc", "778", "--rtx", "--transport-cc", "3"],
            fwd: "delay_ms=25,rate_kbps=500,queue=30", rev: "delay_ms=25", relayPath: relay)
        #expect(run.sdp.status == 0, "\(run.sdp.stderr)")
        #expect(run.sdp.stdout.contains("a=rtcp-fb:96 transport-cc\r\n"))
        #expect(run.sdp.stdout.contains("a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r\n"))
        #expect(run.send.status == 0, "\(run.send.stderr)")
        let stats = try Self.receiverStatistics(run)
        let sent = try Self.dictionary(run.senderJSON)
        #expect((stats["transportFeedbackSent"] as? Int ?? 0) > 0, "\(stats)")
        #expect((sent["transportFeedbackReceived"] as? Int ?? 0) > 0, "\(sent)")
        #expect((sent["overuseEvents"] as? Int ?? 0) >= 1, "\(sent)")
        let delay = try #require(sent["delayBasedEstimate"] as? Int, "\(sent)")
        #expect(delay < 1_200_000, "\(sent)")
        #expect((sent["targetBitrate"] as? Int ?? .max) < 1_200_000, "\(sent)")
    }
}
