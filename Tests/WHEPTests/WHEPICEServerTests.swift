import Foundation
import STUN
import Testing
import TestSupport
@testable import WebRTC
@testable import WHEP

/// A WHEP server with ICE servers (behind a NAT or a firewall): each viewer gets a full agent (controlled) and an
/// answer carrying its server-reflexive candidate, gathered from the viewer's own socket before the answer; a server
/// that does not answer delays the answer by the gathering timeout only. Over loopback with a STUN responder that
/// reports a mapped address of its choosing (coturn and a real NAT: Interop/whep-turn.sh).
@Suite(.serialized) struct WHEPICEServerTests {
    /// The address our STUN responder says it saw (TEST-NET-1, RFC 5737).
    static let mapped = "192.0.2.7"

    /// Answers every Binding request on `socket` with XOR-MAPPED-ADDRESS `mapped`:<the request's source port>.
    static func respond(on socket: RawUDPSocket) -> Task<Int, Never> {
        Task.detached {
            var answered = 0
            while !Task.isCancelled {
                guard let (bytes, port) = socket.receive() else {
                    try? await Task.sleep(for: .milliseconds(2))
                    continue
                }
                guard let request = try? STUNMessage(parsing: bytes), request.type.method == STUNMessageType.bindingMethod,
                      request.type.messageClass == .request
                else { continue }
                let address = TransportAddress(ip: IPAddress(mapped)!, port: UInt16(port))
                let response = STUNMessage(
                    type: STUNMessageType(method: STUNMessageType.bindingMethod, messageClass: .successResponse),
                    transactionID: request.transactionID, attributes: [.xorMappedAddress(address)])
                if let bytes = try? response.serialized(fingerprint: true) {
                    try? socket.send(bytes, toPort: port)
                    answered += 1
                }
            }
            return answered
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aSTUNServerGivesAFullAgentAndAServerReflexiveCandidate() async throws {
        let stun = try RawUDPSocket()
        let responder = Self.respond(on: stun)
        var options = WHEPServer.Options(host: "127.0.0.1", port: 0)
        options.iceServers = [try ICEServer(uri: "stun:127.0.0.1:\(stun.port)")]
        let (server, pump) = try await WHEPTestSupport.start(options)
        defer { pump.cancel() }
        let viewer = try await TestViewer(serverPort: server.localPort, iceLite: false)
        let answer = try JSEPSessionDescription(parsing: viewer.answerSDP)
        let candidates = try answer.remoteTransport(for: try #require(answer.media.first)).candidates
        #expect(candidates.count == 2)
        #expect(candidates.first?.kind == .host)
        let srflx = try #require(candidates.last)
        #expect(srflx.kind == .srflx)
        #expect(srflx.address == Self.mapped && Int(srflx.port) == viewer.serverPort)
        #expect(viewer.answerSDP.contains("raddr 127.0.0.1 rport \(viewer.serverPort)"))
        #expect(try await WHEPTestSupport.waitFor { try await viewer.isConnected }, "the viewer did not connect")
        #expect(try await WHEPTestSupport.waitFor { try await viewer.mediaPackets().count > 10 })
        let stats = try #require(await server.viewers().first)
        #expect(stats.connected)
        #expect(stats.localCandidateType == "host")  // a server-reflexive candidate is checked from its base
        #expect(stats.relayProtocol == nil)
        #expect(stats.remoteCandidateType == "host")  // the viewer's offered host candidate
        await viewer.close()
        await server.finish()
        responder.cancel()
        #expect(await responder.value >= 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func aSilentServerDelaysTheAnswerByTheGatheringTimeoutOnly() async throws {
        let silent = try RawUDPSocket()  // bound, never answers
        var options = WHEPServer.Options(host: "127.0.0.1", port: 0)
        options.iceServers = [try ICEServer(uri: "stun:127.0.0.1:\(silent.port)")]
        options.iceGatheringTimeout = .milliseconds(300)
        let (server, pump) = try await WHEPTestSupport.start(options)
        defer { pump.cancel() }
        let started = ContinuousClock.now
        let viewer = try await TestViewer(serverPort: server.localPort, iceLite: false)
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(300) && waited < .seconds(5), "\(waited)")
        let answer = try JSEPSessionDescription(parsing: viewer.answerSDP)
        #expect(try answer.remoteTransport(for: try #require(answer.media.first)).candidates.map(\.kind) == [.host])
        #expect(try await WHEPTestSupport.waitFor { try await viewer.isConnected }, "the viewer did not connect")
        #expect(silent.receive() != nil, "the STUN server was never asked")
        await viewer.close()
        await server.finish()
    }

    @Test(.timeLimit(.minutes(1)))
    func aFullAgentChecksTheCandidatesAViewerTrickles() async throws {
        let silent = try RawUDPSocket()
        var options = WHEPServer.Options(host: "127.0.0.1", port: 0)
        options.iceServers = [try ICEServer(uri: "stun:127.0.0.1:\(silent.port)")]
        options.iceGatheringTimeout = .milliseconds(100)
        let (server, pump) = try await WHEPTestSupport.start(options)
        defer { pump.cancel() }
        let viewer = try await TestViewer(serverPort: server.localPort, iceLite: false)
        #expect(try await WHEPTestSupport.waitFor { try await viewer.isConnected }, "the viewer did not connect")
        // Another address of the viewer's, trickled: the server's agent sends its connectivity check there.
        let other = try RawUDPSocket()
        let trickled = try await WHEPTrickleTests.patch(
            server.localPort, viewer.location, ifMatch: viewer.etag,
            WHEPTrickleTests.fragment(viewer.credentials, candidates: ["9 1 udp 2122260223 127.0.0.1 \(other.port) typ host"]))
        #expect(trickled.status == 204)
        var check: STUNMessage?
        for _ in 0..<200 where check == nil {
            if let (bytes, port) = other.receive(), port == viewer.serverPort { check = try? STUNMessage(parsing: bytes) }
            try await Task.sleep(for: .milliseconds(10))
        }
        let request = try #require(check, "no check reached the trickled candidate")
        #expect(request.type.method == STUNMessageType.bindingMethod && request.type.messageClass == .request)
        #expect(try #require(await server.viewers().first).trickledCandidates == 1)
        await viewer.close()
        await server.finish()
    }

    @Test(arguments: [
        ("::1", "stun:127.0.0.1", Duration.seconds(3), "ICE servers are IPv4 only"),
        ("127.0.0.1", "stun:127.0.0.1", Duration.milliseconds(10), "the ICE gathering timeout must be 0.1-10 s"),
        ("127.0.0.1", "stun:127.0.0.1", Duration.seconds(11), "the ICE gathering timeout must be 0.1-10 s"),
        ("127.0.0.1", "stun:no-such-host.invalid", Duration.seconds(3), "stun:no-such-host.invalid:3478: the host name 'no-such-host.invalid' does not resolve"),
        ("127.0.0.1", "stuns:127.0.0.1", Duration.seconds(3), "STUN over TLS (stuns:) is not supported"),
    ])
    func unusableICEServersStopTheServerFromStarting(host: String, uri: String, timeout: Duration, message: String) async throws {
        var options = WHEPServer.Options(host: host, port: 0)
        options.iceServers = [try ICEServer(uri: uri)]
        options.iceGatheringTimeout = timeout
        do {
            let server = try await WHEPServer(configuration: WHEPTestSupport.configuration(), options: options)
            await server.finish()
            Issue.record("the server started with \(uri) on \(host)")
        } catch let error as WHEPServerError {
            #expect("\(error)".contains(message), "\(error)")
        }
    }
}
