import Testing
import HTTPRequester

/// The HTTP clients' URL parser and RFC 3986 section 5 resolution of `Location` headers.
@Suite struct HTTPURLTests {
    @Test func parsesEndpoints() throws {
        let plain = try HTTPURL(parsing: "http://127.0.0.1:8080/whip/endpoint?room=1#frag")
        #expect(plain.host == "127.0.0.1")
        #expect(plain.port == 8080)
        #expect(plain.requestTarget == "/whip/endpoint?room=1")
        #expect(plain.authority == "127.0.0.1:8080")
        let defaults = try HTTPURL(parsing: "HTTP://SFU.Example")
        #expect(defaults.host == "sfu.example")
        #expect(defaults.port == 80)
        #expect(defaults.requestTarget == "/")
        #expect(defaults.authority == "sfu.example")
        let v6 = try HTTPURL(parsing: "http://[::1]:7080/whip")
        #expect(v6.host == "::1")
        #expect(v6.authority == "[::1]:7080")
        #expect(v6.description == "http://[::1]:7080/whip")
        let secure = try HTTPURL(parsing: "HTTPS://SFU.Example/whip")
        #expect(secure.isHTTPS)
        #expect(secure.port == 443)
        #expect(secure.authority == "sfu.example")
        #expect(secure.description == "https://sfu.example/whip")
        let secureOn80 = try HTTPURL(parsing: "https://sfu.example:80/whip")
        #expect(secureOn80.authority == "sfu.example:80")
        #expect(secureOn80.origin != (try HTTPURL(parsing: "http://sfu.example:80/whip")).origin)
    }

    @Test(arguments: [
        ("localhost", true), ("127.0.0.1", true), ("127.255.1.2", true), ("::1", true),
        ("127.example.com", false), ("127.0.0.1.nip.io", false), ("127.0.0", false), ("128.0.0.1", false),
        ("sfu.example", false), ("10.0.0.1", false),
    ])
    func loopbackIsOnlyLoopbackLiteralsAndLocalhost(host: String, loopback: Bool) throws {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        #expect(try HTTPURL(parsing: "http://\(bracketed)/whip").isLoopback == loopback)
    }

    @Test(arguments: [
        ("ftp://sfu.example/whip", "unsupported"),
        ("wss://sfu.example/whip", "unsupported"),
        ("", "invalid"),
        ("sfu.example/whip", "invalid"),
        ("http:/sfu.example", "invalid"),
        ("http://", "invalid"),
        ("http://sfu.example:0/whip", "invalid"),
        ("http://sfu.example:65536/whip", "invalid"),
        ("http://sfu.example:80a/whip", "invalid"),
        ("http://user:secret@sfu.example/whip", "invalid"),
        ("http://[::1/whip", "invalid"),
        ("http://sfu example/whip", "invalid"),
        ("http://sfu.example/wh\u{7}ip", "invalid"),
        ("http://sfü.example/whip", "invalid"),
    ])
    func refusesBadURLs(text: String, kind: String) {
        do {
            _ = try HTTPURL(parsing: text)
            Issue.record("accepted \(text)")
        } catch {
            switch (error, kind) {
            case (.unsupportedScheme, "unsupported"), (.invalid, "invalid"): break
            default: Issue.record("\(text): \(error), expected \(kind)")
            }
        }
    }

    @Test(arguments: [
        ("resource/abc", "http://sfu.example:8080/whip/endpoint/resource/abc"),
        ("/sessions/1", "http://sfu.example:8080/sessions/1"),
        ("../sessions/1?x=2", "http://sfu.example:8080/whip/sessions/1?x=2"),
        ("./a/./b/../c", "http://sfu.example:8080/whip/endpoint/a/c"),
        ("../../../../up", "http://sfu.example:8080/up"),
        ("?id=9", "http://sfu.example:8080/whip/endpoint/room?id=9"),
        ("http://other.example:9000/r/1", "http://other.example:9000/r/1"),
        ("//other.example/r/2", "http://other.example/r/2"),
        ("https://sfu.example/r/3", "https://sfu.example/r/3"),
        ("  /padded  ", "http://sfu.example:8080/padded"),
    ])
    func resolvesLocations(reference: String, expected: String) throws {
        let base = try HTTPURL(parsing: "http://sfu.example:8080/whip/endpoint/room?key=1")
        #expect(try base.resolving(reference).description == expected)
    }

    @Test func refusesUnusableLocations() throws {
        let base = try HTTPURL(parsing: "http://sfu.example/whip")
        #expect(throws: HTTPURLError.unusableReference("empty")) { try base.resolving("") }
        #expect(throws: HTTPURLError.unsupportedScheme("ftp")) { try base.resolving("ftp://sfu.example/r") }
        #expect(throws: HTTPURLError.unusableReference("invalid URL: unclosed IPv6 literal in '//[::1/r'")) {
            try base.resolving("//[::1/r")
        }
        #expect(throws: HTTPURLError.self) { try base.resolving("http://[::1/r") }
        #expect(throws: HTTPURLError.self) { try base.resolving("/a b") }
    }
}
