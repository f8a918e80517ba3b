import Foundation
import Testing
import TestSupport

/// `receive --whep` against `serve --whep`: two real processes, our WHEP client and server.
@Suite struct WHEPReceiveCommandLineTests {
    /// Two sessions play with a token that is never printed, each reporting its first frame; the JSON summary names
    /// both.
    @Test(.timeLimit(.minutes(1)))
    func twoSessionsPlayAndReportTheirFirstFrame() async throws {
        let dir = try CommandLineTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = Int.random(in: 45_000..<50_000)
        let token = "whep-t0ken-\(UInt32.random(in: 1...UInt32.max))"
        let tokenFile = dir.appendingPathComponent("whep.token").path
        try token.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let server = try CommandLineTests.start([
            "serve", "--whep", "127.0.0.1:\(port)", "--token-file", tokenFile, "--size", "320x240", "--quiet",
        ])
        defer { server.terminate() }
        var page: Curl.Result?
        for _ in 0..<50 where page?.status != 200 {
            try await Task.sleep(for: .milliseconds(100))
            page = try await Curl.request("http://127.0.0.1:\(port)/", caFile: nil, maximumSeconds: 2)
        }
        #expect(page?.status == 200)
        let played = try await CommandLineTests.run([
            "receive", "--whep", "http://127.0.0.1:\(port)/whep", "--token-file", tokenFile, "--sessions", "2",
            "--join-interval", "0.2", "--frames", "30", "--no-decode", "--json", "--log-level", "debug",
        ])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(!played.stderr.contains(token) && !played.stdout.contains(token), "the player's output holds its token")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(played.stdout.utf8)) as? [String: Any])
        #expect(report["playing"] as? Int == 2)
        #expect(report["failed"] as? Int == 0)
        let sessions = try #require(report["sessions"] as? [[String: Any]])
        #expect(sessions.count == 2)
        for session in sessions {
            let stats = try #require(session["stats"] as? [String: Any])
            #expect(stats["framesDecoded"] as? Int == 30)
            let first = try #require(session["firstFrameMs"] as? Double)
            #expect(first > 0 && first < 5000)
            #expect(session["error"] == nil)
        }
        // A wrong token is the endpoint's refusal, said as WHEP's.
        let refused = try await CommandLineTests.run([
            "receive", "--whep", "http://127.0.0.1:\(port)/whep", "--token", "x\(token)", "--frames", "5",
        ])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("the WHEP endpoint refused the credentials (HTTP 401)"), "\(refused.stderr)")
        #expect(!refused.stderr.contains(token))
        server.interrupt()
        #expect(await server.finished().status == 0)
    }
}
