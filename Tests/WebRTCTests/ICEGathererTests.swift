import MediaTime
import STUN
import Testing
import TURN
@testable import WebRTC

/// The gatherer against simulated STUN and TURN servers on a virtual clock: the candidates and their priorities
/// (RFC 8445 section 5.1.2), redundant ones left out, a silent server given up, and the traffic of a relayed
/// candidate wrapped for its server (permission first, Send indication, then ChannelData) and unwrapped in place.
@Suite struct ICEGathererTests {
    static let base = TransportAddress(ipString: "10.0.0.2", port: 40_000)!
    static let otherHost = TransportAddress(ipString: "10.1.0.2", port: 40_000)!
    static let natted = TransportAddress(ipString: "198.51.100.4", port: 61_000)!
    static let stunAddress = TransportAddress(ipString: "192.0.2.1", port: 3478)!
    static let turnAddress = TransportAddress(ipString: "192.0.2.2", port: 3478)!
    static let relayed = TransportAddress(ipString: "192.0.2.2", port: 50_001)!
    static let peer = TransportAddress(ipString: "203.0.113.7", port: 5_000)!
    static let credential = LongTermCredential(username: "robot", password: "s3cret")
    static let t0 = MonotonicTime(nanoseconds: 1_000_000_000)

    static func gatherer() -> ICEGatherer {
        var generator = SplitMix64(seed: 7)
        return ICEGatherer(base: base, hostAddresses: [base, otherHost], using: &generator)
    }

    static let stun = ICEGatherer.Server(address: stunAddress, kind: .stun, name: "stun:192.0.2.1:3478")
    static let turn = ICEGatherer.Server(address: turnAddress, kind: .turn(credential), name: "turn:192.0.2.2:3478")

    /// Delivers the gatherer's transmits to the servers and their answers back until nothing moves.
    static func exchange(_ gatherer: inout ICEGatherer, _ servers: inout [SimulatedTURNServer], now: MonotonicTime,
                         toPeer: (TransportAddress, [UInt8]) -> Void = { _, _ in }) {
        while let transmit = gatherer.pollTransmit() {
            guard let index = servers.firstIndex(where: { $0.address == transmit.destination }) else { continue }
            for output in servers[index].handle(transmit.bytes) {
                switch output {
                case .toClient(let bytes):
                    #expect(gatherer.handle(bytes, from: servers[index].address, now: now) == .consumed)
                case .toPeer(let peer, let bytes):
                    toPeer(peer, bytes)
                }
            }
        }
    }

    static func server(_ address: TransportAddress, mapped: TransportAddress = natted) -> SimulatedTURNServer {
        SimulatedTURNServer(address: address, relayed: relayed, mapped: mapped, credential: credential)
    }

    /// Behind a NAT: a server-reflexive candidate from STUN (the TURN server's mapped address is the same one, so it
    /// is not repeated) and a relayed one, with RFC 8445's type preferences (srflx 100, relay 0) and the related
    /// addresses RFC 8839 asks for.
    @Test func gathersReflexiveAndRelayedCandidatesWithTheirPriorities() throws {
        var gatherer = Self.gatherer()
        var servers = [Self.server(Self.stunAddress), Self.server(Self.turnAddress)]
        gatherer.add(Self.stun, now: Self.t0)
        gatherer.add(Self.turn, now: Self.t0)
        gatherer.add(Self.stun, now: Self.t0)  // once only
        #expect(gatherer.servers.count == 2 && !gatherer.isComplete)
        Self.exchange(&gatherer, &servers, now: Self.t0)
        #expect(gatherer.isComplete)
        #expect(servers[1].requests == ["unauthenticated", "Allocate"])
        #expect(gatherer.candidates.map(\.sdpValue) == [
            "srflx1 1 udp \(100 << 24 | 65_535 << 8 | 255) 198.51.100.4 61000 typ srflx raddr 10.0.0.2 rport 40000",
            "relay2 1 udp \(0 << 24 | 65_534 << 8 | 255) 192.0.2.2 50001 typ relay raddr 198.51.100.4 rport 61000",
        ])
        #expect(gatherer.candidates.map(\.priority) == [1_694_498_815, 16_776_959])
        // Host preference 126 beats both (RFC 8445 section 5.1.2.2).
        #expect(ICECandidate.host(Self.base).priority > gatherer.candidates[0].priority)
        var events: [ICEGatherer.Event] = []
        while let event = gatherer.pollEvent() { events.append(event) }
        #expect(events == gatherer.candidates.map { .candidate($0) })
        #expect(gatherer.failures.isEmpty)
        #expect(gatherer.isRelayed(Self.relayed) && !gatherer.isRelayed(Self.base))
        #expect(gatherer.server(relaying: Self.relayed)?.name == "turn:192.0.2.2:3478")
        #expect(gatherer.pollTimeout() != nil, "the allocation is refreshed")
    }

    /// Without a NAT the server-reflexive address is a host candidate: redundant, left out (RFC 8445 section 5.1.3).
    /// A server that never answers is given up after the timeout, its reason kept; gathering is then complete.
    @Test func redundantCandidatesAreLeftOutAndASilentServerIsGivenUp() throws {
        var gatherer = Self.gatherer()
        var servers = [Self.server(Self.stunAddress, mapped: Self.otherHost)]
        let silent = ICEGatherer.Server(address: TransportAddress(ipString: "192.0.2.9", port: 3478)!, kind: .stun,
                                        name: "stun:192.0.2.9:3478")
        gatherer.add(Self.stun, now: Self.t0)
        gatherer.add(silent, now: Self.t0)
        Self.exchange(&gatherer, &servers, now: Self.t0)
        #expect(gatherer.candidates.isEmpty)
        #expect(!gatherer.isComplete)
        var now = Self.t0
        var retransmissions = 0
        while !gatherer.isComplete, let due = gatherer.pollTimeout() {
            now = due
            gatherer.handleTimeout(now: now)
            while gatherer.pollTransmit() != nil { retransmissions += 1 }
        }
        #expect(now == Self.t0 + ICEGatherer.defaultTimeout)
        #expect(retransmissions == 3, "0.5, 1.5 and 3.5 s: RFC 8489's schedule within 5 s")
        #expect(gatherer.failures == ["stun:192.0.2.9:3478: no answer within 5 s"])
        #expect(gatherer.pollTimeout() == nil)
        // An answer that comes late changes nothing.
        #expect(gatherer.handle([0, 1, 0, 0], from: silent.address, now: now) == .consumed)
        #expect(gatherer.handle([0, 1, 0, 0], from: Self.peer, now: now) == .notFromServer)
    }

    /// One server over UDP and over TCP at the same address (as hosted services list it): each client's messages say
    /// how they travel, an answer counts only for the client on the transport it came over, a relayed route names its
    /// transport, and a TCP connection that breaks fails that server alone (while gathering) or loses its relay.
    @Test func aServerOverTCPIsKeptApartFromTheSameAddressOverUDP() throws {
        var gatherer = Self.gatherer()
        let tcp = ICEGatherer.Server(address: Self.turnAddress, kind: .turn(Self.credential),
                                     name: "turn:192.0.2.2:3478?transport=tcp", transport: .tcp)
        var server = Self.server(Self.turnAddress)
        gatherer.add(tcp, now: Self.t0)
        gatherer.add(Self.turn, now: Self.t0)
        var transmits: [ICEGatherer.Transmit] = []
        while let transmit = gatherer.pollTransmit() { transmits.append(transmit) }
        #expect(transmits.map(\.transport) == [.tcp, .udp])
        // The TCP client's unauthenticated Allocate, answered (401) over TCP: the TCP client goes on, with an
        // authenticated Allocate over TCP; the same answer over UDP matches no UDP transaction and changes nothing.
        let answers = server.handle(transmits[0].bytes).compactMap { output -> [UInt8]? in
            if case .toClient(let bytes) = output { return bytes }
            return nil
        }
        #expect(answers.count == 1)
        #expect(gatherer.handle(answers[0], from: Self.turnAddress, over: .udp, now: Self.t0) == .consumed)
        #expect(gatherer.pollTransmit() == nil)
        #expect(gatherer.handle(answers[0], from: Self.turnAddress, over: .tcp, now: Self.t0) == .consumed)
        let polled = gatherer.pollTransmit()
        let next = try #require(polled)
        #expect(next.transport == .tcp)
        for output in server.handle(next.bytes) {
            if case .toClient(let bytes) = output { _ = gatherer.handle(bytes, from: Self.turnAddress, over: .tcp, now: Self.t0) }
        }
        // A TCP allocation's mapped address is the connection's: no srflx from it, the relay related to the base.
        #expect(gatherer.candidates.map(\.sdpValue) == [
            "relay1 1 udp \(0 << 24 | 65_535 << 8 | 255) 192.0.2.2 50001 typ relay raddr 10.0.0.2 rport 40000",
        ])
        #expect(gatherer.server(relaying: Self.relayed)?.transport == .tcp)
        #expect(!gatherer.isComplete, "the UDP client still waits")
        // A datagram from the TCP server's address over UDP is not the TCP client's.
        #expect(gatherer.handle([0, 1, 0, 0], from: Self.turnAddress, over: .tls, now: Self.t0) == .notFromServer)

        // The TCP connection breaks: the relay is lost (gathering from it ended); the UDP server is unaffected.
        gatherer.connectionFailed(to: Self.turnAddress, over: .tcp, reason: "the server closed the TCP connection")
        var events: [ICEGatherer.Event] = []
        while let event = gatherer.pollEvent() { events.append(event) }
        #expect(events.last == .relayLost(relayed: Self.relayed, reason: "the server closed the TCP connection"))
        #expect(!gatherer.isRelayed(Self.relayed))
        // Before it answers, a broken connection is the server's gathering failure, named.
        gatherer.connectionFailed(to: Self.turnAddress, over: .udp, reason: "not a stream")  // UDP entries: the same rule
        #expect(gatherer.isComplete)
        #expect(gatherer.failures == ["turn:192.0.2.2:3478: not a stream"])
    }

    /// A wrong credential: the server's refusal is the failure, named, with no candidate.
    @Test func aRefusedCredentialIsAFailure() throws {
        var gatherer = Self.gatherer()
        var servers = [SimulatedTURNServer(address: Self.turnAddress, relayed: Self.relayed, mapped: Self.natted,
                                           credential: LongTermCredential(username: "robot", password: "other"))]
        gatherer.add(Self.turn, now: Self.t0)
        Self.exchange(&gatherer, &servers, now: Self.t0)
        #expect(gatherer.isComplete && gatherer.candidates.isEmpty)
        #expect(gatherer.failures.count == 1)
        #expect(gatherer.failures.first?.hasPrefix("turn:192.0.2.2:3478: TURN server 192.0.2.2:3478 refused the credential") == true)
        #expect(gatherer.failures.first?.contains("s3cret") == false)
    }

    /// A relayed candidate's datagrams: the first waits for the peer's permission, then goes as a Send indication;
    /// after ChannelBind as ChannelData, and `route` names the server and channel. The peer's answers come back as
    /// `.relayed` with where the data lies in the datagram, both framings.
    @Test func wrapsAndUnwrapsTheTrafficOfARelayedCandidate() throws {
        var gatherer = Self.gatherer()
        var servers = [Self.server(Self.turnAddress)]
        gatherer.add(Self.turn, now: Self.t0)
        Self.exchange(&gatherer, &servers, now: Self.t0)
        var delivered: [(TransportAddress, [UInt8])] = []

        gatherer.send([1, 2, 3], from: Self.relayed, to: Self.peer, now: Self.t0)
        gatherer.send([4, 5], from: Self.relayed, to: Self.peer, now: Self.t0)
        gatherer.send([9], from: Self.base, to: Self.peer, now: Self.t0)  // not a relayed candidate: dropped
        Self.exchange(&gatherer, &servers, now: Self.t0) { delivered.append(($0, $1)) }
        #expect(servers[0].requests.suffix(1) == ["CreatePermission 203.0.113.7"], "one permission for both")
        #expect(delivered.map(\.0) == [Self.peer, Self.peer])
        #expect(delivered.map(\.1) == [[1, 2, 3], [4, 5]], "in order, once the permission is installed")
        #expect(gatherer.route(from: Self.relayed, to: Self.peer) == nil)

        // The peer answers: a Data indication, read in place.
        let indication = try #require(servers[0].fromPeer([7, 7, 7], peer: Self.peer))
        guard case .relayed(let from, let relayed, let range) = gatherer.handle(indication, from: Self.turnAddress, now: Self.t0)
        else { Issue.record("not relayed"); return }
        #expect(from == Self.peer && relayed == Self.relayed && Array(indication[range]) == [7, 7, 7])
        // From a stranger (no permission): the server would not relay it; a forged one is refused by the client.
        let stranger = TransportAddress(ipString: "203.0.113.99", port: 1)!
        let forged = STUNMessage(
            type: STUNMessageType(method: STUNMessageType.dataMethod, messageClass: .indication),
            transactionID: STUNTransactionID(high: 1, low: 1), attributes: [.xorPeerAddress(stranger), .data([6])])
        #expect(gatherer.handle(try forged.serialized(), from: Self.turnAddress, now: Self.t0) == .consumed)

        // A channel for the selected pair: ChannelData both ways.
        gatherer.bindChannel(from: Self.relayed, to: Self.peer, now: Self.t0)
        Self.exchange(&gatherer, &servers, now: Self.t0)
        var events: [ICEGatherer.Event] = []
        while let event = gatherer.pollEvent() { events.append(event) }
        #expect(events == gatherer.candidates.map { .candidate($0) } + [.channelBound(relayed: Self.relayed, peer: Self.peer)])
        let route = try #require(gatherer.route(from: Self.relayed, to: Self.peer))
        #expect(route.server == Self.turnAddress && route.channel == 0x4000)
        delivered.removeAll()
        gatherer.send([8, 8], from: Self.relayed, to: Self.peer, now: Self.t0)
        let polled = gatherer.pollTransmit()
        let channelData = try #require(polled)
        #expect(channelData.bytes == [0x40, 0x00, 0x00, 0x02, 8, 8])
        let back = try #require(servers[0].fromPeer([1, 2, 3, 4, 5], peer: Self.peer))
        #expect(gatherer.handle(back, from: Self.turnAddress, now: Self.t0)
            == .relayed(peer: Self.peer, relayed: Self.relayed, data: 4..<9))

        // Closing releases the allocation.
        gatherer.close(now: Self.t0)
        Self.exchange(&gatherer, &servers, now: Self.t0)
        #expect(servers[0].released)
        #expect(!gatherer.isRelayed(Self.relayed))
    }
}
