import STUN
import Testing
@testable import WebRTC
@testable import WebRTCTransport
@testable import WHIP

/// Which ICE servers the publisher gathers from, and how: `stun:`, and `turn:` over UDP or TCP and `turns:` (TLS)
/// with a credential, IPv4;
/// everything else refused with its reason before anything is sent; host names resolved once; the credential never
/// printed.
@Suite struct WHIPICEServerTests {
    @Test(arguments: [
        ("stuns:stun.example.net", "STUN over TLS (stuns:) is not supported: use stun:"),
        ("turns:turn.example.net?transport=udp", "TURN over DTLS (turns:...?transport=udp) is not supported: use turns: (TLS over TCP)"),
        ("turn:[2001:db8::1]", "IPv6 ICE servers are not supported yet (the socket is IPv4)"),
    ])
    func unsupportedServersAreRefusedWithTheirReason(uri: String, reason: String) throws {
        let server = try ICEServer(uri: uri, username: "robot", credential: "pw")
        #expect(server.unusableReason() == reason)
        var configuration = WHIPConfiguration(url: "https://sfu.example/whip")
        configuration.iceServers = [server]
        #expect(throws: WHIPError.iceServer(uri: server.uri, reason: reason)) { try configuration.validate() }
    }

    @Test func aTURNServerNeedsItsCredentialAndSTUNIsUselessAfterTheOffer() throws {
        #expect(try ICEServer(uri: "turn:turn.example.net").unusableReason()
            == "a turn: server needs a username and a credential (--ice-username, --ice-credential)")
        #expect(try ICEServer(uri: "turn:turn.example.net", username: "robot").unusableReason() != nil)
        #expect(try ICEServer(uri: "turn:turn.example.net", username: "robot", credential: "pw").unusableReason() == nil)
        #expect(try ICEServer(uri: "turn:turn.example.net?transport=udp", username: "r", credential: "p").unusableReason() == nil)
        #expect(try ICEServer(uri: "stun:stun.example.net").unusableReason() == nil)
        #expect(try ICEServer(uri: "turn:turn.example.net?transport=tcp", username: "r", credential: "p").unusableReason() == nil)
        #expect(try ICEServer(uri: "turns:turn.example.net", username: "r", credential: "p").unusableReason() == nil)
        #expect(try ICEServer(uri: "turns:turn.example.net?transport=tcp", username: "r", credential: "p").unusableReason() == nil)
        #expect(try ICEServer(uri: "turns:turn.example.net").unusableReason()
            == "a turns: server needs a username and a credential (--ice-username, --ice-credential)")
        #expect(try ICEServer(uri: "stun:stun.example.net").unusableReason(afterOffer: true)
            == "a server-reflexive candidate found after the offer cannot be signalled without trickle ICE")
    }

    @Test func hostNamesResolveToIPv4OnceAndTheCredentialStaysInside() async throws {
        #expect(try ICEServer.resolveIPv4("192.0.2.7") == IPAddress("192.0.2.7"))
        #expect(try ICEServer.resolveIPv4("localhost") == IPAddress("127.0.0.1"))
        let turn = try await ICEServer(uri: "turn:localhost:3479", username: "robot", credential: "s3cret").gathererServer()
        #expect(turn.address == TransportAddress(ipString: "127.0.0.1", port: 3479))
        #expect(turn.kind == .turn(LongTermCredential(username: "robot", password: "s3cret")))
        #expect(turn.name == "turn:localhost:3479")
        #expect(!"\(turn)".contains("s3cret"))
        #expect(turn.transport == .udp)
        // TCP and TLS: the same server, reached over a connection of its own (the default TLS port 5349).
        let tcp = try await ICEServer(uri: "turn:127.0.0.1?transport=tcp", username: "robot", credential: "s3cret").gathererServer()
        #expect(tcp.transport == .tcp && tcp.address == TransportAddress(ipString: "127.0.0.1", port: 3478))
        let tls = try await ICEServer(uri: "turns:localhost", username: "robot", credential: "s3cret").gathererServer()
        #expect(tls.transport == .tls && tls.address == TransportAddress(ipString: "127.0.0.1", port: 5349))
        let stun = try await ICEServer(uri: "stun:127.0.0.1").gathererServer()
        #expect(stun.kind == .stun && stun.address == TransportAddress(ipString: "127.0.0.1", port: 3478))
        await #expect(throws: ICEServerUnusable.self) { try await ICEServer(uri: "stuns:127.0.0.1").gathererServer() }

        var configuration = WHIPConfiguration(url: "https://sfu.example/whip", token: "t")
        configuration.iceServers = [try ICEServer(uri: "turn:turn.example.net", username: "robot", credential: "s3cret")]
        #expect(throws: Never.self) { try configuration.validate() }
        for text in ["\(configuration)", String(reflecting: configuration)] {
            #expect(!text.contains("s3cret") && text.contains("turn:turn.example.net:3478 (user robot, credential <redacted>)"))
        }
    }
}
