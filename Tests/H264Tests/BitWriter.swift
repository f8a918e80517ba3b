import H264

/// Test helper: writes the bit-level syntax that ``BitReader`` reads, to build parameter sets field by field.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    mutating func bit(_ value: Bool) {
        if bitCount % 8 == 0 { bytes.append(0) }
        if value { bytes[bytes.count - 1] |= 0x80 >> UInt8(bitCount % 8) }
        bitCount += 1
    }

    mutating func u(_ count: Int, _ value: UInt64) {
        for i in stride(from: count - 1, through: 0, by: -1) { bit(value >> UInt64(i) & 1 == 1) }
    }

    mutating func ue(_ value: UInt64) {
        let codeNum = value + 1
        let length = 64 - codeNum.leadingZeroBitCount
        u(length - 1, 0)
        u(length, codeNum)
    }

    mutating func se(_ value: Int64) {
        ue(value > 0 ? UInt64(2 * value - 1) : UInt64(-2 * value))
    }

    /// `rbsp_trailing_bits()`: a stop bit, then zeros to the byte boundary.
    mutating func trailingBits() {
        bit(true)
        while bitCount % 8 != 0 { bit(false) }
    }

    /// The RBSP with trailing bits, escaped and behind a NAL header byte.
    func nalUnit(header: UInt8) -> [UInt8] {
        var copy = self
        copy.trailingBits()
        return [header] + RBSP.addingEmulationPrevention(copy.bytes)
    }
}
