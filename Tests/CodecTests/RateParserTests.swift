import Testing
@testable import Codec

@Suite struct RateParserTests {
    @Test(arguments: [
        ("1.5M", 1_500_000), ("800k", 800_000), ("800K", 800_000), ("1500000", 1_500_000), ("2G", 2_000_000_000),
        ("800kbps", 800_000), ("1_000_000", 1_000_000), ("64 kbit/s", 64_000),
    ])
    func parsesBitrates(text: String, bps: Int) throws {
        #expect(try RateParser.bitrate(text) == bps)
    }

    @Test(arguments: [
        ("", RateParser.Error.notARate("")), ("fast", .notARate("fast")), ("1.5X", .notARate("1.5X")),
        ("0", .notPositive("0")), ("-1M", .notPositive("-1M")), ("nan", .notARate("nan")), ("1e400", .notARate("1e400")),
    ])
    func rejectsBadBitrates(text: String, error: RateParser.Error) {
        #expect(throws: error) { try RateParser.bitrate(text) }
    }

    @Test func parsesFrameRates() throws {
        #expect(try RateParser.frameRate("30") == 30)
        #expect(try RateParser.frameRate("29.97fps") == 29.97)
        #expect(throws: RateParser.Error.notPositive("0")) { try RateParser.frameRate("0") }
    }

    @Test func formatsBitrates() {
        #expect(RateParser.format(bitrate: 1_500_000) == "1.5 Mbit/s")
        #expect(RateParser.format(bitrate: 800_000) == "800 kbit/s")
        #expect(RateParser.format(bitrate: 999) == "999 bit/s")
    }
}
