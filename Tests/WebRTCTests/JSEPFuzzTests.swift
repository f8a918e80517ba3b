import Testing
import STUN
@testable import WebRTC

/// Mutated offers never trap the parser or the answerer: each either answers or throws a `JSEPError`.
@Suite struct JSEPFuzzTests {
    @Test func mutatedOffersNeverTrap() {
        var generator = SplitMix64(seed: 8829)
        let lines = ChromiumOffer.sdp.components(separatedBy: "\r\n")
        let junk = ["", "a=", "m=", "m=video", "m=video 99999 UDP/TLS/RTP/SAVPF 96", "a=rtpmap:96", "a=rtpmap:x H264/90000",
                    "a=fmtp:106", "a=fmtp:106 profile-level-id=zz;packetization-mode=9", "a=candidate:1",
                    "a=setup:", "a=fingerprint:sha-256", "a=ice-ufrag:", "a=rtcp-fb:", "a=extmap:x", "c=", "v=0", "\u{0}"]
        var answered = 0
        var rejected = 0
        for _ in 0..<300 {
            var mutated = lines
            for _ in 0...Int.random(in: 0..<5, using: &generator) {
                let index = Int.random(in: 0..<mutated.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: mutated.remove(at: index)
                case 1: mutated[index] = junk[Int.random(in: 0..<junk.count, using: &generator)]
                default: mutated.insert(junk[Int.random(in: 0..<junk.count, using: &generator)], at: index)
                }
            }
            do {
                let offer = try JSEPSessionDescription(parsing: mutated.joined(separator: "\r\n"))
                _ = try VideoAnswerer.answer(offer, video: JSEPNegotiationTests.video(),
                                             transport: JSEPNegotiationTests.serverTransport)
                answered += 1
            } catch {
                rejected += 1
            }
        }
        #expect(answered + rejected == 300)
        #expect(answered > 0)
        #expect(rejected > 0)
    }
}
