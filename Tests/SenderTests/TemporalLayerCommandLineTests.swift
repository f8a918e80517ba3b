import Foundation
import SDP
import Testing
import TestSupport

/// Issue 23, item 1 on the command line: `--temporal-layers 3` puts the dependency descriptor in `sdp`'s description
/// and on `send`'s packets, and `receive` reads each frame's layer from it.
@Suite(.serialized) struct TemporalLayerCommandLineTests {
    /// `send --temporal-layers 3` -> `receive` over loopback: every frame decoded, the structure read (L1T3), the
    /// frames counted per layer in OpenH264's pattern (a quarter each in layers 0 and 1, half in layer 2), no
    /// descriptor refused, and the sender's statistics name the mode.
    @Test(.timeLimit(.minutes(1)))
    func sendToReceiveCarriesEachFramesLayer() async throws {
        let dir = try CommandLineTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.reserve()
        let flags = ["--to", "127.0.0.1:\(port)", "--no-srtp", "--size", "320x240", "--temporal-layers", "3"]
        let sdpRun = try await CommandLineTests.run(["sdp"] + flags)
        #expect(sdpRun.status == 0, "\(sdpRun.stderr)")
        let description = try SessionDescription(parsing: sdpRun.stdout)
        let id = try #require(description.dependencyDescriptorExtensionID, "\(sdpRun.stdout)")
        #expect(id == 6)
        let sdp = dir.appendingPathComponent("stream.sdp").path
        try sdpRun.stdout.write(toFile: sdp, atomically: true, encoding: .utf8)
        let statsFile = dir.appendingPathComponent("send.jsonl").path

        let receiver = try CommandLineTests.start(["receive", "--listen", "127.0.0.1:\(port)", "--sdp", sdp, "--json"])
        defer { receiver.terminate() }
        try await Task.sleep(for: .milliseconds(500))
        let send = try await CommandLineTests.run(["send"] + flags + ["--frames", "60", "--stats", statsFile])
        #expect(send.status == 0, "\(send.stderr)")
        let json = await receiver.finished().standardOutput  // ends on the sender's BYE
        let stats = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(stats["framesDecoded"] as? Int == 60)
        #expect(stats["scalabilityMode"] as? String == "L1T3", "\(stats)")
        #expect(stats["temporalLayerFrames"] as? [Int] == [15, 15, 30], "\(stats)")
        #expect(stats["dependencyDescriptorErrors"] as? Int == 0)
        let lines = try String(contentsOfFile: statsFile, encoding: .utf8).split(separator: "\n")
        let last = try #require(lines.last.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(last["scalabilityMode"] as? String == "L1T3")
    }

    /// Without temporal layers no descriptor is described or sent.
    @Test func oneLayerHasNoDescriptor() async throws {
        let sdpRun = try await CommandLineTests.run(["sdp", "--to", "127.0.0.1:5004", "--no-srtp", "--size", "320x240"])
        #expect(sdpRun.status == 0, "\(sdpRun.stderr)")
        #expect(try SessionDescription(parsing: sdpRun.stdout).dependencyDescriptorExtensionID == nil)
    }
}
