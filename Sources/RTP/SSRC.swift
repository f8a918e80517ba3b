/// A synchronization source identifier (RFC 3550 section 5.1): the 32-bit value naming one RTP stream.
public struct SSRC: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 32-bit identifier.
    public var rawValue: UInt32

    /// Creates an SSRC.
    /// - Parameter rawValue: the identifier.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates an SSRC.
    /// - Parameter value: the identifier.
    public init(_ value: UInt32) { self.rawValue = value }

    /// Picks a random SSRC (RFC 3550 section 8.1 asks for a random identifier).
    /// - Parameter generator: the random source, injected so that the core stays deterministic under test.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> SSRC {
        SSRC(UInt32.random(in: .min ... .max, using: &generator))
    }

    /// The identifier in hexadecimal, as tools print it.
    public var description: String {
        let hex = String(rawValue, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
