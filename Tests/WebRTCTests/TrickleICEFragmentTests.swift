import STUN
import Testing
@testable import WebRTC

/// RFC 8840 fragments as WHIP/WHEP clients PATCH them: read leniently where the RFC allows, refused with the line
/// named where a mistake would be silent.
@Suite struct TrickleICEFragmentTests {
    /// What a browser page (ours, and the WHIP/WHEP JavaScript clients) sends: credentials under the m-line.
    static let chromium = """
        a=ice-options:trickle ice2\r
        a=group:BUNDLE 0\r
        m=video 9 UDP/TLS/RTP/SAVPF 0\r
        a=mid:0\r
        a=ice-ufrag:EsAw\r
        a=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1\r
        a=candidate:1387637174 1 udp 2122260223 192.0.2.1 61764 typ host generation 0 ufrag EsAw network-id 1\r
        a=candidate:3471623853 1 udp 2122194687 7d2e5c0f-7a6b-4c1e-9d8a-2f6b1c0e9a11.local 54023 typ host generation 0\r
        a=candidate:842163049 1 udp 1686052607 203.0.113.7 61764 typ srflx raddr 192.0.2.1 rport 61764\r
        a=end-of-candidates\r

        """

    @Test func readsABrowsersFragment() throws {
        let fragment = try TrickleICEFragment(parsing: Self.chromium)
        #expect(fragment.credentials == (try ICECredentials(ufrag: "EsAw", password: "P2uYro0UCOQ4zxjKXaWCBui1")))
        #expect(fragment.mid == "0")
        #expect(fragment.candidates.count == 3)
        #expect(fragment.candidates[0].transportAddress == TransportAddress(ipString: "192.0.2.1", port: 61764))
        #expect(fragment.candidates[1].address.hasSuffix(".local"))  // mDNS: kept, not resolvable
        #expect(fragment.candidates[2].kind == .srflx)
        #expect(fragment.endOfCandidates)
    }

    @Test func serializesWhatItReads() throws {
        let fragment = try TrickleICEFragment(parsing: Self.chromium)
        let again = try TrickleICEFragment(parsing: fragment.sdp)
        #expect(again == fragment)
        #expect(fragment.sdp.hasSuffix("a=end-of-candidates\r\n"))
        #expect(fragment.sdp.split(separator: "\r\n").allSatisfy { $0.count >= 2 && $0.dropFirst().first == "=" })
    }

    @Test func takesSessionLevelCredentialsLineFeedsAndNoCandidates() throws {
        let fragment = try TrickleICEFragment(parsing: "a=ice-ufrag:abcd\na=ice-pwd:0123456789012345678901\n\n")
        #expect(fragment.credentials?.ufrag == "abcd")
        #expect(fragment.candidates.isEmpty)
        #expect(!fragment.endOfCandidates)
        #expect(fragment.mid == nil)
        let bare = try TrickleICEFragment(parsing: "a=end-of-candidates\r\n")
        #expect(bare.credentials == nil && bare.endOfCandidates)
        // The same value at session and media level is one value.
        let twice = try TrickleICEFragment(parsing: "a=ice-ufrag:abcd\r\nm=video 9 UDP/TLS/RTP/SAVPF 0\r\na=ice-ufrag:abcd\r\na=ice-pwd:0123456789012345678901\r\n")
        #expect(twice.credentials?.ufrag == "abcd")
    }

    @Test func refusesWhatWouldBeSilentlyWrong() {
        func error(_ text: String) -> String? {
            do {
                _ = try TrickleICEFragment(parsing: text)
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(error("a=ice-ufrag:abcd\r\n") == "SDP lacks a=ice-pwd beside its a=ice-ufrag")
        #expect(error("a=ice-pwd:0123456789012345678901\r\n") == "SDP lacks a=ice-ufrag beside its a=ice-pwd")
        #expect(error("a=ice-ufrag:abcd\r\na=ice-ufrag:efgh\r\na=ice-pwd:0123456789012345678901\r\n")
            == "SDP line 2 'a=ice-ufrag:efgh': a second, different ice-ufrag")
        #expect(error("a=ice-ufrag:ab\r\na=ice-pwd:0123456789012345678901\r\n")?.contains("ice-ufrag must be 4-256") == true)
        #expect(error("a=candidate:1 1 udp 1 192.0.2.1 notaport typ host\r\n") == "SDP line 1 'a=candidate:1 1 udp 1 192.0.2.1 notaport typ host': port notaport")
        #expect(error("hello\r\n") == "SDP line 1 'hello': not <letter>=<value>")
        #expect(error("m=video 9 UDP/TLS/RTP/SAVPF 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\n")?.contains("more than one m-line") == true)
        let many = (0...TrickleICEFragment.maximumCandidates).map { "a=candidate:\($0) 1 udp 1 192.0.2.1 \($0 + 1) typ host\r\n" }
        #expect(error(many.joined())?.contains("more than \(TrickleICEFragment.maximumCandidates) candidates") == true)
        let long = String(repeating: "a=ice-options:trickle\r\n", count: TrickleICEFragment.maximumLines + 1)
        #expect(error(long)?.contains("more than \(TrickleICEFragment.maximumLines) lines") == true)
    }

    /// Tests/Fuzz/Regressions/sdpfrag/mid-with-carriage-returns: a mid ending in carriage returns did not read back
    /// from the fragment's own text (a CR run before the line end was cut once). A mid must be a token now, and a run
    /// of CRs before a line end is one line end. Tests/Fuzz/Regressions/sdpfrag/carriage-return-inside-a-candidate: a
    /// candidate value ending in a CR before a space lost it on the way back; a control character inside a line is
    /// refused now.
    @Test func carriageReturnsEndALineAndAMidIsAToken() throws {
        #expect(throws: JSEPError.self) { _ = try TrickleICEFragment(parsing: "a=mid:v\ri\r\n") }
        #expect(try TrickleICEFragment(parsing: "a=mid:vi\r\r\r\r\n").mid == "vi")
        #expect(throws: JSEPError.self) { _ = try TrickleICEFragment(parsing: "a=mid:v i\r\n") }
        #expect(throws: JSEPError.self) {
            _ = try TrickleICEFragment(parsing: "a=candidate:1 1 udp 1 192.0.2.1 9 typ host network-id 1\r \r\n")
        }
        #expect(throws: JSEPError.self) { _ = try TrickleICEFragment(parsing: "a=ice-options:trickle\u{0}\r\n") }
        let fragment = try TrickleICEFragment(parsing: "a=candidate:1 1 udp 1 192.0.2.1 9 typ host generation 0\r\r\r\n")
        #expect(fragment.candidates.first?.sdpValue == "1 1 udp 1 192.0.2.1 9 typ host generation 0")
        #expect(try TrickleICEFragment(parsing: fragment.sdp) == fragment)
    }
}
