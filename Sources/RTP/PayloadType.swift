/// An RTP payload type (RFC 3550 section 5.1, seven bits). Dynamic types (RFC 3551 section 6) are 96...127.
public struct PayloadType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The seven-bit value.
    public var rawValue: UInt8

    /// Creates a payload type; fails when the value does not fit in seven bits.
    /// - Parameter rawValue: 0...127.
    public init?(rawValue: UInt8) {
        guard rawValue <= 0x7F else { return nil }
        self.rawValue = rawValue
    }

    /// Creates a payload type from a literal value; the value is masked to seven bits.
    /// - Parameter value: 0...127.
    public init(_ value: UInt8) { self.rawValue = value & 0x7F }

    /// The payload type this package uses for H.264 unless told otherwise (first dynamic value, RFC 3551 section 6).
    public static let defaultH264 = PayloadType(96)

    /// Whether a FlexFEC stream may use `value`: 35-63 (libwebrtc's low range, where Chromium offers `flexfec-03`) or
    /// the dynamic 96-127.
    /// - Parameter value: the payload type asked for.
    public static func isValidForFlexFEC(_ value: UInt8) -> Bool {
        (35...63).contains(value) || (96...127).contains(value)
    }

    /// The decimal value.
    public var description: String { String(rawValue) }
}
