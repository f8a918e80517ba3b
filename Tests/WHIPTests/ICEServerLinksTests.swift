import HTTPRequester
import Testing
@testable import WHIP
@testable import WebRTC

/// The `Link` header parser (RFC 8288) and the ICE servers read from it (RFC 9725 section 4.6, RFC 7064, RFC 7065):
/// literal header texts in, servers (canonical URIs, usernames, credentials) and explanations out.
@Suite struct ICEServerLinksTests {
    /// The three examples of RFC 9725 section 4.6, one field each.
    static let rfcExamples = [
        "<stun:stun.example.net>; rel=\"ice-server\"",
        "<turn:turn.example.net?transport=udp>; rel=\"ice-server\"; username=\"user\"; credential=\"myPassword\"; credential-type=\"password\"",
        "<turns:turn.example.net?transport=tcp>; rel=\"ice-server\"; username=\"user\"; credential=\"pw\"",
    ]

    /// One case: the field values, then the servers as `uri|username|credential`.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var fields: [String]
        var servers: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "RFC 9725 examples, one field each", fields: rfcExamples, servers: [
            "stun:stun.example.net:3478||",
            "turn:turn.example.net:3478?transport=udp|user|myPassword",
            "turns:turn.example.net:5349?transport=tcp|user|pw",
        ]),
        Case(name: "RFC 9725 examples in one field", fields: [rfcExamples.joined(separator: ", ")], servers: [
            "stun:stun.example.net:3478||",
            "turn:turn.example.net:3478?transport=udp|user|myPassword",
            "turns:turn.example.net:5349?transport=tcp|user|pw",
        ]),
        Case(name: "commas and semicolons inside quoted strings and inside <>", fields: [
            "<turn:a.example?transport=udp>; rel=ice-server; username=\"u,1;x\"; credential=\"p,w\" ,<stun:b.example>;rel=ice-server",
        ], servers: ["turn:a.example:3478?transport=udp|u,1;x|p,w", "stun:b.example:3478||"]),
        Case(name: "backslash escapes in quoted strings", fields: [
            #"<turn:a.example>; rel="ice-server"; username="a\"b\\c"; credential="\p\w""#,
        ], servers: [#"turn:a.example:3478|a"b\c|pw"#]),
        Case(name: "parameter names, rel and scheme are case-insensitive; host lowercased", fields: [
            "<STUN:Stun.Example.NET:19302>; REL=\"ICE-Server\"",
            "<TURN:t.example?TRANSPORT=TCP>; Rel=ice-server; UserName=U; Credential=P; Credential-Type=PASSWORD",
        ], servers: ["stun:stun.example.net:19302||", "turn:t.example:3478?transport=tcp|U|P"]),
        Case(name: "rel as a space-separated list; other relations ignored", fields: [
            "<stun:a.example>; rel=\"preconnect ice-server\", <https://x.example/>; rel=next, <stun:b.example>; rel=\"ice-serverx\"",
        ], servers: ["stun:a.example:3478||"]),
        Case(name: "the first of a repeated parameter wins", fields: [
            "<turn:a.example>; rel=ice-server; username=first; username=second; credential=one; credential=two",
        ], servers: ["turn:a.example:3478|first|one"]),
        Case(name: "IPv6 and IPv4 literals, explicit ports", fields: [
            "<stun:[2001:DB8::1]>; rel=ice-server, <turn:[::ffff:192.0.2.1]:3479?transport=udp>; rel=ice-server",
            "<turns:192.0.2.7:443?transport=tcp>; rel=ice-server, <stun:[fe80:0:0:0:0:0:0:1]:65535>; rel=ice-server",
        ], servers: [
            "stun:[2001:db8::1]:3478||", "turn:[::ffff:192.0.2.1]:3479?transport=udp||",
            "turns:192.0.2.7:443?transport=tcp||", "stun:[fe80:0:0:0:0:0:0:1]:65535||",
        ]),
        Case(name: "default ports: 3478 for stun and turn, 5349 for stuns and turns", fields: [
            "<stun:a>;rel=ice-server,<stuns:a>;rel=ice-server,<turn:a>;rel=ice-server,<turns:a>;rel=ice-server",
        ], servers: ["stun:a:3478||", "stuns:a:5349||", "turn:a:3478||", "turns:a:5349||"]),
        Case(name: "empty list elements and whitespace", fields: [" , ,\t<stun:a> ;\trel = ice-server ; , ,", ""],
             servers: ["stun:a:3478||"]),
        Case(name: "bad links are skipped, good ones around them kept", fields: [
            "stun:nobracket; rel=ice-server, <stun:ok1>; rel=ice-server",
            "<stun:unterminated>; rel=ice-server; username=\"abc, <stun:lost>; rel=ice-server",
            "<ftp:a.example>; rel=ice-server, <stun:a.example:0>; rel=ice-server, <stun:a.example:70000>; rel=ice-server",
            "<stun:a.example?transport=udp>; rel=ice-server, <turn:a.example?transport=sctp>; rel=ice-server",
            "<stun://a.example>; rel=ice-server, <stun:2001:db8::1>; rel=ice-server, <stun:[2001:db8::g]>; rel=ice-server",
            "<turn:a.example>; rel=ice-server; credential-type=oauth; credential=x, <stun:user@a.example>; rel=ice-server",
            "<stun:ok2>; rel=ice-server; =x, <stun:ok3>; rel=ice-server",
        ], servers: ["stun:ok1:3478||", "stun:ok3:3478||"]),
    ]

    @Test(arguments: cases)
    func readsTheServers(_ testCase: Case) throws {
        let links = ICEServerLinks(fieldValues: testCase.fields)
        #expect(links.servers.map { "\($0.uri)|\($0.username ?? "")|\($0.credential ?? "")" } == testCase.servers)
        for server in links.servers {
            #expect(try ICEServer(uri: server.uri, username: server.username, credential: server.credential) == server)
        }
    }

    @Test func skippedLinksAreCountedAndExplained() {
        let bad = [
            ("stun:nobracket; rel=ice-server", "does not start with '<'"),
            ("<stun:a;rel=ice-server", "no closing '>'"),
            ("<stun:a>; rel=\"ice-server", "not terminated"),
            ("<stun:a>; rel=ice-server junk", "';' or ','"),
            ("<stun:a>; rel=", "no value"),
            ("<ftp:a>; rel=ice-server", "scheme 'ftp'"),
            ("<stun:a:0>; rel=ice-server", "port"),
            ("<stun:a:70000>; rel=ice-server", "port"),
            ("<stun:a:>; rel=ice-server", "port"),
            ("<turn:a?transport=sctp>; rel=ice-server", "transport"),
            ("<stun:a?transport=udp>; rel=ice-server", "transport"),
            ("<stun:[::1>; rel=ice-server", "']'"),
            ("<stun:[1:2:3:4:5:6:7:8:9]>; rel=ice-server", "IPv6"),
            ("<stun:1::2>; rel=ice-server", "brackets"),
            ("<turn:a>; rel=ice-server; credential-type=oauth; credential=x", "credential-type 'oauth'"),
            ("<stun:" + String(repeating: "a", count: 600) + ">; rel=ice-server", "longer than 512"),
            ("<turn:a>; rel=ice-server; username=u; credential=" + String(repeating: "p", count: 513), "credential is longer"),
        ]
        for (field, reason) in bad {
            let links = ICEServerLinks(fieldValues: [field])
            #expect(links.servers.isEmpty, "\(field)")
            #expect(links.skippedCount == 1, "\(field)")
            #expect(links.problems.count == 1 && links.problems[0].contains(reason), "\(field): \(links.problems)")
        }
    }

    @Test func aThousandLinksKeepSixteen() {
        let one = "<stun:s.example>;rel=ice-server"
        // In one field (past 16 KiB: truncated), and in 1,000 fields.
        for fields in [[Array(repeating: one, count: 1000).joined(separator: ",")], Array(repeating: one, count: 1000)] {
            let links = ICEServerLinks(fieldValues: fields)
            #expect(links.servers.count == ICEServerLinks.maximumServers)
            #expect(links.problems.contains { $0.contains("at most 16 are kept") })
            #expect(links.problems.contains { $0.contains("more than 16384") })
            #expect(links.problems.count <= LinkHeader.maximumExplanations)
        }
        // Under the bound: all links read, 16 kept, the rest counted.
        let links = ICEServerLinks(fieldValues: Array(repeating: one, count: 100))
        #expect(links.servers.count == 16 && links.skippedCount == 84)
        #expect(links.problems == ["84 more ICE server links ignored: at most 16 are kept"])
    }

    @Test func aHundredKilobyteHeaderIsBounded() {
        let filler = String(repeating: "x", count: 100_000)
        let cases = [
            "<stun:a.example>; rel=ice-server, <stun:b.example>; rel=ice-server; title=\"" + filler + "\"",
            "<stun:a.example>; rel=ice-server, \"" + filler,
            "<stun:a.example>; rel=ice-server, <" + filler + ">",
            String(repeating: ",", count: 100_000) + "<stun:late.example>; rel=ice-server",
            "<stun:a.example>; rel=ice-server, " + String(repeating: "<x>;a=b,", count: 12_500),
        ]
        for field in cases {
            let parse = LinkHeader.parse([field])
            #expect(parse.truncation?.contains("more than 16384") == true)
            #expect(parse.links.count <= LinkHeader.maximumInputLength / 3)
            let links = ICEServerLinks(fieldValues: [field])
            #expect(links.servers.count <= 1)
            #expect(links.servers.allSatisfy { $0.host == "a.example" })
            #expect(links.problems.count <= LinkHeader.maximumExplanations)
        }
        // A link cut by the bound is not kept, even if what is left would parse.
        let cut = LinkHeader.parse([String(repeating: " ", count: LinkHeader.maximumInputLength - 10) + "<stun:a.example>; rel=ice-server"])
        #expect(cut.links.isEmpty && cut.malformedCount == 0 && cut.truncation != nil)
    }

    @Test func linkValuesKeepTheirParameters() {
        let parse = LinkHeader.parse([#"<https://a.example/x,y>; REL="next  Prev"; title*=UTF-8'de'n%c3%a4chstes; hreflang=de; novalue"#])
        #expect(parse.links == [LinkValue(target: "https://a.example/x,y", parameters: [
            "rel": "next  Prev", "title*": "UTF-8'de'n%c3%a4chstes", "hreflang": "de", "novalue": "",
        ])])
        #expect(parse.links.first?.relations == ["next", "prev"])
        #expect(parse.problems.isEmpty && parse.malformedCount == 0 && parse.truncation == nil)
    }

    @Test func theCredentialIsNeverPrinted() throws {
        let credential = "myPassword-XYZZY"
        let links = ICEServerLinks(fieldValues: [
            "<turn:turn.example.net?transport=udp>; rel=ice-server; username=user; credential=\(credential)",
            // Skipped links holding the credential: their explanations do not quote them.
            "<turn:turn.example.net:0>; rel=ice-server; username=user; credential=\(credential)",
            "<turn:t>; rel=ice-server; credential-type=oauth; credential=\(credential)",
            "<turn:t>; rel=ice-server; credential=\"\(credential)",
        ])
        let server = try #require(links.servers.first)
        #expect(server.credential == credential)
        #expect(String(describing: server) == "turn:turn.example.net:3478?transport=udp (user user, credential <redacted>)")
        var dumped = ""
        dump(server, to: &dumped)
        let session = WHIPSession(resourceURL: "http://127.0.0.1/r", answer: "v=0", etag: nil, iceServers: links.servers,
                                  iceServerProblems: links.problems, resource: try HTTPURL(parsing: "http://127.0.0.1/r"))
        var dumpedSession = ""
        dump(session, to: &dumpedSession)
        for text in [String(describing: server), String(reflecting: server), "\(links.servers)", String(describing: links),
                     String(describing: session), String(reflecting: session), dumped, dumpedSession,
                     session.iceServerLines.joined(separator: "\n")] {
            #expect(!text.contains(credential), "\(text)")
        }
        #expect(links.problems.count == 3)
        #expect(session.iceServerLines.first
            == "the WHIP endpoint offers ICE servers: turn:turn.example.net:3478?transport=udp (user user, credential <redacted>)")
    }
}
