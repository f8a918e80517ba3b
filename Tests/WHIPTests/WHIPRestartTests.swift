import MediaTime
import STUN
import Testing
import WebRTC
@testable import WHIP

/// When the publisher restarts ICE (ICERestartPolicy, on a virtual clock) and how it asks the endpoint
/// (WHIPClient.restartICE against a real HTTP server on loopback). The restart itself, end to end: whip-restart.sh.
@Suite struct WHIPRestartTests {
    static let t0 = MonotonicTime(nanoseconds: 1_000_000_000)

    @Test func aTriggerStartsOneAttemptAndASuccessReportsTheGapFromTheFirstTrigger() {
        var policy = ICERestartPolicy()
        #expect(policy.start(now: Self.t0) == nil)  // nothing asked
        policy.trigger(.disconnected, now: Self.t0)
        policy.trigger(.addressChanged, now: Self.t0 + .milliseconds(300))  // outranks, keeps the first time
        #expect(policy.start(now: Self.t0 + .milliseconds(400)) == .addressChanged)
        #expect(policy.start(now: Self.t0 + .milliseconds(500)) == nil)  // one attempt at a time
        policy.trigger(.disconnected, now: Self.t0 + .milliseconds(600))  // waits for the outcome
        #expect(policy.succeeded(now: Self.t0 + .milliseconds(900)) == .milliseconds(900))
        #expect(policy.pending == nil && policy.attempts == 0)  // the new path is proven: the trigger is cleared
        #expect(policy.start(now: Self.t0 + .seconds(1)) == nil)
        #expect(policy.succeeded(now: Self.t0 + .seconds(2)) == nil)  // a path change nobody asked for
    }

    @Test func failuresBackOffDoublingAndTheStormIsBounded() {
        var policy = ICERestartPolicy()
        var now = Self.t0
        policy.trigger(.disconnected, now: now)
        var starts: [Duration] = []
        for _ in 0..<800 {  // 200 s
            if policy.start(now: now) != nil {
                starts.append(now - Self.t0)
                policy.failed(now: now)
            }
            now = now + .milliseconds(250)
        }
        // 8 attempts: at once, then after 1, 2, 4, 8, 16, 30, 30 s.
        #expect(starts.count == ICERestartPolicy.maximumAttempts)
        let gaps = zip(starts.dropFirst(), starts).map { $0 - $1 }
        #expect(gaps == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30)])
    }

    @Test func anAttemptWithoutANewPairTimesOutAndIsRetried() {
        var policy = ICERestartPolicy()
        policy.trigger(.addressChanged, now: Self.t0)
        #expect(policy.start(now: Self.t0) == .addressChanged)
        #expect(policy.start(now: Self.t0 + .seconds(4)) == nil)
        // At the completion timeout the attempt counts as failed; the retry waits for the 1 s backoff.
        #expect(policy.start(now: Self.t0 + ICERestartPolicy.completionTimeout) == nil)
        #expect(policy.start(now: Self.t0 + ICERestartPolicy.completionTimeout + .seconds(1)) == .retry)
        #expect(policy.attempts == 2)
    }

    static let restartReply = "a=ice-ufrag:srv2\r\na=ice-pwd:serverpassword9876543210\r\n"

    @Test func theRestartPATCHCarriesTheFragmentWithIfMatchStarAndReadsTheReply() async throws {
        let server = try await ScriptedHTTPServer { request in
            switch request.method {
            case "POST":
                .init(status: 201, headers: [("Content-Type", "application/sdp"), ("Location", "/session/1"), ("ETag", "\"a\"")],
                      body: "v=0\r\n")
            case "PATCH":
                .init(status: 200, headers: [("Content-Type", "application/trickle-ice-sdpfrag"), ("ETag", "\"b\"")],
                      body: Self.restartReply)
            default: .init(status: 200)
            }
        }
        let client = try WHIPClient(configuration: WHIPConfiguration(url: server.base + "/whip", token: "t0ken"))
        let session = try await client.publish(offer: "v=0\r\n")
        #expect(session.etag == "\"a\"")
        let ours = try ICECredentials(ufrag: "cln2", password: "clientpassword9876543210")
        let fragment = TrickleICEFragment(
            credentials: ours, mid: "0", candidates: [.host(TransportAddress(ipString: "10.83.0.3", port: 40000)!)],
            endOfCandidates: true)
        let (answer, etag) = try await client.restartICE(session, fragment: fragment)
        #expect(answer.credentials == (try ICECredentials(ufrag: "srv2", password: "serverpassword9876543210")))
        #expect(answer.candidates.isEmpty)
        #expect(etag == "\"b\"")
        let patch = try #require(server.requests.last)
        #expect(patch.method == "PATCH" && patch.uri == "/session/1")
        #expect(patch.header("If-Match") == "\"*\"")
        #expect(patch.header("Content-Type") == "application/trickle-ice-sdpfrag")
        #expect(patch.header("Authorization") == "Bearer t0ken")
        #expect(try TrickleICEFragment(parsing: patch.body) == fragment)
        await server.close()
    }

    /// Trickle ICE (RFC 9725 section 4.3.1): the PATCH carries `If-Match` with the ETag given and the fragment; 204
    /// is success; 405 (an endpoint without trickle) and 412 (a stale ETag) are errors that name the status.
    @Test(arguments: [(204, nil), (405, "HTTP 405"), (412, "HTTP 412")] as [(Int, String?)])
    func aTricklePATCHCarriesTheETagAndTheCandidates(status: Int, message: String?) async throws {
        let server = try await ScriptedHTTPServer { request in
            request.method == "POST"
                ? .init(status: 201, headers: [("Content-Type", "application/sdp"), ("Location", "/session/1"), ("ETag", "\"a\"")],
                        body: "v=0\r\n")
                : .init(status: status, headers: [("Content-Type", "text/plain")], body: status == 204 ? "" : "no")
        }
        let client = try WHIPClient(configuration: WHIPConfiguration(url: server.base + "/whip", token: "t0ken"))
        let session = try await client.publish(offer: "v=0\r\n")
        let fragment = TrickleICEFragment(
            credentials: try ICECredentials(ufrag: "cln1", password: "clientpassword9876543210"), mid: "0",
            candidates: [ICECandidate(foundation: "relay1", priority: 16_777_215, address: "10.83.2.1", port: 50_001,
                                      kind: .relay, relatedAddress: "10.83.1.2", relatedPort: 40_000)])
        do {
            try await client.trickle(session, etag: "\"a\"", fragment: fragment)
            #expect(message == nil)
        } catch {
            #expect(message != nil && "\(error)".contains(message!), "\(error)")
        }
        let patch = try #require(server.requests.last)
        #expect(patch.method == "PATCH" && patch.uri == "/session/1")
        #expect(patch.header("If-Match") == "\"a\"")
        #expect(patch.header("Content-Type") == "application/trickle-ice-sdpfrag")
        #expect(try TrickleICEFragment(parsing: patch.body) == fragment)
        await server.close()
    }

    @Test(arguments: [
        (405, "application/trickle-ice-sdpfrag", restartReply, "the WHIP endpoint answered PATCH with HTTP 405"),
        (200, "text/plain", restartReply, "the ICE restart reply's Content-Type is 'text/plain'"),
        (200, "application/trickle-ice-sdpfrag", "a=end-of-candidates\r\n", "the ICE restart reply has no a=ice-ufrag and a=ice-pwd"),
        (200, "application/trickle-ice-sdpfrag", "a=ice-ufrag:srv2\r\n", "SDP lacks a=ice-pwd beside its a=ice-ufrag"),
    ])
    func aRestartReplyWeCannotUseIsAClearError(status: Int, contentType: String, body: String, message: String) async throws {
        let server = try await ScriptedHTTPServer { request in
            request.method == "POST"
                ? .init(status: 201, headers: [("Content-Type", "application/sdp"), ("Location", "/session/1")], body: "v=0\r\n")
                : .init(status: status, headers: [("Content-Type", contentType)], body: body)
        }
        let client = try WHIPClient(configuration: WHIPConfiguration(url: server.base + "/whip", token: nil))
        let session = try await client.publish(offer: "v=0\r\n")
        do {
            _ = try await client.restartICE(session, fragment: TrickleICEFragment(credentials: ICECredentials.random()))
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
        await server.close()
    }
}
