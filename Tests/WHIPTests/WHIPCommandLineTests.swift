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
        (["send", "--to", "127.0.0.1:5004", "--simulcast", "3"], "--simulcast needs --whip"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--simulcast", "4"], "--simulcast must be 2 or 3, got 4"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--simulcast", "1"], "--simulcast must be 2 or 3, got 1"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--simulcast", "3", "--fec"], "--simulcast cannot be used with --fec"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--simulcast", "3", "--size", "32x32", "--frames", "3"],
         "--simulcast 3: the smallest layer of 32x32 is under 16x16"),
        (["send", "--frames", "3"], "--to HOST:PORT is required"),
        (["sdp", "--no-srtp"], "--to HOST:PORT is required"),
        // IPv6 is spoken: nothing listens on [::1]:9, and the error says so with the bracketed URL.
        (["send", "--whip", "http://[::1]:9/whip", "--frames", "3"], "cannot reach the WHIP endpoint http://[::1]:9/whip"),
        // ICE servers (each message names the option and the URI; the credential never appears).
        (["send", "--to", "127.0.0.1:5004", "--ice-server", "stun:192.0.2.1"],
         "--ice-server, --ice-username, --ice-credential and --ice-credential-file need --whip"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--ice-server", "ftp:192.0.2.1"],
         "--ice-server ftp:192.0.2.1: the URI scheme 'ftp' is not stun, stuns, turn or turns"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--ice-server", "turn:192.0.2.1:99999", "--ice-username", "u",
          "--ice-credential", "cli-turn-s3cret"], "--ice-server turn:192.0.2.1:99999: the port is not in 1...65535"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--ice-server", "turn:192.0.2.1"],
         "--ice-server turn:192.0.2.1: a turn: server needs --ice-username and --ice-credential (or --ice-credential-file)"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--ice-server", "turns:192.0.2.1?transport=udp", "--ice-username", "u",
          "--ice-credential", "cli-turn-s3cret"],
         "--ice-server turns:192.0.2.1?transport=udp: TURN over DTLS (turns:...?transport=udp) is not supported"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--ice-server", "turns:192.0.2.1"],
         "--ice-server turns:192.0.2.1: a turns: server needs --ice-username and --ice-credential (or --ice-credential-file)"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--ice-server", "turn:[2001:db8::1]", "--ice-username", "u",
          "--ice-credential", "cli-turn-s3cret"], "IPv6 ICE servers are not supported yet"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--ice-server", "stun:192.0.2.1 extra"],
         "--ice-server stun:192.0.2.1 extra: the URI is malformed"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--ice-server", "turn:192.0.2.1", "--ice-username", "u",
          "--ice-credential", "cli-turn-s3cret", "--ice-credential-file", "/tmp/x"],
         "give --ice-credential or --ice-credential-file, not both"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--ice-server", "stun:192.0.2.1", "--ice-username", "u",
          "--ice-credential", "cli-turn-s3cret"], "--ice-username and --ice-credential are for turn: and turns: servers, and no --ice-server is one"),
        (["send", "--whip", "http://127.0.0.1:9/whip", "--ice-server", "turn:192.0.2.1", "--ice-username", "u",
          "--ice-credential-file", "/nonexistent/turn.password", "--frames", "3"],
         "cannot read --ice-credential-file /nonexistent/turn.password"),
    ])
    func badWHIPArgumentsAreClearErrors(arguments: [String], message: String) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("cli-turn-s3cret") && !result.stdout.contains("cli-turn-s3cret"))
    }

    @Test func helpDocumentsWHIP() async throws {
        let help = try await Self.run(["send", "--help"])
        #expect(help.status == 0)
        for option in ["--whip <whip>", "--token <token>", "--token-file <token-file>", "--ca-file <ca-file>",
                       "--ice-server <uri>", "--ice-username <ice-username>", "--ice-credential <ice-credential>",
                       "--ice-credential-file <ice-credential-file>"] {
            #expect(help.stdout.contains(option), "send --help lacks \(option)")
        }
        #expect(help.stdout.contains("RFC 9725"))
        #expect(help.stdout.contains("TURN over UDP, RFC 8656"))
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
