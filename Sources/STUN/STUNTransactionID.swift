/// The 96-bit transaction ID of a STUN message (RFC 8489 section 6): chosen at random by the client, echoed in the
/// response, and mixed into IPv6 XOR-MAPPED-ADDRESS.
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    /// The first 32 bits.
    public var high: UInt32
    /// The last 64 bits.
    public var low: UInt64

    /// The length of the field in bytes.
    public static let byteCount = 12

    /// Creates an ID from its two parts.
    /// - Parameters:
    ///   - high: The first 32 bits.
    ///   - low: The last 64 bits.
    public init(high: UInt32, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Creates an ID from 12 bytes.
    /// - Parameters:
    ///   - bytes: Exactly 12 bytes.
    /// - Returns: `nil` for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        let array = Array(bytes)
        high = array[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
        low = array[4..<12].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A fresh random ID.
    /// - Parameters:
    ///   - generator: The random source (inject one in tests; `SystemRandomNumberGenerator` otherwise).
    /// - Returns: 96 random bits.
    public static func random(using generator: inout some RandomNumberGenerator) -> STUNTransactionID {
        STUNTransactionID(high: UInt32.random(in: .min ... .max, using: &generator),
                          low: UInt64.random(in: .min ... .max, using: &generator))
    }

    /// The 12 bytes in network order.
    public var bytes: [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: high >> (24 - 8 * UInt32($0))) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
    }

    /// Hex, 24 digits.
    public var description: String { bytes.map { String(format2: $0) }.joined() }
}
