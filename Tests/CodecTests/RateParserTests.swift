import Testing
@testable import Codec

@Suite struct RateParserTests {
    @Test(arguments: [
        ("1.5M", 1_500_000), ("800k", 800_000), ("800K", 800_000), ("1500000", 1_500_000), ("2G", 2_000_000_000),
        ("800kbps", 800_000), ("1_000_000", 1_000_000), ("64 kbit/s", 64_000), ("1", 1), ("0.5", 1),
        ("1e12", 1_000_000_000_000), ("1000G", 1_000_000_000_000),
    ])
    func parsesBitrates(text: String, bps: Int) throws {
        #expect(try RateParser.bitrate(text) == bps)
    }

    /// Issue 11 item 1: every hostile number is a typed error with its exact text, never a trap. `-1e30` trapped in
    /// `Int(Double)` on 9c36cd3 (only the upper bound was checked); `9e18` parsed and then overflowed the 1.5x ceiling.
    static let badBitrates: [(String, RateParser.Error, String)] = [
        ("", .notARate(""), "'' is not a rate (examples: 1.5M, 800k, 1500000)"),
        ("fast", .notARate("fast"), "'fast' is not a rate (examples: 1.5M, 800k, 1500000)"),
        ("1.5X", .notARate("1.5X"), "'1.5X' is not a rate (examples: 1.5M, 800k, 1500000)"),
        ("nan", .notARate("nan"), "'nan' is not a rate (examples: 1.5M, 800k, 1500000)"),
        ("-nan", .notARate("-nan"), "'-nan' is not a rate (examples: 1.5M, 800k, 1500000)"),
        ("0", .notPositive("0"), "'0' must be greater than zero"),
        ("0.4", .notPositive("0.4"), "'0.4' must be greater than zero"),
        ("-1M", .notPositive("-1M"), "'-1M' must be greater than zero"),
        ("-1", .notPositive("-1"), "'-1' must be greater than zero"),
        ("-1e30", .notPositive("-1e30"), "'-1e30' must be greater than zero"),
        ("-1e+30", .notPositive("-1e+30"), "'-1e+30' must be greater than zero"),
        ("-inf", .notPositive("-inf"), "'-inf' must be greater than zero"),
        ("-9223372036854775808", .notPositive("-9223372036854775808"),
         "'-9223372036854775808' must be greater than zero"),
        ("inf", .tooLarge("inf", maximum: "1 Tbit/s"), "'inf' is above the maximum 1 Tbit/s"),
        ("1e400", .tooLarge("1e400", maximum: "1 Tbit/s"), "'1e400' is above the maximum 1 Tbit/s"),
        ("9e18", .tooLarge("9e18", maximum: "1 Tbit/s"), "'9e18' is above the maximum 1 Tbit/s"),
        ("1e30", .tooLarge("1e30", maximum: "1 Tbit/s"), "'1e30' is above the maximum 1 Tbit/s"),
        ("9223372036854775807", .tooLarge("9223372036854775807", maximum: "1 Tbit/s"),
         "'9223372036854775807' is above the maximum 1 Tbit/s"),
        ("1000000000001", .tooLarge("1000000000001", maximum: "1 Tbit/s"),
         "'1000000000001' is above the maximum 1 Tbit/s"),
        ("9e18G", .tooLarge("9e18G", maximum: "1 Tbit/s"), "'9e18G' is above the maximum 1 Tbit/s"),
        // Issue 20, item 8: `Double` reads hexadecimal; a rate is decimal.
        ("0x10", .notARate("0x10"), "'0x10' is not a rate (examples: 1.5M, 800k, 1500000)"),
        ("0x1p20", .notARate("0x1p20"), "'0x1p20' is not a rate (examples: 1.5M, 800k, 1500000)"),
        ("0X10k", .notARate("0X10k"), "'0X10k' is not a rate (examples: 1.5M, 800k, 1500000)"),
    ]

    @Test(arguments: badBitrates)
    func rejectsBadBitrates(text: String, error: RateParser.Error, message: String) {
        #expect(throws: error) { try RateParser.bitrate(text) }
        #expect(error.description == message)
    }

    @Test func rejectsHugeStringsWithoutParsingThem() {
        let digits = String(repeating: "9", count: 100_000)
        #expect(throws: RateParser.Error.notARate(String(repeating: "9", count: 64) + "... (100000 bytes)")) {
            try RateParser.bitrate(digits)
        }
        #expect(throws: RateParser.Error.notARate(String(repeating: "9", count: 64) + "... (100000 bytes)")) {
            try RateParser.frameRate(digits)
        }
    }

    @Test func parsesFrameRates() throws {
        #expect(try RateParser.frameRate("30") == 30)
        #expect(try RateParser.frameRate("29.97fps") == 29.97)
        #expect(try RateParser.frameRate("1000") == 1000)
    }

    @Test(arguments: [
        ("0", RateParser.Error.notPositive("0"), "'0' must be greater than zero"),
        ("-30", .notPositive("-30"), "'-30' must be greater than zero"),
        ("-inf", .notPositive("-inf"), "'-inf' must be greater than zero"),
        ("nan", .notARate("nan"), "'nan' is not a rate (examples: 1.5M, 800k, 1500000)"),
        ("0x1e", .notARate("0x1e"), "'0x1e' is not a rate (examples: 1.5M, 800k, 1500000)"),
        ("", .notARate(""), "'' is not a rate (examples: 1.5M, 800k, 1500000)"),
        ("inf", .tooLarge("inf", maximum: "1000 fps"), "'inf' is above the maximum 1000 fps"),
        ("1e300", .tooLarge("1e300", maximum: "1000 fps"), "'1e300' is above the maximum 1000 fps"),
    ])
    func rejectsBadFrameRates(text: String, error: RateParser.Error, message: String) {
        #expect(throws: error) { try RateParser.frameRate(text) }
        #expect(error.description == message)
    }

    @Test func formatsBitrates() {
        #expect(RateParser.format(bitrate: 1_500_000) == "1.5 Mbit/s")
        #expect(RateParser.format(bitrate: 800_000) == "800 kbit/s")
        #expect(RateParser.format(bitrate: 999) == "999 bit/s")
        #expect(RateParser.format(bitrate: 2_000_000_000) == "2 Gbit/s")
        #expect(RateParser.format(bitrate: 1_000_000_000_000) == "1 Tbit/s")
        #expect(RateParser.format(bitrate: .max) == "9223372.04 Tbit/s")
        #expect(RateParser.format(bitrate: .min) == "-9223372036854775808 bit/s")
    }
}
