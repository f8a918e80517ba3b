import Foundation
import Testing
@testable import WebRTC
@testable import WHEP

/// Trickle ICE and ICE restarts from a viewer (RFC 9725 sections 4.3-4.4) over loopback: a real viewer connects, then
/// PATCHes candidates and new credentials; every reply is checked, and the server's per-viewer counters.
@Suite(.serialized) struct WHEPTrickleTests {
    static let fragmentType = ["Content-Type": "application/trickle-ice-sdpfrag"]

    static func patch(_ port: Int, _ path: String, ifMatch: String?, _ fragment: String) async throws -> WHEPTestSupport.Reply {
        var headers = fragmentType
        if let ifMatch { headers["If-Match"] = ifMatch }
        return try await WHEPTestSupport.request(port: port, "PATCH", path, headers: headers, body: fragment)
    }

    static func fragment(_ credentials: ICECredentials, candidates: [String] = [], end: Bool = false) -> String {
        TrickleICEFragment(credentials: credentials, mid: "0", candidates: candidates.map { try! ICECandidate(parsing: $0) },
                           endOfCandidates: end).sdp
    }

    @Test(.timeLimit(.minutes(1)))
    func trickledCandidatesAndAnICERestartKeepTheViewer() async throws {
        let (server, pump) = try await WHEPTestSupport.start(.init(host: "127.0.0.1", port: 0))
        defer { pump.cancel() }
        let port = server.localPort
        let preflight = try await WHEPTestSupport.request(port: port, "OPTIONS", "/whep/x")
        #expect(preflight.headers["access-control-allow-methods"]?.contains("PATCH") == true)
        #expect(preflight.headers["accept-patch"] == "application/trickle-ice-sdpfrag")

        let viewer = try await TestViewer(serverPort: port)
        #expect(try await WHEPTestSupport.waitFor { try await viewer.isConnected }, "the viewer did not connect")
        let etag = try #require(viewer.etag)
        let answer = try JSEPSessionDescription(parsing: viewer.answerSDP)
        let answered = try answer.remoteTransport(for: try #require(answer.media.first))

        // Trickle: the ETag of the 201, candidates of the offer's generation; then end-of-candidates.
        let trickled = try await Self.patch(port, viewer.location, ifMatch: etag, Self.fragment(
            viewer.credentials, candidates: ["1 1 udp 2122260223 127.0.0.1 40000 typ host", "2 1 udp 2122194687 abc.local 40001 typ host"]))
        #expect(trickled.status == 204)
        #expect(trickled.headers["etag"] == etag)
        #expect(try await Self.patch(port, viewer.location, ifMatch: etag, Self.fragment(viewer.credentials, end: true)).status == 204)
        let stale = try await Self.patch(port, viewer.location, ifMatch: "\"other\"", Self.fragment(viewer.credentials))
        #expect(stale.status == 412)
        #expect(stale.body.contains("is not the session's ETag"))
        // A "restart" with the same credentials is none.
        let same = try await Self.patch(port, viewer.location, ifMatch: "*", Self.fragment(viewer.credentials))
        #expect(same.status == 400)
        #expect(same.body == "an ICE restart (If-Match: \"*\") needs a new a=ice-ufrag and a=ice-pwd in the fragment\n")

        // The restart: 200, our new credentials and our candidate, a new ETag.
        let fresh = ICECredentials.random()
        let restart = try await Self.patch(port, viewer.location, ifMatch: "*", Self.fragment(fresh))
        #expect(restart.status == 200)
        #expect(restart.headers["content-type"] == "application/trickle-ice-sdpfrag")
        let newETag = try #require(restart.headers["etag"])
        #expect(newETag != etag)
        let reply = try TrickleICEFragment(parsing: restart.body)
        let ours = try #require(reply.credentials)
        #expect(ours.ufrag != answered.credentials.ufrag && ours.password != answered.credentials.password)
        #expect(newETag == "\"\(ours.ufrag)\"")
        #expect(reply.candidates == answered.candidates)
        #expect(reply.endOfCandidates)
        #expect(reply.mid == "0")
        // The old ETag is stale now; the new one takes the new generation's candidates (the old one's are ignored).
        #expect(try await Self.patch(port, viewer.location, ifMatch: etag, Self.fragment(fresh)).status == 412)
        #expect(try await Self.patch(port, viewer.location, ifMatch: newETag, Self.fragment(
            fresh, candidates: ["3 1 udp 2122260223 127.0.0.1 40002 typ host"])).status == 204)
        #expect(try await Self.patch(port, viewer.location, ifMatch: newETag, Self.fragment(
            viewer.credentials, candidates: ["4 1 udp 2122260223 127.0.0.1 40003 typ host"])).status == 204)

        let stats = try #require(await server.viewers().first)
        #expect(stats.iceRestarts == 1)
        #expect(stats.trickledCandidates == 3)  // two before the restart, one after; the stale generation's not
        #expect(stats.connected)
        // Media still flows to the viewer (its path did not change).
        let before = try await viewer.mediaPackets().count
        #expect(try await WHEPTestSupport.waitFor { try await viewer.mediaPackets().count > before + 10 })

        // Two restarts back to back are a storm (RestartLimiterTests has the bound on a virtual clock): the second is
        // refused with 429 and Retry-After 1 when it reached the server within a second of the first, which is sure
        // when its reply came within a second of the first's request (a loaded machine may take longer: then 200).
        try await Task.sleep(for: .milliseconds(1100))  // a second after the earlier restart
        let sentAt = ContinuousClock.now
        let first = try await Self.patch(port, viewer.location, ifMatch: "*", Self.fragment(ICECredentials.random()))
        #expect(first.status == 200)
        let storm = try await Self.patch(port, viewer.location, ifMatch: "\"*\"", Self.fragment(ICECredentials.random()))
        if ContinuousClock.now - sentAt < .seconds(1) {
            #expect(storm.status == 429)
            #expect(storm.headers["retry-after"] == "1")
        } else {
            #expect(storm.status == 200 || storm.status == 429)
        }

        let unknown = try await Self.patch(port, "/whep/0123456789abcdef", ifMatch: "*", Self.fragment(fresh))
        #expect(unknown.status == 404)
        await viewer.close()
    }
}
