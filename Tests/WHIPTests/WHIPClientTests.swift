import NIOCore
import NIOPosix
import Testing
import TestSupport
import WebRTC
@testable import WHIP

/// The WHIP client's HTTP side against a real HTTP server on loopback: the POST it sends, 201 + Location + answer,
/// 307/308 redirects, the errors for 401/403, other statuses, bad answers, timeouts, and the DELETE.
@Suite struct WHIPClientTests {
    static let offer = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n"
    static let answer = "v=0\r\no=- 2 2 IN IP4 10.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n"
    static let token = "s3cr3t-token-value"

    static func created(location: String = "resource/1") -> ScriptedHTTPServer.Reply {
        .init(status: 201, headers: [("Content-Type", "application/sdp"), ("Location", location), ("ETag", "\"e1\"")],
              body: answer)
    }

    @Test func postsTheOfferAndDeletesTheResource() async throws {
        let server = try await ScriptedHTTPServer { request in
            request.method == "POST" ? Self.created() : .init(status: 204)
        }
        let client = try WHIPClient(configuration: WHIPConfiguration(url: server.base + "/whip/endpoint", token: Self.token))
        let session = try await client.publish(offer: Self.offer)
        #expect(session.answer == Self.answer)
        #expect(session.resourceURL == server.base + "/whip/resource/1")
        #expect(session.etag == "\"e1\"")
        try await client.terminate(session)
        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[0].method == "POST")
        #expect(requests[0].uri == "/whip/endpoint")
        #expect(requests[0].header("Content-Type") == "application/sdp")
        #expect(requests[0].header("Authorization") == "Bearer \(Self.token)")
        #expect(requests[0].header("Host") == "127.0.0.1:\(server.port)")
        #expect(requests[0].body == Self.offer)
        #expect(requests[1].method == "DELETE")
        #expect(requests[1].uri == "/whip/resource/1")
        #expect(requests[1].header("Authorization") == "Bearer \(Self.token)")
        await server.close()
    }

    @Test func followsTemporaryAndPermanentRedirects() async throws {
        let server = try await ScriptedHTTPServer { request in
            switch request.uri {
            case "/whip": .init(status: 307, headers: [("Location", "/balanced/whip")])
            case "/balanced/whip": .init(status: 308, headers: [("Location", "node2/ingest")])
            default: Self.created(location: "../sessions/7")
            }
        }
        let client = try WHIPClient(configuration: WHIPConfiguration(url: server.base + "/whip", token: Self.token))
        let session = try await client.publish(offer: Self.offer)
        // Resolved against the URL that answered 201, not the one first asked.
        #expect(session.resourceURL == server.base + "/balanced/sessions/7")
        let requests = server.requests
        #expect(requests.map(\.uri) == ["/whip", "/balanced/whip", "/balanced/node2/ingest"])
        #expect(requests.allSatisfy { $0.method == "POST" && $0.body == Self.offer })
        #expect(requests.allSatisfy { $0.header("Authorization") == "Bearer \(Self.token)" })
        await server.close()
    }

    @Test func boundsRedirects() async throws {
        let server = try await ScriptedHTTPServer { _ in .init(status: 307, headers: [("Location", "/again")]) }
        var configuration = WHIPConfiguration(url: server.base + "/whip")
        configuration.maximumRedirects = 3
        let client = try WHIPClient(configuration: configuration)
        await #expect(throws: WHIPError.tooManyRedirects(3)) { try await client.publish(offer: Self.offer) }
        #expect(server.requests.count == 4)
        await server.close()
    }

    @Test func aRedirectToAnotherOriginDoesNotCarryTheToken() async throws {
        let other = try await ScriptedHTTPServer { _ in Self.created(location: "/r/1") }
        let target = other.base
        let first = try await ScriptedHTTPServer { _ in .init(status: 307, headers: [("Location", target + "/whip")]) }
        let client = try WHIPClient(configuration: WHIPConfiguration(url: first.base + "/whip", token: Self.token))
        let session = try await client.publish(offer: Self.offer)
        #expect(session.resourceURL == other.base + "/r/1")
        #expect(first.requests.first?.header("Authorization") == "Bearer \(Self.token)")
        #expect(other.requests.first?.header("Authorization") == nil)
        await first.close()
        await other.close()
    }

    @Test(arguments: [401, 403])
    func authenticationFailuresAreTypedAndNeverShowTheToken(status: Int) async throws {
        // A careless endpoint echoes the token it refused: the error must not repeat it.
        let server = try await ScriptedHTTPServer { request in
            .init(status: status, headers: [("Content-Type", "text/plain")],
                  body: "invalid token '\(request.header("Authorization") ?? "")'\nplease retry")
        }
        let client = try WHIPClient(configuration: WHIPConfiguration(url: server.base + "/whip", token: Self.token))
        do {
            _ = try await client.publish(offer: Self.offer)
            Issue.record("a \(status) was accepted")
        } catch {
            guard case .authenticationFailed(let got, let excerpt) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(got == status)
            #expect(excerpt == "(the reply is not shown: it may hold the bearer token)")
            #expect(!excerpt.contains("\n"))
            #expect(!error.description.contains(Self.token))
            #expect(error.description.contains("HTTP \(status)"))
        }
        await server.close()
    }

    @Test func otherStatusesCarryTheStatusAndAShortExcerpt() async throws {
        let long = String(repeating: "overloaded ", count: 100)
        let server = try await ScriptedHTTPServer { _ in .init(status: 503, body: long) }
        let client = try WHIPClient(configuration: WHIPConfiguration(url: server.base + "/whip"))
        do {
            _ = try await client.publish(offer: Self.offer)
            Issue.record("a 503 was accepted")
        } catch {
            guard case .httpStatus(503, "POST", let excerpt) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(excerpt.hasPrefix("overloaded overloaded"))
            #expect(excerpt.count <= WHIPConfiguration.excerptLength + 30)
            #expect(error.description.contains("HTTP 503"))
        }
        await server.close()
    }

    @Test func badCreatedRepliesAreRefused() async throws {
        let cases: [(ScriptedHTTPServer.Reply, String)] = [
            (.init(status: 201, headers: [("Content-Type", "application/sdp")], body: Self.answer), "location"),
            (.init(status: 201, headers: [("Content-Type", "text/html"), ("Location", "/r")], body: Self.answer), "answer"),
            (.init(status: 201, headers: [("Content-Type", "application/sdp"), ("Location", "/r")], body: ""), "answer"),
            (.init(status: 201, headers: [("Content-Type", "application/sdp"), ("Location", "/r")], body: "<html>"), "answer"),
            (.init(status: 201, headers: [("Content-Type", "application/sdp"), ("Location", "ftp://x/r")], body: Self.answer), "scheme"),
            (.init(status: 200, headers: [("Content-Type", "application/sdp")], body: Self.answer), "status"),
            (.init(status: 307), "location"),
        ]
        for (reply, kind) in cases {
            let server = try await ScriptedHTTPServer { _ in reply }
            let client = try WHIPClient(configuration: WHIPConfiguration(url: server.base + "/whip"))
            do {
                _ = try await client.publish(offer: Self.offer)
                Issue.record("accepted \(reply.status) \(reply.headers)")
            } catch {
                switch (error, kind) {
                case (.badLocation, "location"), (.badAnswer, "answer"), (.unsupportedScheme, "scheme"),
                     (.httpStatus(200, "POST", _), "status"): break
                default: Issue.record("\(reply.status) \(reply.headers): \(error), expected \(kind)")
                }
            }
            await server.close()
        }
    }

    @Test func aReplyLargerThanTheLimitIsRefused() async throws {
        let server = try await ScriptedHTTPServer { _ in
            .init(status: 201, headers: [("Content-Type", "application/sdp"), ("Location", "/r")],
                  body: "v=0\r\n" + String(repeating: "a=x\r\n", count: 1000))
        }
        var configuration = WHIPConfiguration(url: server.base + "/whip")
        configuration.maximumResponseSize = 1024
        let client = try WHIPClient(configuration: configuration)
        await #expect(throws: WHIPError.responseTooLarge(limit: 1024)) { try await client.publish(offer: Self.offer) }
        await server.close()
    }

    @Test func aRefusedConnectionAndASilentServerAreTyped() async throws {
        let refusing = try RefusingTCPPort()
        defer { withExtendedLifetime(refusing) {} }  // held, refusing, until the end
        let port = refusing.port
        let refused = try WHIPClient(configuration: WHIPConfiguration(url: "http://127.0.0.1:\(port)/whip"))
        do {
            _ = try await refused.publish(offer: Self.offer)
            Issue.record("connected to a closed port")
        } catch {
            guard case .connectionFailed(let url, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(url == "http://127.0.0.1:\(port)/whip")
        }

        // A server that accepts and never answers.
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        var configuration = WHIPConfiguration(url: "http://127.0.0.1:\(silent.localAddress!.port!)/whip")
        configuration.requestTimeout = .milliseconds(300)
        let client = try WHIPClient(configuration: configuration)
        await #expect(throws: WHIPError.timedOut(url: configuration.url)) { try await client.publish(offer: Self.offer) }
        try await silent.close()
    }

    @Test func aFailedDeleteIsReported() async throws {
        let server = try await ScriptedHTTPServer { request in
            request.method == "POST" ? Self.created() : .init(status: 404, body: "no such session")
        }
        let client = try WHIPClient(configuration: WHIPConfiguration(url: server.base + "/whip"))
        let session = try await client.publish(offer: Self.offer)
        await #expect(throws: WHIPError.httpStatus(status: 404, method: "DELETE", excerpt: "no such session")) {
            try await client.terminate(session)
        }
        await server.close()
    }

    /// Issue 20, item 5: a reply that splits the token (a line break, spaces, a tab, an escape, a control character)
    /// or shows a part of it is not printed; a reply without it is.
    @Test func aTokenSplitOrCutInAReplyIsNeverShown() throws {
        let client = try WHIPClient(configuration: WHIPConfiguration(url: "http://127.0.0.1:9/whip", token: Self.token))
        let leaks = ["s3cr3t-t\noken-value", "s3cr3t-t\r\noken-value", "s 3 c r 3 t - t o k e n", "s3cr3t\t-token\u{1b}[0m-value",
                     "s3cr3t-\\token-value", String(repeating: "x", count: 195) + Self.token,
                     "...token-value"]
        for text in leaks {
            let excerpt = client.excerpt(Array(text.utf8))
            #expect(excerpt == "(the reply is not shown: it may hold the bearer token)", "\(text) -> \(excerpt)")
        }
        #expect(client.excerpt(Array("no such session\n".utf8)) == "no such session")
        #expect(client.excerpt(Array("a short tok".utf8)) == "a short tok")
    }

    /// Issue 20, item 6: a 200,000-character one-line reply is quoted as a bounded excerpt with controls escaped,
    /// and so is an SDP answer whose line is that long.
    @Test func peerTextInErrorsIsBoundedAndEscaped() throws {
        let client = try WHIPClient(configuration: WHIPConfiguration(url: "http://127.0.0.1:9/whip"))
        let long = String(repeating: "y", count: 200_000)
        let excerpt = client.excerpt(Array(("\u{1b}[31m" + long).utf8))
        #expect(excerpt.hasPrefix("\\x1B[31myyy"))
        #expect(excerpt.count < WHIPConfiguration.excerptLength + 40)
        let error = WHIPError.httpStatus(status: 500, method: "POST", excerpt: long)
        #expect(error.description.count < 3 * WHIPConfiguration.excerptLength)
        let badAnswer = WHIPError.badAnswer("\(JSEPError.malformedLine(number: 2, line: long, reason: "not <letter>=<value>"))")
        #expect(badAnswer.description.count < 4 * PeerText.maximumExcerptLength)
        do {
            _ = try JSEPSessionDescription(parsing: "v=0\r\n" + long + "\u{7}\r\n")
            Issue.record("a bad line was accepted")
        } catch {
            #expect("\(error)".count < 3 * PeerText.maximumExcerptLength)
            #expect("\(error)".contains("(200001 characters)"))
        }
        #expect(PeerText.excerpt("a\u{0}b\u{7f}c\u{202e}d") == "a\\x00b\\x7Fc\\u{202E}d")
    }
    @Test func readsTheICEServersOfTheCreatedReplysLinkHeaders() async throws {
        // RFC 9725 section 4.6: repeated Link fields, several links in one, other relations and a bad link among them.
        let server = try await ScriptedHTTPServer { _ in
            var reply = Self.created()
            reply.headers += [
                ("Link", "<stun:stun.example.net>; rel=\"ice-server\""),
                ("Link", "<https://sfu.example/help>; rel=\"help\", <turn:turn.example.net?transport=udp>; rel=\"ice-server\"; "
                    + "username=\"user\"; credential=\"myPassword\"; credential-type=\"password\""),
                ("link", "<turns:turn.example.net?transport=tcp>; rel=\"ice-server\"; username=\"user\"; credential=\"pw\", "
                    + "<turn:bad.example:0>; rel=\"ice-server\"; username=\"user\"; credential=\"myPassword\""),
            ]
            return reply
        }
        let client = try WHIPClient(configuration: WHIPConfiguration(url: server.base + "/whip"))
        let session = try await client.publish(offer: Self.offer)
        #expect(session.iceServers.map(\.uri) == [
            "stun:stun.example.net:3478", "turn:turn.example.net:3478?transport=udp", "turns:turn.example.net:5349?transport=tcp",
        ])
        #expect(session.iceServers.map(\.username) == [nil, "user", "user"])
        #expect(session.iceServers.map(\.credential) == [nil, "myPassword", "pw"])
        #expect(session.iceServers[1].transport == .udp && session.iceServers[2].scheme == .turns)
        #expect(session.iceServerProblems == ["ice-server link 4 skipped: the port is not in 1...65535"])
        #expect(session.iceServerLines.first == "the WHIP endpoint offers ICE servers: stun:stun.example.net:3478, "
            + "turn:turn.example.net:3478?transport=udp (user user, credential <redacted>), "
            + "turns:turn.example.net:5349?transport=tcp (user user, credential <redacted>)")
        for text in [String(describing: session), String(reflecting: session), session.iceServerLines.joined()] {
            #expect(!text.contains("myPassword"))
        }
        // Without Link headers: no servers, nothing printed.
        let plain = try await ScriptedHTTPServer { _ in Self.created() }
        let none = try await WHIPClient(configuration: WHIPConfiguration(url: plain.base + "/whip")).publish(offer: Self.offer)
        #expect(none.iceServers.isEmpty && none.iceServerProblems.isEmpty && none.iceServerLines.isEmpty)
        await server.close()
        await plain.close()
    }
}
