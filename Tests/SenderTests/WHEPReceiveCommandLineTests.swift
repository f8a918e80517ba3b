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
        let (server, port, token, tokenFile) = try await CommandLineTests.startServe(in: dir)
        defer { server.terminate() }
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
