import Testing
@testable import STUN

/// Mutated and random datagrams never trap the parser: each either parses or throws a `STUNError`.
@Suite struct STUNFuzzTests {
    @Test func mutatedVectorsNeverTrap() {
        var generator = SplitMix64(seed: 5769)
        let seeds = [RFC5769VectorTests.request, RFC5769VectorTests.responseIPv4, RFC5769VectorTests.responseIPv6,
                     RFC5769VectorTests.longTermRequest]
        var parsed = 0
        var rejected = 0
        for _ in 0..<20_000 {
            var bytes = seeds[Int.random(in: 0..<seeds.count, using: &generator)]
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:  // flip bytes
                for _ in 0...Int.random(in: 0..<4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
            case 1:  // truncate, fixing the header length half of the time
                bytes.removeLast(Int.random(in: 0..<(bytes.count - 20), using: &generator) & ~3)
                if Bool.random(using: &generator) { bytes[3] = UInt8((bytes.count - 20) & 0xFF) }
            case 2:  // corrupt an attribute length
                let offset = 20 + 4 * Int.random(in: 0..<((bytes.count - 20) / 4), using: &generator)
                bytes[offset + 2] = UInt8.random(in: 0...255, using: &generator)
                bytes[offset + 3] = UInt8.random(in: 0...255, using: &generator)
            default:  // random tail after a valid header
                bytes = Array(bytes.prefix(20)) + (0..<Int.random(in: 0..<64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
                bytes[2] = 0
                bytes[3] = UInt8((bytes.count - 20) & 0xFC)
            }
            do {
                let message = try STUNMessage(parsing: bytes)
                _ = message.hasValidIntegrity(key: RFC5769VectorTests.shortTermPassword)
                parsed += 1
            } catch {
                rejected += 1
            }
        }
        #expect(parsed + rejected == 20_000)
        #expect(rejected > 10_000)  // almost every mutation is caught (FINGERPRINT alone catches most)
    }
}
