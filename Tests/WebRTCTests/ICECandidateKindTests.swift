import STUN
import Testing
@testable import WebRTC

/// The selected pair's remote type as `getStats()` names it: the signalled candidate's at that address, else
/// peer-reflexive.
@Suite struct ICECandidateKindTests {
    @Test func theSignalledTypeOrPeerReflexive() throws {
        let candidates = try [
            "1 1 udp 2122260223 192.0.2.10 40000 typ host",
            "2 1 udp 1686052607 198.51.100.7 40001 typ srflx raddr 192.0.2.10 rport 40000",
            "3 1 udp 41885439 203.0.113.9 50000 typ relay raddr 198.51.100.7 rport 40001",
            "4 1 udp 2122260223 abc.local 40002 typ host",
        ].map { try ICECandidate(parsing: $0) }
        let address = { (ip: String, port: UInt16) in TransportAddress(ip: IPAddress(ip)!, port: port) }
        #expect(ICECandidate.kind(of: address("192.0.2.10", 40000), among: candidates) == .host)
        #expect(ICECandidate.kind(of: address("198.51.100.7", 40001), among: candidates) == .srflx)
        #expect(ICECandidate.kind(of: address("203.0.113.9", 50000), among: candidates) == .relay)
        // Another port, an mDNS name's real address, nothing signalled: learnt from checks.
        #expect(ICECandidate.kind(of: address("192.0.2.10", 40001), among: candidates) == .prflx)
        #expect(ICECandidate.kind(of: address("192.0.2.99", 40002), among: candidates) == .prflx)
        #expect(ICECandidate.kind(of: address("192.0.2.10", 40000), among: []) == .prflx)
    }
}
