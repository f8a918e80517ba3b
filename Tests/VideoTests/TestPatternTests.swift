import Testing
@testable import Video

@Suite struct TestPatternTests {
    @Test func deterministicAndMoving() throws {
        let pattern = try TestPattern(width: 320, height: 240)
        let a = pattern.frame(7)
        var b = I420Frame(width: 320, height: 240)
        pattern.render(frameIndex: 7, into: &b)
        #expect(a == b)
        #expect(pattern.frame(8) != a)
        // A second pattern object renders the same picture.
        #expect(try TestPattern(width: 320, height: 240).frame(7) == a)
    }

    @Test func counterIsBurntIn() throws {
        // 160x120: font scale 1, margin 2; the last digit's box starts at x = 2 + 5 * 6 = 32, y = 2.
        let pattern = try TestPattern(width: 160, height: 120)
        func digitPixels(_ frame: I420Frame) -> [UInt8] {
            (0..<7).flatMap { row in (0..<5).map { frame.data[(2 + row) * 160 + 32 + $0] } }
        }
        let one = digitPixels(pattern.frame(1))
        // Glyph "1": 00100 01100 00100 00100 00100 00100 01110 (235 = set, 16 = background).
        let glyph: [UInt8] = DigitFont.glyphs[1].flatMap { bits in
            (0..<5).map { column -> UInt8 in bits & (1 << (4 - column)) != 0 ? 235 : 16 }
        }
        #expect(one == glyph)
        #expect(digitPixels(pattern.frame(2)) != one)
        // Frame 123: hundreds digit at position 3 (x = 2 + 3 * 6 = 20) shows "1".
        let f123 = pattern.frame(123)
        let hundreds = (0..<7).flatMap { row in (0..<5).map { f123.data[(2 + row) * 160 + 20 + $0] } }
        #expect(hundreds == one)
    }

    @Test func refusesOddOrTinySizes() {
        #expect(throws: VideoError.invalidSize(width: 15, height: 16)) { _ = try TestPattern(width: 15, height: 16) }
        #expect(throws: VideoError.invalidSize(width: 8, height: 8)) { _ = try TestPattern(width: 8, height: 8) }
    }
}
