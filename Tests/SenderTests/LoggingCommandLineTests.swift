import Foundation
import Testing
import TestSupport

/// `--log-level` and `--log-format` as a user meets them: every log line of an end-to-end run (a sender with SRTP
/// and a control endpoint with a token, its receiver, and a WHEP server with a token) is a JSON object naming its
/// level, logger and message, the lifecycle lines are there, and no line holds a key or a token.
@Suite(.serialized) struct LoggingCommandLineTests {
    /// The JSON log lines of `stderr` (other lines, the tool's own messages, are skipped), each checked to be an
    /// object with the fields every entry has.
    static func logEntries(_ stderr: String) throws -> [[String: Any]] {
        try stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            for field in ["time", "level", "logger", "message", "source"] {
                #expect(object[field] is String, "a log line without \(field): \(line)")
            }
            return object
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aSendersJSONLogNamesItsLifecycleAndNeverItsKeyOrToken() async throws {
        let dir = try CommandLineTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.reserve()
        let controlPort = TestPorts.reserve()
        let key = Data((0..<30).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 5) }).base64EncodedString()
        let token = "log-t0ken-\(UInt32.random(in: 1...UInt32.max))"
        let tokenFile = dir.appendingPathComponent("control.token").path
        try token.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let receiver = try CommandLineTests.start([
            "receive", "--listen", "127.0.0.1:\(port)", "--key", key, "--log-level", "trace", "--log-format", "json",
        ])
        defer { receiver.terminate() }
        try await Task.sleep(for: .milliseconds(300))
        let sender = try CommandLineTests.start([
            "send", "--to", "127.0.0.1:\(port)", "--key", key, "--size", "320x240", "--quiet",
            "--control", "127.0.0.1:\(controlPort)", "--control-token-file", tokenFile,
            "--log-level", "trace", "--log-format", "json",
        ])
        defer { sender.terminate() }
        var applied: Curl.Result?
        for _ in 0..<50 where applied?.status != 200 {
            try await Task.sleep(for: .milliseconds(100))
            applied = try await Curl.request(
                "http://127.0.0.1:\(controlPort)/bitrate", caFile: nil, method: "POST",
                headers: ["Authorization": "Bearer \(token)"], body: "600k", maximumSeconds: 2)
        }
        #expect(applied?.status == 200, "the control endpoint did not take the bitrate: \(String(describing: applied))")
        let refused = try await Curl.request(
            "http://127.0.0.1:\(controlPort)/stats?secret=\(token)", caFile: nil,
            headers: ["Authorization": "Bearer wrong-\(token)"], maximumSeconds: 2)
        #expect(refused.status == 401)
        sender.interrupt()  // a graceful shutdown: the sender's BYE ends the receiver
        let sent = await sender.finished()
        #expect(sent.status == 0, "\(sent.stderr)")
        let received = await receiver.finished()

        let entries = try Self.logEntries(sent.stderr)
        let messages = entries.compactMap { $0["message"] as? String }
        for expected in ["sender started", "control endpoint listening", "control command bitrate", "request refused",
                         "stream ended"] {
            #expect(messages.contains(expected), "no \"\(expected)\" in the sender's log: \(messages)")
        }
        let refusal = try #require(entries.first { $0["message"] as? String == "request refused" })
        #expect(refusal["status"] as? String == "401")
        #expect(refusal["path"] as? String == "/stats", "the query stays out of the log: \(refusal)")
        let bitrate = try #require(entries.first { $0["message"] as? String == "control command bitrate" })
        #expect(bitrate["bitrate_bps"] as? String == "600000")
        #expect(entries.contains { $0["level"] as? String == "debug" }, "trace level lets the rate decisions through")
        for (name, output) in [("sender", sent.stderr + sent.stdout), ("receiver", received.stderr + received.stdout)] {
            #expect(!output.contains(key), "the \(name)'s output holds the SRTP key")
            #expect(!output.contains(token), "the \(name)'s output holds the control token")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aWHEPServersLogNamesRefusalsAndNeverItsToken() async throws {
        let dir = try CommandLineTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (server, port, token, _) = try await CommandLineTests.startServe(
            in: dir, extra: ["--log-level", "debug", "--log-format", "json"])
        defer { server.terminate() }
        let wrongToken = try await Curl.request(
            "http://127.0.0.1:\(port)/whep", caFile: nil, method: "POST",
            headers: ["Authorization": "Bearer x\(token)", "Content-Type": "application/sdp"], body: "v=0\r\n",
            maximumSeconds: 2)
        #expect(wrongToken.status == 401)
        let badOffer = try await Curl.request(
            "http://127.0.0.1:\(port)/whep", caFile: nil, method: "POST",
            headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/sdp"], body: "v=0\r\n",
            maximumSeconds: 2)
        #expect(badOffer.status == 400)
        server.interrupt()
        let served = await server.finished()
        #expect(served.status == 0, "\(served.stderr)")
        let entries = try Self.logEntries(served.stderr)
        let messages = entries.compactMap { $0["message"] as? String }
        for expected in ["WHEP server listening", "request refused", "offer refused: bad SDP", "WHEP server finished"] {
            #expect(messages.contains(expected), "no \"\(expected)\" in the server's log: \(messages)")
        }
        let statuses = Set(entries.filter { $0["message"] as? String == "request refused" }.compactMap { $0["status"] as? String })
        #expect(statuses == ["401", "400"], "\(statuses)")
        #expect(!served.stderr.contains(token) && !served.stdout.contains(token), "the server's output holds its token")
    }

    @Test func badLoggingValuesAreUsageErrors() async throws {
        let level = try await CommandLineTests.run(["send", "--to", "127.0.0.1:5004", "--log-level", "verbose"])
        #expect(level.status != 0)
        #expect(level.stderr.contains("The value 'verbose' is invalid for '--log-level"), "\(level.stderr)")
        let format = try await CommandLineTests.run(["serve", "--whep", "127.0.0.1:8080", "--log-format", "xml"])
        #expect(format.status != 0)
        #expect(format.stderr.contains("The value 'xml' is invalid for '--log-format"), "\(format.stderr)")
    }

    @Test func theDefaultLogLevelAddsNothingToAQuietRun() async throws {
        let run = try await CommandLineTests.run([
            "send", "--to", "127.0.0.1:\(CommandLineTests.nobodyListens)", "--no-srtp", "--size", "160x96",
            "--frames", "5", "--quiet", "--as-fast-as-possible",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.logEntries(run.stderr).isEmpty)
        #expect(!run.stderr.contains(" info "), "an info line at the default level (warning): \(run.stderr)")
    }
}
