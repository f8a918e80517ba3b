import Control
import Foundation
import Testing
import TestSupport
import Video

/// Issue 20, item 9: `receive --output x.y4m` kept only the frames before the sender's first resolution switch
/// ("Y4M: frame 13 is 960x540, stream is 1280x720"). Now every decoded frame is written at one size (the first
/// frame's, or `--output-size`), the switch is said once on standard error and counted in the statistics.
@Suite(.serialized) struct ReceiveY4MCommandLineTests {
    /// A 640x360 test pattern at 1 Mbit/s, stepped down to 120 kbit/s through the control endpoint after a second
    /// (the sender switches to a smaller size at once), received into a Y4M file. Ten seconds of frames: on a loaded
    /// machine (every suite runs at once) the step can land seconds in, and the switch must still come.
    @Test(.timeLimit(.minutes(1)), arguments: [nil, "320x240"] as [String?])
    func everyFrameAcrossAResolutionSwitchIsWrittenAtOneSize(outputSize: String?) async throws {
        let dir = try CommandLineTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.reserve()
        let controlPort = TestPorts.reserve()
        let output = dir.appendingPathComponent("out.y4m").path
        let receiver = try CommandLineTests.start(
            ["receive", "--listen", "127.0.0.1:\(port)", "--no-srtp", "--output", output, "--json", "--idle-timeout", "10"]
                + (outputSize.map { ["--output-size", $0] } ?? []))
        defer { receiver.terminate() }
        try await Task.sleep(for: .milliseconds(500))
        let sender = try CommandLineTests.start(
            ["send", "--to", "127.0.0.1:\(port)", "--no-srtp", "--size", "640x360", "--bitrate", "1M", "--frames", "300",
             "--control", "127.0.0.1:\(controlPort)", "--quiet"])
        defer { sender.terminate() }
        try await Task.sleep(for: .seconds(1))
        // Asked in process (no `rtc-h264 control` to start each time, which took seconds on a loaded machine), until
        // the endpoint answers or 8 s of the stream's 10 have passed.
        var stepped = false
        let deadline = ContinuousClock.now + .seconds(8)
        while !stepped && ContinuousClock.now < deadline {
            stepped = (try? await ControlClient.send(.setBitrate(120_000), host: "127.0.0.1", port: controlPort))?.status == 200
            if !stepped { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(stepped, "the control endpoint did not take the bitrate")
        let sent = await sender.finished()
        #expect(sent.status == 0, "\(sent.stderr)")
        let received = await receiver.finished()  // ends on the sender's BYE
        let (json, stderr) = (received.standardOutput, received.stderr)
        #expect(received.status == 0, "\(stderr)")
        let stats = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any], "\(stderr)")
        let decoded = try #require(stats["framesDecoded"] as? Int)
        let changes = try #require(stats["resolutionChanges"] as? Int)
        #expect(changes >= 1, "the sender did not switch resolution")
        let (width, height) = outputSize == nil ? (640, 360) : (320, 240)
        let reports = stderr.split(separator: "\n").filter { $0.hasPrefix("receive: the stream ") }
        #expect(reports.count == 1, "\(stderr)")
        if outputSize == nil {
            #expect(reports.first?.contains("changed to ") == true, "\(stderr)")
        } else {
            #expect(reports.first == "receive: the stream is 640x360; scaling to 320x240 for the Y4M output", "\(stderr)")
        }
        #expect(reports.first?.hasSuffix("scaling to \(width)x\(height) for the Y4M output") == true, "\(stderr)")
        let reader = try Y4MReader(path: output)
        #expect(reader.header.width == width && reader.header.height == height)
        var frames = 0
        while let frame = try reader.readFrame() {
            #expect(frame.width == width && frame.height == height)
            frames += 1
        }
        #expect(frames == decoded && decoded > 0, "\(frames) frames written, \(decoded) decoded")
    }
}
