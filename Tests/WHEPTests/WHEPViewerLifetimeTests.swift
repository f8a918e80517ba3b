import Testing
@testable import WHEP

/// Issue 20, item 2: the server's memory grew by about 470 KB with every viewer who joined and left, and was never
/// given back. Every object a viewer's session owns must be freed once it leaves.
@Suite(.serialized) struct WHEPViewerLifetimeTests {
    /// Join/leave cycles per kind of viewer.
    static let cycles = 3
    /// How long a freed viewer's last references (tasks queued on its loop) may take to go: a bound, not a timing.
    static let releaseBound = 20.0

    @Test(.timeLimit(.minutes(2)))
    func everyObjectOfAViewerThatLeftIsFreed() async throws {
        let (server, pump) = try await WHEPTestSupport.start(.init(host: "127.0.0.1", port: 0))
        defer { pump.cancel() }
        var left: [ViewerObjects] = []
        for _ in 0..<Self.cycles {
            // A viewer that connects (ICE, DTLS, SRTP, its stream on the shared encoder), then DELETEs.
            let viewer = try await TestViewer(serverPort: server.localPort)
            #expect(try await WHEPTestSupport.waitFor { try await viewer.mediaPackets().count >= 5 }, "no media")
            let connected = try await ViewerObjects.watch(server, location: viewer.location)
            #expect(try await connected.alive.count == 6)
            let delete = try await WHEPTestSupport.request(port: server.localPort, "DELETE", viewer.location)
            #expect(delete.status == 200)
            await viewer.close()
            left.append(connected)

            // A viewer that is answered, never connects, and DELETEs.
            let reply = try await WHEPTestSupport.request(
                port: server.localPort, "POST", "/whep", headers: ["Content-Type": "application/sdp"],
                body: WHEPTestSupport.offer(
                    credentials: .random(), candidate: .init(ipString: "127.0.0.1", port: 9)!,
                    fingerprint: try DTLSTestCertificate.fingerprint()))
            #expect(reply.status == 201)
            let location = try #require(reply.headers["location"])
            let answered = try await ViewerObjects.watch(server, location: location)
            #expect(try await answered.alive == ["ViewerSession", "UDPTransport", "WebRTCLink", "PeerTransport", "DTLSEndpoint"])
            #expect(try await WHEPTestSupport.request(port: server.localPort, "DELETE", location).status == 200)
            left.append(answered)
        }
        #expect(server.viewerCount == 0)
        let watched = left
        _ = try await WHEPTestSupport.waitFor(seconds: Self.releaseBound) {
            for objects in watched where !(try await objects.alive.isEmpty) { return false }
            return true
        }
        for objects in watched {
            let alive = try await objects.alive
            #expect(alive.isEmpty, "still alive after the viewer left: \(alive)")
        }
        await server.finish()
    }
}
