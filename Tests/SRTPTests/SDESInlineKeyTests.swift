import Foundation
import Testing
@testable import SRTP

@Suite struct SDESInlineKeyTests {
    /// RFC 4568 section 6.1's example key parameter: 30 bytes of key and salt, lifetime 2^20, MKI 1 of 32 bytes.
    static let rfcExample = "inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|2^20|1:32"
    /// The bytes `PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR` decodes to.
    static let rfcExampleBytes: [UInt8] = [
        0x3d, 0x2d, 0x6e, 0x40, 0x25, 0x5e, 0x78, 0x21, 0x42, 0x6a, 0x75, 0x66, 0x72, 0x39, 0x29, 0x3f,
        0x2c, 0x23, 0x35, 0x68, 0x5c, 0x60, 0x3d, 0x26, 0x5d, 0x7b, 0x71, 0x69, 0x50, 0x51,
    ]

    @Test func parsesRFC4568Example() throws {
        let inline = try SDESInlineKey(parsing: Self.rfcExample, for: .aesCM128HMACSHA1_80)
        #expect(inline.masterKey == (try SRTPMasterKey(keyAndSalt: Self.rfcExampleBytes, for: .default)))
        #expect(inline.lifetime == 1_048_576)
        #expect(inline.mki == SDESInlineKey.MKI(value: 1, length: 32))
        #expect(inline.keyParams == Self.rfcExample)
    }

    @Test func parsesKeyWithoutOptionalParts() throws {
        let inline = try SDESInlineKey(parsing: "inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR", for: .default)
        #expect(inline.lifetime == nil)
        #expect(inline.mki == nil)
        #expect(inline.keyParams == "inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR")
        let withMKIOnly = try SDESInlineKey(parsing: "inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|7:4", for: .default)
        #expect(withMKIOnly.lifetime == nil)
        #expect(withMKIOnly.mki == SDESInlineKey.MKI(value: 7, length: 4))
        let decimalLifetime = try SDESInlineKey(parsing: "inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|1000",
                                                for: .default)
        #expect(decimalLifetime.lifetime == 1000)
        #expect(decimalLifetime.keyParams == "inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|1000")
    }

    /// Each suite's key length survives the text form, with and without base64 padding.
    @Test(arguments: SRTPSuite.allCases)
    func roundTripsEverySuite(_ suite: SRTPSuite) throws {
        let key = try SRTPTestSupport.key(for: suite, seed: 0x40)
        let text = SDESInlineKey(masterKey: key, lifetime: 1 << 31).keyParams
        let parsed = try SDESInlineKey(parsing: text, for: suite)
        #expect(parsed.masterKey == key)
        #expect(parsed.lifetime == 1 << 31)
        #expect(text.hasSuffix("|2^31"))
        let unpadded = text.replacingOccurrences(of: "=", with: "")
        #expect(try SDESInlineKey(parsing: unpadded, for: suite).masterKey == key)
    }

    /// Known base64 of the AEAD_AES_128_GCM (28 bytes: 0, 1, ..., 27) and AES_256 (46 bytes) test keys.
    @Test func encodesPaddedBase64() throws {
        let gcm = SDESInlineKey(masterKey: try SRTPTestSupport.key(for: .aeadAES128GCM))
        #expect(gcm.keyParams == "inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw==")
        let aes256 = SDESInlineKey(masterKey: try SRTPTestSupport.key(for: .aes256CMHMACSHA1_80))
        #expect(aes256.keyParams == "inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLQ==")
    }

    struct BadInput: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let suite: SRTPSuite
        let error: SRTPKeyError
        var testDescription: String { name }
    }

    static let key30 = "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"

    static let badInputs: [BadInput] = [
        BadInput(name: "no key method", text: key30, suite: .default, error: .missingInlinePrefix),
        BadInput(name: "wrong key method", text: "uri:\(key30)", suite: .default, error: .missingInlinePrefix),
        BadInput(name: "upper-case method", text: "INLINE:\(key30)", suite: .default, error: .missingInlinePrefix),
        BadInput(name: "not base64", text: "inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaV!R", suite: .default,
                 error: .invalidBase64),
        BadInput(name: "empty key", text: "inline:", suite: .default,
                 error: .invalidLength(suite: .default, expected: 30, actual: 0)),
        BadInput(name: "base64 of one dangling char", text: "inline:PS1uQ", suite: .default, error: .invalidBase64),
        BadInput(name: "30 bytes for a GCM suite", text: "inline:\(key30)", suite: .aeadAES128GCM,
                 error: .invalidLength(suite: .aeadAES128GCM, expected: 28, actual: 30)),
        BadInput(name: "30 bytes for AES-256", text: "inline:\(key30)", suite: .aes256CMHMACSHA1_80,
                 error: .invalidLength(suite: .aes256CMHMACSHA1_80, expected: 46, actual: 30)),
        BadInput(name: "truncated key", text: "inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtx", suite: .default,
                 error: .invalidLength(suite: .default, expected: 30, actual: 27)),
        BadInput(name: "lifetime exponent too large", text: "inline:\(key30)|2^49", suite: .default,
                 error: .invalidLifetime("2^49")),
        BadInput(name: "lifetime zero", text: "inline:\(key30)|0", suite: .default, error: .invalidLifetime("0")),
        BadInput(name: "lifetime not a number", text: "inline:\(key30)|2^x", suite: .default,
                 error: .invalidLifetime("2^x")),
        BadInput(name: "empty lifetime", text: "inline:\(key30)|", suite: .default, error: .invalidLifetime("")),
        BadInput(name: "lifetime after MKI", text: "inline:\(key30)|1:4|2^20", suite: .default,
                 error: .invalidLifetime("2^20")),
        BadInput(name: "MKI length zero", text: "inline:\(key30)|1:0", suite: .default, error: .invalidMKI("1:0")),
        BadInput(name: "MKI length 129", text: "inline:\(key30)|1:129", suite: .default,
                 error: .invalidMKI("1:129")),
        BadInput(name: "MKI value too wide", text: "inline:\(key30)|256:1", suite: .default,
                 error: .invalidMKI("256:1")),
        BadInput(name: "MKI negative", text: "inline:\(key30)|-1:4", suite: .default, error: .invalidMKI("-1:4")),
        BadInput(name: "two MKIs", text: "inline:\(key30)|1:4|2:4", suite: .default, error: .invalidMKI("2:4")),
        BadInput(name: "four fields", text: "inline:\(key30)|2^20|1:4|x", suite: .default, error: .tooManyFields(4)),
    ]

    @Test(arguments: badInputs)
    func rejectsMalformedInput(_ input: BadInput) {
        #expect(throws: input.error) { try SDESInlineKey(parsing: input.text, for: input.suite) }
    }

    @Test func errorsNeverContainKeyMaterial() {
        for input in Self.badInputs {
            do {
                _ = try SDESInlineKey(parsing: input.text, for: input.suite)
                Issue.record("\(input.name) was accepted")
            } catch {
                #expect(!error.description.contains("PS1uQ"), "\(input.name): \(error)")
            }
        }
    }

    @Test func descriptionIsRedacted() throws {
        let inline = try SDESInlineKey(parsing: Self.rfcExample, for: .default)
        #expect(inline.description == "inline:<redacted 30 bytes>|lifetime 1048576|MKI 1:32")
        #expect(!"\(inline)".contains("PS1uQ"))
        #expect(!String(reflecting: inline).contains("PS1uQ"))
    }
}
