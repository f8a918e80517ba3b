import Testing
@testable import SRTP

@Suite struct SRTPMasterKeyTests {
    @Test func keyIsNeverPrinted() throws {
        let key = try SRTPTestSupport.key(for: .default, seed: 0x41)
        #expect(key.description == "<redacted 30 bytes>")
        #expect(key.debugDescription == "<redacted 30 bytes>")
        #expect("\(key)" == "<redacted 30 bytes>")
        #expect(String(reflecting: key) == "<redacted 30 bytes>")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("65"), "dump must not reach the bytes: \(dumped)")  // 0x41 = 65
        #expect(dumped.contains("<redacted 30 bytes>"))
        #expect(Mirror(reflecting: key).children.isEmpty)
    }

    @Test(arguments: SRTPSuite.allCases)
    func randomKeysHaveSuiteLengthAndDiffer(_ suite: SRTPSuite) {
        let first = SRTPMasterKey.random(for: suite)
        let second = SRTPMasterKey.random(for: suite)
        #expect(first.count == suite.keyAndSaltLength)
        #expect(first != second)
    }

    /// An injected generator gives a reproducible key: each 64-bit draw fills 8 bytes, little-endian.
    @Test func injectedGeneratorFillsBytesInOrder() {
        struct Counter: RandomNumberGenerator {
            var state: UInt64 = 0x0706_0504_0302_0100
            mutating func next() -> UInt64 {
                defer { state &+= 0x0808_0808_0808_0808 }
                return state
            }
        }
        var generator = Counter()
        let key = SRTPMasterKey.random(for: .aeadAES128GCM, using: &generator)
        key.withUnsafeBytes { bytes in
            #expect(Array(bytes) == Array(0..<28))
        }
    }

    @Test func keyAndSaltParts() throws {
        let key = try SRTPMasterKey(key: [UInt8](repeating: 1, count: 16), salt: [UInt8](repeating: 2, count: 14),
                                    for: .default)
        key.withUnsafeBytes { bytes in
            #expect(Array(bytes) == [UInt8](repeating: 1, count: 16) + [UInt8](repeating: 2, count: 14))
        }
        #expect(throws: SRTPKeyError.invalidLength(suite: .aeadAES256GCM, expected: 44, actual: 46)) {
            try SRTPMasterKey(key: [UInt8](repeating: 1, count: 32), salt: [UInt8](repeating: 2, count: 14),
                              for: .aeadAES256GCM)
        }
        #expect(throws: SRTPKeyError.invalidLength(suite: .aesCM128HMACSHA1_32, expected: 30, actual: 29)) {
            try SRTPMasterKey(keyAndSalt: [UInt8](repeating: 0, count: 29), for: .aesCM128HMACSHA1_32)
        }
    }
}
