import Testing
import TestSupport
@testable import WHIP

/// The WHIP client over TLS (swift-nio-ssl) against a real HTTPS server on loopback, with the test-only
/// certificates of `TestTLSFiles`: a trusted chain works; an unknown issuer, a host name mismatch and an expired
/// certificate each fail with an error naming that cause; a token never goes in clear to a non-loopback host.
@Suite struct WHIPClientHTTPSTests {
    static let trusted = (certificate: TestTLSFiles.serverCertificate, key: TestTLSFiles.serverKey)

    static func client(_ url: String, caFile: String? = TestTLSFiles.caCertificate, token: String? = WHIPClientTests.token)
        throws(WHIPError) -> WHIPClient
    {
        var configuration = WHIPConfiguration(url: url, token: token)
        configuration.caFile = caFile
        configuration.requestTimeout = .seconds(5)
        return try WHIPClient(configuration: configuration)
    }

    @Test func aChainFromTheCAFilePublishesAndDeletesOverTLS() async throws {
        let server = try await ScriptedHTTPServer(tls: Self.trusted) { request in
            request.method == "POST" ? WHIPClientTests.created() : .init(status: 204)
        }
        #expect(server.base.hasPrefix("https://127.0.0.1:"))
        let client = try Self.client(server.base + "/whip/endpoint")
        let session = try await client.publish(offer: WHIPClientTests.offer)
        #expect(session.answer == WHIPClientTests.answer)
        #expect(session.resourceURL == server.base + "/whip/resource/1")
        try await client.terminate(session)
        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[0].header("Authorization") == "Bearer \(WHIPClientTests.token)")
        #expect(requests[0].body == WHIPClientTests.offer)
        #expect(requests[1].method == "DELETE")
        await server.close()
    }

    @Test func localhostIsVerifiedByNameWithSNI() async throws {
        let server = try await ScriptedHTTPServer(tls: Self.trusted) { _ in WHIPClientTests.created() }
        let client = try Self.client("https://localhost:\(server.port)/whip")
        let session = try await client.publish(offer: WHIPClientTests.offer)
        #expect(session.resourceURL == "https://localhost:\(server.port)/resource/1")
        await server.close()
    }

    @Test func withoutTheCAFileTheIssuerIsUnknown() async throws {
        let server = try await ScriptedHTTPServer(tls: Self.trusted) { _ in WHIPClientTests.created() }
        let client = try Self.client(server.base + "/whip", caFile: nil)
        do {
            _ = try await client.publish(offer: WHIPClientTests.offer)
            Issue.record("an unknown issuer was accepted")
        } catch {
            guard case .certificateUntrusted(_, let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("unknown issuer"), "\(error)")
            #expect("\(error)".contains("is not trusted"))
        }
        #expect(server.requests.isEmpty)
        await server.close()
    }

    @Test func aCertificateForAnotherHostIsAMismatch() async throws {
        let server = try await ScriptedHTTPServer(
            tls: (certificate: TestTLSFiles.otherHostCertificate, key: TestTLSFiles.otherHostKey)
        ) { _ in WHIPClientTests.created() }
        for host in ["127.0.0.1", "localhost"] {
            let client = try Self.client("https://\(host):\(server.port)/whip")
            await #expect(throws: WHIPError.certificateHostMismatch(url: "https://\(host):\(server.port)/whip", host: host)) {
                _ = try await client.publish(offer: WHIPClientTests.offer)
            }
        }
        #expect(WHIPError.certificateHostMismatch(url: "u", host: "h").description.contains("host name mismatch"))
        #expect(server.requests.isEmpty)
        await server.close()
    }

    @Test func anExpiredCertificateIsNamedExpired() async throws {
        let server = try await ScriptedHTTPServer(
            tls: (certificate: TestTLSFiles.expiredCertificate, key: TestTLSFiles.expiredKey)
        ) { _ in WHIPClientTests.created() }
        let client = try Self.client(server.base + "/whip")
        await #expect(throws: WHIPError.certificateExpired(url: server.base + "/whip", notAfter: "2020-01-02 00:00:00 UTC")) {
            _ = try await client.publish(offer: WHIPClientTests.offer)
        }
        #expect(WHIPError.certificateExpired(url: "u", notAfter: "t").description.contains("has expired"))
        #expect(server.requests.isEmpty)
        await server.close()
    }

    @Test func aRedirectFromHTTPToHTTPSIsFollowedWithoutTheToken() async throws {
        let secure = try await ScriptedHTTPServer(tls: Self.trusted) { _ in WHIPClientTests.created() }
        let plain = try await ScriptedHTTPServer { _ in .init(status: 307, headers: [("Location", secure.base + "/ingest")]) }
        let client = try Self.client(plain.base + "/whip")
        let session = try await client.publish(offer: WHIPClientTests.offer)
        #expect(session.resourceURL == secure.base + "/resource/1")
        #expect(plain.requests.first?.header("Authorization") == "Bearer \(WHIPClientTests.token)")  // loopback
        try #require(secure.requests.count == 1)
        // Another origin (scheme and port): the token stays behind, as curl does.
        #expect(secure.requests[0].header("Authorization") == nil)
        await plain.close()
        await secure.close()
    }

    @Test func aTokenIsNeverSentInClearToAHostThatIsNotLoopback() throws {
        // Refused when the client is made: nothing is resolved or connected.
        #expect(throws: WHIPError.tokenRequiresHTTPS(url: "http://sfu.example:8080/whip")) {
            _ = try Self.client("http://sfu.example:8080/whip")
        }
        #expect(throws: Never.self) { _ = try Self.client("http://sfu.example:8080/whip", token: nil) }
        #expect(throws: Never.self) { _ = try Self.client("https://sfu.example/whip") }
    }

    @Test func anUnreadableCAFileIsNamed() throws {
        #expect(throws: WHIPError.invalidCAFile(path: "/nonexistent/ca.pem", reason: "cannot read it (No such file or directory)")) {
            _ = try Self.client("https://sfu.example/whip", caFile: "/nonexistent/ca.pem")
        }
        // A file that is not PEM (the README next to the certificates).
        do {
            _ = try Self.client("https://sfu.example/whip", caFile: TestTLSFiles.directory + "/README.md")
            Issue.record("a file without a certificate was accepted")
        } catch {
            guard case .invalidCAFile = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func plainHTTPToAnHTTPSServerFailsAndHTTPSToAPlainServerNamesTLS() async throws {
        let plain = try await ScriptedHTTPServer { _ in WHIPClientTests.created() }
        let client = try Self.client("https://127.0.0.1:\(plain.port)/whip")
        do {
            _ = try await client.publish(offer: WHIPClientTests.offer)
            Issue.record("TLS to a plain HTTP server succeeded")
        } catch {
            guard case .tlsHandshakeFailed = error else { Issue.record("\(error)"); return }
        }
        await plain.close()
    }
}
