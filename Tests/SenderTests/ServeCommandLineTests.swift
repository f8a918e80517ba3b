import Foundation
import Testing
import TestSupport

/// `rtc-h264 serve --whep`: refusals with a clear message, and a real run on loopback (page, 404, stats, SIGINT).
@Suite(.serialized) struct ServeCommandLineTests {
    @Test(arguments: [
        (["--whep", "10.20.30.40:8080"], "reachable beyond this machine: give it a token (--token or --token-file)"),
        (["--whep", "0.0.0.0:8080", "--token", "abc"], "give the address browsers reach the viewers' sockets at (--advertise)"),
        (["--whep", "127.0.0.1:8080", "--max-viewers", "0"], "--max-viewers must be 1-1000"),
        (["--whep", "127.0.0.1:8080", "--connect-timeout", "nan"], "--connect-timeout must be 1-300 seconds"),
        (["--whep", "127.0.0.1:8080", "--connect-timeout", "1e300"], "--connect-timeout must be 1-300 seconds"),
        (["--whep", "127.0.0.1:8080", "--token", "a", "--token-file", "f"], "give --token or --token-file, not both"),
        (["--whep", "127.0.0.1:8080", "--allow-origin", "a b"], "--allow-origin must be * or an origin"),
        (["--whep", "127.0.0.1:8080", "--token", "has space"], "the WHEP token must be 1-1024 bytes of visible ASCII"),
        (["--whep", "127.0.0.1:8080", "--duration=-1"], "--duration must be more than 0"),
        (["--whep", "127.0.0.1:8080", "--duration", "1e300"], "--duration must be more than 0"),
        (["--whep", "nonsense"], "--whep"),
        (["--whep", "127.0.0.1:8080", "--mtu", "100"], "--mtu must be between 200 and 65000"),
        (["--whep", "127.0.0.1:8080", "--keyframe-throttle", "3600001"], "--keyframe-throttle must be 0-3600000 ms"),
        (["--whep", "127.0.0.1:8080", "--min-bitrate", "fast"], "The value 'fast' is invalid for '--min-bitrate"),
        (["--whep", "127.0.0.1:8080", "--degradation-preference", "fastest"],
         "The value 'fastest' is invalid for '--degradation-preference"),
        (["--whep", "127.0.0.1:8080", "--control", "10.20.30.40:8090"],
         "the control endpoint on 10.20.30.40 is reachable beyond this machine: give it a token (--control-token or --control-token-file)"),
        (["--whep", "127.0.0.1:8080", "--control-token", "abc"], "--control-token needs --control"),
        (["--whep", "127.0.0.1:8080", "--control", "8090", "--control-token", "a", "--control-token-file", "f"],
         "give --control-token or --control-token-file, not both"),
        (["--whep", "127.0.0.1:8080", "--control", "8090", "--control-token-file", "/nonexistent/token"],
         "cannot read --control-token-file /nonexistent/token"),
        (["--whep", "127.0.0.1:8080", "--ice-server", "stuns:stun.example.net"],
         "--ice-server stuns:stun.example.net: STUN over TLS (stuns:) is not supported: use stun:"),
        (["--whep", "127.0.0.1:8080", "--ice-server", "turn:turn.example.net"],
         "a turn: server needs --ice-username and --ice-credential (or --ice-credential-file)"),
        (["--whep", "127.0.0.1:8080", "--ice-server", "stun:127.0.0.1", "--ice-username", "robot"],
         "--ice-username and --ice-credential are for turn: and turns: servers, and no --ice-server is one"),
        (["--whep", "127.0.0.1:8080", "--ice-server", "stun:127.0.0.1", "--ca-file", "ca.pem"],
         "--ca-file is for turns: --ice-server(s), and none is given"),
        (["--whep", "127.0.0.1:8080", "--ice-server", "stun:127.0.0.1", "--ice-gathering-timeout", "0"],
         "--ice-gathering-timeout must be 0.1-10 seconds"),
        (["--whep", "127.0.0.1:8080", "--ice-server", "stun:127.0.0.1", "--ice-gathering-timeout", "30"],
         "--ice-gathering-timeout must be 0.1-10 seconds"),
        (["--whep", "[::1]:8080", "--ice-server", "stun:127.0.0.1"],
         "ICE servers are IPv4 only: bind --whep to an IPv4 address to use them"),
    ])
    func badOptionsAreRefusedWithAClearMessage(arguments: [String], message: String) async throws {
        let run = try await CommandLineTests.run(["serve"] + arguments)
        #expect(run.status != 0)
        #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
    }

    @Test(.timeLimit(.minutes(1)))
    func servesThePageAndStopsOnSIGINTWithFinalStatistics() async throws {
        let dir = try CommandLineTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stats = dir.appendingPathComponent("stats.jsonl").path
        let port = TestPorts.reserve()
        let process = try CommandLineTests.start([
            "serve", "--whep", "127.0.0.1:\(port)", "--size", "320x240", "--stats", stats, "--frames", "20",
        ])
        defer { process.terminate() }
        var page: String?
        for _ in 0..<100 where page == nil {
            try await Task.sleep(for: .milliseconds(100))
            page = try? await Self.get("http://127.0.0.1:\(port)/")
        }
        #expect(page?.contains("RTCPeerConnection") == true, "serve did not serve its page on port \(port)")
        try await Task.sleep(for: .milliseconds(1500))
        process.interrupt()
        let served = await process.finished()
        let stderr = served.stderr
        #expect(served.status == 0, "\(stderr)")
        #expect(stderr.contains("WHEP endpoint on http://127.0.0.1:\(port)/whep"))
        #expect(stderr.contains("source done after 20 frames"))
        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        let last = try #require(lines.last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect(object["framesEncoded"] as? Int == 20)
        #expect(object["viewers"] as? Int == 0)
        #expect(object["appliedBitrate"] as? Int == 1_500_000)
        #expect(object["operatorBitrate"] as? Int == 1_500_000)
        // Issue 20, item 8: the file holds viewer session ids (enough to DELETE a viewer): its owner's only.
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: stats)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "a --stats file is created \(String(mode, radix: 8))")
    }

    @Test(.timeLimit(.minutes(1)))
    func theControlEndpointSetsTheOperatorsBitrateAndAnswersStats() async throws {
        let dir = try CommandLineTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stats = dir.appendingPathComponent("stats.jsonl").path
        let port = TestPorts.reserve()
        let controlPort = port + 1
        let process = try CommandLineTests.start([
            "serve", "--whep", "127.0.0.1:\(port)", "--control", "127.0.0.1:\(controlPort)", "--size", "320x240",
            "--stats", stats,
        ])
        defer { process.terminate() }
        var page: String?
        for _ in 0..<100 where page == nil {
            try await Task.sleep(for: .milliseconds(100))
            page = try? await Self.get("http://127.0.0.1:\(port)/")
        }
        #expect(page != nil, "serve did not serve its page on port \(port)")
        let bitrate = try await Self.control(["--to", "127.0.0.1:\(controlPort)", "bitrate", "800k"])
        #expect(bitrate.status == 0, "\(bitrate)")
        #expect(bitrate.stdout.contains("\"targetBitrate\":800000"), "\(bitrate.stdout)")
        #expect(bitrate.stdout.contains("\"maxBitrate\":1200000"), "\(bitrate.stdout)")
        let statsReply = try await Self.control(["--to", "127.0.0.1:\(controlPort)", "stats"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(statsReply.stdout.utf8)) as? [String: Any])
        #expect(object["operatorBitrate"] as? Int == 800_000)
        #expect(object["appliedBitrate"] as? Int == 800_000)
        #expect(object["viewers"] as? Int == 0)
        // No viewer: a keyframe cannot reach anyone, and the reply says so (exit status 1).
        let keyframe = try await Self.control(["--to", "127.0.0.1:\(controlPort)", "keyframe"])
        #expect(keyframe.status == 1)
        #expect(keyframe.stdout.contains("no viewer is watching"), "\(keyframe.stdout)")
        let tooHigh = try await Self.control(["--to", "127.0.0.1:\(controlPort)", "bitrate", "900M"])
        #expect(tooHigh.status == 1)
        #expect(tooHigh.stdout.contains("above the limit"), "\(tooHigh.stdout)")
        try await Task.sleep(for: .milliseconds(1200))
        process.interrupt()
        let served = await process.finished()
        let stderr = served.stderr
        #expect(served.status == 0, "\(stderr)")
        #expect(stderr.contains("control endpoint on http://127.0.0.1:\(controlPort)"))
        let last = try #require(try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n").last)
        let final = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect(final["appliedBitrate"] as? Int == 800_000)
        #expect(final["operatorBitrate"] as? Int == 800_000)
    }

    /// `rtc-h264 control ...`.
    static func control(_ arguments: [String]) async throws -> ChildProcess.Output {
        try await CommandLineTests.run(["control"] + arguments)
    }

    /// A GET with curl (Tests/install-deps.sh installs it); throws unless a 2xx reply came within 2 s.
    static func get(_ url: String) async throws -> String {
        let reply = try await Curl.request(url, caFile: nil, maximumSeconds: 2)
        guard reply.exitCode == 0, (200..<300).contains(reply.status) else { throw CocoaError(.fileReadUnknown) }
        return reply.body
    }
}
