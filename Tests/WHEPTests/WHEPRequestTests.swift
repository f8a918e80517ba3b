import Testing
import WebRTC
@testable import WHEP

/// The routing of WHEP requests, without sockets: every path, method, content type and token case to its request or
/// to its specific error reply.
@Suite struct WHEPRequestTests {
    static func parse(
        _ method: String, _ uri: String, contentType: String? = nil, authorization: String? = nil,
        token: String? = nil, ifMatch: String? = nil, body: String = "", tooLarge: Bool = false
    ) -> Result<WHEPRequest, WHEPReplyError> {
        WHEPRequest.parse(method: method, uri: uri, contentType: contentType, authorization: authorization,
                          token: token, ifMatch: ifMatch, body: Array(body.utf8), bodyTooLarge: tooLarge)
    }

    @Test func wellFormedRequestsAreRouted() {
        #expect(Self.parse("GET", "/") == .success(.page))
        #expect(Self.parse("GET", "/index.html?x=1") == .success(.page))
        #expect(Self.parse("HEAD", "/") == .success(.page))
        #expect(Self.parse("OPTIONS", "/whep") == .success(.options))
        #expect(Self.parse("OPTIONS", "/whep/abc") == .success(.options))
        #expect(Self.parse("POST", "/whep", contentType: "application/sdp", body: "v=0\r\n") == .success(.offer("v=0\r\n")))
        #expect(Self.parse("POST", "/whep", contentType: "Application/SDP; charset=utf-8", body: "v=0") == .success(.offer("v=0")))
        #expect(Self.parse("DELETE", "/whep/0123abcd") == .success(.delete(id: "0123abcd")))
    }

    @Test(arguments: [
        ("GET", "/nope", nil as String?, "x", 404, "unknown path /nope; the WHEP endpoint is /whep, the viewer page /\n"),
        ("POST", "/", "application/sdp", "x", 405, "/ takes GET, HEAD\n"),
        ("GET", "/whep", nil, "", 405, "/whep takes POST, OPTIONS\n"),
        ("POST", "/whep", "text/plain", "v=0", 415, "the offer must be sent as Content-Type: application/sdp (got text/plain)\n"),
        ("POST", "/whep", nil, "v=0", 415, "the offer must be sent as Content-Type: application/sdp (got none)\n"),
        ("POST", "/whep", "application/sdp", "", 400, "the offer is empty or not UTF-8\n"),
        ("POST", "/whep", "application/sdp", " \r\n", 400, "the offer is empty or not UTF-8\n"),
        ("GET", "/whep/abc", nil, "", 405, "/whep/abc takes DELETE, PATCH, OPTIONS\n"),
        ("POST", "/whep/abc", "application/sdp", "v=0", 405, "/whep/abc takes DELETE, PATCH, OPTIONS\n"),
        ("PATCH", "/whep/abc", "application/sdp", "a=end-of-candidates", 415,
         "a PATCH must be sent as Content-Type: application/trickle-ice-sdpfrag (got application/sdp)\n"),
        ("PATCH", "/whep/abc", "application/trickle-ice-sdpfrag", "a=end-of-candidates", 428,
         "a PATCH must carry If-Match: the session's ETag to trickle candidates, \"*\" to restart ICE\n"),
        ("DELETE", "/whep/", nil, "", 404, "no WHEP session at /whep/\n"),
        ("DELETE", "/whep/a/b", nil, "", 404, "no WHEP session at /whep/a/b\n"),
    ])
    func badRequestsGetASpecificError(
        method: String, uri: String, contentType: String?, body: String, status: Int, message: String
    ) {
        guard case .failure(let error) = Self.parse(method, uri, contentType: contentType, body: body) else {
            Issue.record("\(method) \(uri) was accepted")
            return
        }
        #expect(error.reply.status == status)
        #expect(error.reply.body == message)
        if status == 405 { #expect(error.reply.header("Allow") != nil) }
    }

    @Test func aPatchCarriesItsFragmentAndIfMatch() throws {
        let body = "a=ice-ufrag:abcd\r\na=ice-pwd:0123456789012345678901\r\na=candidate:1 1 udp 1 192.0.2.1 9 typ host\r\n"
        let parsed = Self.parse("PATCH", "/whep/0123abcd", contentType: "application/trickle-ice-sdpfrag; charset=utf-8",
                                ifMatch: " \"abcd\" ", body: body)
        #expect(parsed == .success(.patch(id: "0123abcd", fragment: try TrickleICEFragment(parsing: body), ifMatch: "\"abcd\"")))
        func failure(_ ifMatch: String?, _ body: String, tooLarge: Bool = false) -> (Int, String)? {
            guard case .failure(let error) = Self.parse(
                "PATCH", "/whep/0123abcd", contentType: "application/trickle-ice-sdpfrag", ifMatch: ifMatch, body: body,
                tooLarge: tooLarge)
            else { return nil }
            return (error.reply.status, error.reply.body)
        }
        #expect(failure("*", "a=ice-ufrag:abcd\r\n")! == (400, "bad trickle ICE fragment: SDP lacks a=ice-pwd beside its a=ice-ufrag\n"))
        #expect(failure("*", "", tooLarge: true)! == (413, "trickle ICE fragment over 16384 bytes\n"))
        #expect(failure("*", String(repeating: "a", count: WHEPRequest.maximumFragmentSize + 1))?.0 == 413)
        #expect(failure("", "a=end-of-candidates")?.0 == 428)
        // The token guards PATCH like DELETE.
        guard case .failure(let unauthorized) = WHEPRequest.parse(
            method: "PATCH", uri: "/whep/0123abcd", contentType: "application/trickle-ice-sdpfrag", authorization: nil,
            token: "s3cret", ifMatch: "*", body: Array(body.utf8), bodyTooLarge: false)
        else { Issue.record("a PATCH without the token was accepted"); return }
        #expect(unauthorized.reply.status == 401)
    }

    @Test func anOverlongIDOrBodyIsRefused() {
        let id = String(repeating: "a", count: WHEPRequest.maximumIDLength + 1)
        guard case .failure(let error) = Self.parse("DELETE", "/whep/\(id)") else { Issue.record("accepted"); return }
        #expect(error.reply.status == 404)
        guard case .failure(let large) = Self.parse("POST", "/whep", contentType: "application/sdp", tooLarge: true) else {
            Issue.record("accepted")
            return
        }
        #expect(large.reply.status == 413)
        #expect(large.reply.body == "offer over 65536 bytes\n")
    }

    @Test func theTokenIsRequiredForPOSTAndDELETEButNotForThePageOrAPreflight() {
        let token = "s3cret"
        for authorization in [nil, "Bearer wrong", "Bearer s3cret ", "bearer", "Bearers3cret", "s3cret", "Basic czNjcmV0"] {
            guard case .failure(let error) = Self.parse(
                "POST", "/whep", contentType: "application/sdp", authorization: authorization, token: token, body: "v=0")
            else {
                Issue.record("\(authorization ?? "no header") was accepted")
                continue
            }
            #expect(error.reply.status == 401)
            #expect(error.reply.header("WWW-Authenticate") == "Bearer")
            #expect(!error.reply.body.contains(token))  // the token is never echoed
        }
        // The scheme is case-insensitive (RFC 9110 11.1; issue 20, item 8).
        for authorization in ["Bearer s3cret", "bearer s3cret", "BEARER s3cret", "Bearer  s3cret"] {
            #expect(Self.parse("POST", "/whep", contentType: "application/sdp", authorization: authorization, token: token,
                               body: "v=0") == .success(.offer("v=0")), "\(authorization)")
        }
        guard case .failure(let delete) = Self.parse("DELETE", "/whep/abc", token: token) else { Issue.record("accepted"); return }
        #expect(delete.reply.status == 401)
        #expect(Self.parse("DELETE", "/whep/abc", authorization: "Bearer s3cret", token: token) == .success(.delete(id: "abc")))
        #expect(Self.parse("GET", "/", token: token) == .success(.page))
        #expect(Self.parse("OPTIONS", "/whep", token: token) == .success(.options))
    }

    /// The page POSTs at once and trickles (it no longer waits for gathering), restarts ICE, and shows errors; the
    /// interop run in Chromium (serve_chromium_viewer.py) proves that it works.
    @Test func theViewerPagePostsAtOnceTricklesRestartsAndShowsErrors() {
        let page = ViewerPage.html
        #expect(page.contains("addTransceiver(\"video\", {direction: \"recvonly\"})"))
        #expect(!page.contains("iceGatheringState === \"complete\""))
        #expect(page.contains("pc.onicecandidate"))
        #expect(page.contains("{\"Content-Type\": \"application/trickle-ice-sdpfrag\", \"If-Match\": ifMatch}"))
        #expect(page.contains("patch(fragment([], false), \"*\")"))
        #expect(page.contains("pc.restartIce()"))
        #expect(page.contains("a=end-of-candidates\\r\\n"))
        #expect(page.contains("fetch(\"/whep\", {method: \"POST\""))
        #expect(page.contains("\"Content-Type\": \"application/sdp\""))
        #expect(page.contains("autoplay muted playsinline"))
        #expect(page.contains("show(String(error), true)"))
    }

    /// The statistics panel's cells and graph are there, fed by the page's own getStats(); the page loads nothing from
    /// another origin (it must work offline, and over HTTPS without mixed content).
    @Test func theViewerPageShowsAStatisticsPanelAndLoadsNothingFromElsewhere() {
        let page = ViewerPage.html
        for id in ["resolution", "fps", "bitrate", "rtt", "lost", "recovered", "nacks", "freezes", "jitter", "latency",
                   "decoder", "graph"] {
            #expect(page.contains("id=\"\(id)\""), "\(id)")
        }
        #expect(page.contains("pc.getStats()"))
        #expect(page.contains("selectedCandidatePairId"))
        #expect(page.contains("requestVideoFrameCallback"))
        #expect(page.contains("addEventListener(\"pagehide\""))
        for external in ["http:", "https:", "src=", "href=", "@import", "url("] {
            #expect(!page.contains(external), "\(external)")
        }
    }
}
