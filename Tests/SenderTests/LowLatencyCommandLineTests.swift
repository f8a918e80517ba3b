import Foundation
import SDP
import Testing
import TestSupport

/// Issue 25, items 1 and 2 on the command line: `--abs-capture-time ID` and `--playout-delay MIN-MAX` from `sdp` and
/// `send` to `receive`, which reports capture -> decoded times and the delay asked for; bad values are usage errors.
@Suite(.serialized) struct LowLatencyCommandLineTests {
    /// `send` -> `receive` over loopback on one machine (one wall clock): every frame decoded, each with a capture ->
    /// decoded time above zero (encoding, sending and decoding take time) and well under a second, and the 0-0 delay
    /// received as sent.
    @Test(.timeLimit(.minutes(1)))
    func sendToReceiveReportsCaptureToDecodedAndThePlayoutDelay() async throws {
        let dir = try CommandLineTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.reserve()
        let flags = ["--to", "127.0.0.1:\(port)", "--no-srtp", "--size", "320x240", "--transport-cc", "5",
                     "--abs-capture-time", "3", "--playout-delay", "0-0"]
        let sdpRun = try await CommandLineTests.run(["sdp"] + flags)
        #expect(sdpRun.status == 0, "\(sdpRun.stderr)")
        let description = try SessionDescription(parsing: sdpRun.stdout)
        #expect(description.transportWideCCExtensionID == 5)
        #expect(description.absoluteCaptureTimeExtensionID == 3)
        #expect(description.playoutDelayExtensionID == 1, "5 is taken: the first free ID")
        let sdp = dir.appendingPathComponent("stream.sdp").path
        try sdpRun.stdout.write(toFile: sdp, atomically: true, encoding: .utf8)

        let receiver = try CommandLineTests.start(["receive", "--listen", "127.0.0.1:\(port)", "--sdp", sdp, "--json"])
        defer { receiver.terminate() }
        try await Task.sleep(for: .milliseconds(500))
        let send = try await CommandLineTests.run(["send"] + flags + ["--frames", "60"])
        #expect(send.status == 0, "\(send.stderr)")
        let output = await receiver.finished()  // ends on the sender's BYE
        // Its status and standard error when it printed no JSON (it failed once in a loaded full run).
        try #require(
            !output.standardOutput.isEmpty, "receive printed nothing: status \(output.status), \(output.stderr)")
        let stats = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
        #expect(stats["framesDecoded"] as? Int == 60)
        let latency = try #require(stats["captureToDecoded"] as? [String: Any], "\(stats)")
        #expect(latency["frames"] as? Int == 60)
        let p50 = try #require(latency["p50"] as? Double)
        let p95 = try #require(latency["p95"] as? Double)
        let max = try #require(latency["max"] as? Double)
        #expect(p50 > 0 && p50 <= p95 && p95 <= max && max < 1000, "\(latency)")
        let delay = try #require(stats["playoutDelay"] as? [String: Any], "\(stats)")
        #expect(delay["minimumMilliseconds"] as? Int == 0 && delay["maximumMilliseconds"] as? Int == 0)
    }

    /// Without the extensions the receiver reports neither.
    @Test func theSDPWithoutTheFlagsHasNoExtension() async throws {
        let sdpRun = try await CommandLineTests.run(["sdp", "--to", "127.0.0.1:5004", "--no-srtp", "--size", "320x240"])
        #expect(sdpRun.status == 0, "\(sdpRun.stderr)")
        #expect(!sdpRun.stdout.contains("abs-capture-time") && !sdpRun.stdout.contains("playout-delay"))
        let description = try SessionDescription(parsing: sdpRun.stdout)
        #expect(description.absoluteCaptureTimeExtensionID == nil && description.playoutDelayExtensionID == nil)
    }

    static let badFlags: [([String], String)] = [
        (["--playout-delay", "0-40960"], "--playout-delay 0-40960 is not MIN-MAX milliseconds within 0-40950, MIN <= MAX"),
        (["--playout-delay", "200-100"], "--playout-delay 200-100 is not MIN-MAX milliseconds within 0-40950"),
        (["--playout-delay", "fast"], "--playout-delay fast is not MIN-MAX milliseconds"),
        (["--playout-delay", "100"], "--playout-delay 100 is not MIN-MAX milliseconds"),
        (["--playout-delay=-10-20"], "--playout-delay -10-20 is not MIN-MAX milliseconds"),
        (["--playout-delay", "99999999999999999999-1"], "--playout-delay 99999999999999999999-1 is not MIN-MAX"),
        (["--playout-delay", "1-2-3"], "--playout-delay 1-2-3 is not MIN-MAX"),
        (["--abs-capture-time", "15"], "--abs-capture-time must be a header extension ID of 1-14"),
        (["--abs-capture-time", "0"], "--abs-capture-time must be a header extension ID of 1-14"),
        (["--abs-capture-time", "300"], "The value '300' is invalid for '--abs-capture-time <id>'"),
        (["--abs-capture-time", "3", "--transport-cc", "3"],
         "--abs-capture-time and --transport-cc cannot share header extension ID 3"),
    ]

    /// Each bad value is a usage error naming the flag, before anything starts, for `send` and `sdp`.
    @Test(arguments: badFlags)
    func badFlagsAreUsageErrorsNamingTheFlag(flags: [String], message: String) async throws {
        for command in ["send", "sdp"] {
            let result = try await CommandLineTests.run([command, "--to", "127.0.0.1:5004", "--no-srtp"] + flags)
            #expect(result.reason == .exit, "\(flags) ended by a signal: \(result.status)")
            #expect(result.status == 64, "\(command) \(flags): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(command) \(flags): \(result.stderr)")
        }
    }

    /// `serve` shares `--playout-delay` (SenderPolicyOptions) and refuses the same values alike.
    @Test func serveRefusesABadPlayoutDelay() async throws {
        let result = try await CommandLineTests.run(["serve", "--whep", "127.0.0.1:0", "--pattern", "--playout-delay", "50-10"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--playout-delay 50-10 is not MIN-MAX milliseconds"), "\(result.stderr)")
    }

    /// `--help` of every command that sends lists the knobs.
    @Test(arguments: ["send", "serve"])
    func helpListsThePlayoutDelay(command: String) async throws {
        let help = try await CommandLineTests.run([command, "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--playout-delay <min-max>"))
        if command == "send" { #expect(help.stdout.contains("--abs-capture-time <id>")) }
    }
}
