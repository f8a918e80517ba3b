/// A 5x7 pixel font for the digits 0-9, used to burn the frame counter into the test pattern. Each glyph is seven rows
/// of five bits, most significant bit on the left.
enum DigitFont {
    /// Glyph width in font pixels.
    static let width = 5
    /// Glyph height in font pixels.
    static let height = 7

    /// Rows of each digit, `glyphs[d][row]`, bit 4 = leftmost column.
    static let glyphs: [[UInt8]] = [
        [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],  // 0
        [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],  // 1
        [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],  // 2
        [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110],  // 3
        [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],  // 4
        [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],  // 5
        [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],  // 6
        [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],  // 7
        [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],  // 8
        [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100],  // 9
    ]

    /// Whether font pixel (`column`, `row`) of `digit` is set.
    /// - Parameters:
    ///   - digit: 0...9.
    ///   - column: 0..<5.
    ///   - row: 0..<7.
    static func isSet(_ digit: Int, column: Int, row: Int) -> Bool {
        glyphs[digit][row] & (1 << (width - 1 - column)) != 0
    }
}
