import Testing
@testable import Codec

@Suite struct BitrateNotationTests {
    @Test(arguments: [("1500000", 1_500_000), ("1.5M", 1_500_000), ("1.5m", 1_500_000), ("800k", 800_000),
                      ("800K", 800_000), ("2M", 2_000_000), ("0.5k", 500), ("64000", 64_000)])
    func parses(text: String, expected: Int) {
        #expect(BitrateNotation.parse(text) == expected)
    }

    @Test(arguments: ["", "k", "M", "0", "-1M", "abc", "1.5G", "3000M", "nan", "0.0001"])
    func refuses(text: String) {
        #expect(BitrateNotation.parse(text) == nil)
    }

    @Test(arguments: [(1_500_000, "1.5M"), (2_000_000, "2M"), (800_000, "800k"), (1_234, "1234"), (1_250_000, "1250k")])
    func formats(value: Int, expected: String) {
        #expect(BitrateNotation.format(value) == expected)
    }
}
