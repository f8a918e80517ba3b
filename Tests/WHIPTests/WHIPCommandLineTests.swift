import Foundation
import Testing
import TestSupport

/// `rtc-h264 send --whip` as a user meets it: a real process, its options checked before anything starts, and the
/// errors of a refused token or an unreachable endpoint (against a real HTTP server on loopback).
@Suite(.serialized) struct WHIPCommandLineTests {
    /// A real `rtc-h264` process (TestSupport's `RTCH264Tool`).
    static func run(_ arguments: [String]) async throws -> ChildProcess.Output { try await RTCH264Tool.run(arguments) }

    @Test(arguments: [
        (["send", "--whip", "http://127.0.0.1:9/whip", "--to", "127.0.0.1:5004"], "--whip cannot be used with --to"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--no-srtp", "--no-rtcp-mux", "--local-port", "5000"],
         "--whip cannot be used with --no-srtp, --no-rtcp-mux, --local-port"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--key", "AAAA", "--sdp", "/tmp/x.sdp"],
         "--whip cannot be used with --key, --sdp"),
        (["send", "--whip", "ftp://sfu.example/whip"], "scheme 'ftp' is not supported: only http:// and https://"),
        (["send", "--whip", "http://sfu.example/whip", "--token", "abc"], "refusing to send the bearer token in clear"),
        (["send", "--whip", "http://sfu.example/whip", "--token-file", "/nonexistent"], "use an https:// URL"),
        (["send", "--to", "127.0.0.1:5004", "--ca-file", "/tmp/ca.pem"], "--ca-file needs --whip"),
        (["send", "--whip", "http://user:pw@sfu.example/whip"], "user information in a URL is not supported"),
        (["send", "--whip", "http://sfu.example:70000/whip"], "port '70000' must be 1-65535"),
        (["send", "--whip", "https://sfu.example/whip", "--token", "a", "--token-file", "/tmp/t"],
         "give --token or --token-file, not both"),
        (["send", "--to", "127.0.0.1:5004", "--token", "abc"], "--token needs --whip"),
        (["send", "--frames", "3"], "--to HOST:PORT is required"),
        (["sdp", "--no-srtp"], "--to HOST:PORT is required"),
        (["send", "--whip", "http://[::1]:9/whip", "--frames", "3"], "only IPv4 is supported, and the route to it is ::1"),
    ])
    func badWHIPArgumentsAreClearErrors(arguments: [String], message: String) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    }

    @Test func helpDocumentsWHIP() async throws {
        let help = try await Self.run(["send", "--help"])
        #expect(help.status == 0)
        for option in ["--whip <whip>", "--token <token>", "--token-file <token-file>", "--ca-file <ca-file>"] {
            #expect(help.stdout.contains(option), "send --help lacks \(option)")
        }
        #expect(help.stdout.contains("RFC 9725"))
        #expect(help.stdout.contains("https://"))
    }

    @Test func aRefusedTokenEndsSendWithTheStatusAndWithoutTheToken() async throws {
        let server = try await ScriptedHTTPServer { _ in .init(status: 401, body: "token rejected") }
        let result = try await Self.run(
            ["send", "--whip", server.base + "/whip", "--token", "cli-s3cret", "--frames", "3", "--size", "320x240"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("refused the credentials (HTTP 401): token rejected"), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("cli-s3cret"))
        #expect(!result.stdout.contains("cli-s3cret"))
        #expect(server.requests.count == 1)
        await server.close()
    }

    @Test func anUnreachableEndpointIsNamed() async throws {
        let closed = try await ScriptedHTTPServer { _ in .init(status: 500) }
        let url = closed.base + "/whip"
        await closed.close()
        let result = try await Self.run(["send", "--whip", url, "--frames", "3", "--size", "320x240"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot reach the WHIP endpoint \(url)"), "stderr: \(result.stderr)")
    }
}
