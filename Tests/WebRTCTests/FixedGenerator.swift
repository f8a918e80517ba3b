/// A generator with a fixed sequence, so that tie-breakers are chosen by the test.
struct FixedGenerator: RandomNumberGenerator {
    var values: [UInt64]
    mutating func next() -> UInt64 { values.isEmpty ? 0x1234_5678 : values.removeFirst() }
}
