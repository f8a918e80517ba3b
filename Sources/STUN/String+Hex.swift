extension String {
    /// Two lower-case hex digits.
    init(format2 byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self.init([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
