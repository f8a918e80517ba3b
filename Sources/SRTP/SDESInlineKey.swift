import Foundation

/// An SDES key parameter of the `inline` method: master key and salt, with optional lifetime and MKI.
///
/// The text form is `inline:<base64 key||salt>[|<lifetime>][|<MKI value>:<MKI length>]` (RFC 4568 section 6.1),
/// for example `inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|2^20|1:32`. The key is redacted from
/// `description`; `keyParams` holds the key in clear and must only go into SDP, never into logs.
public struct SDESInlineKey: Sendable, Equatable, CustomStringConvertible {
    /// A master key identifier and its length on the wire (RFC 3711 section 3.1, RFC 4568 section 6.1).
    public struct MKI: Hashable, Sendable {
        /// The MKI value, written in decimal in SDP.
        public var value: UInt64
        /// The length of the MKI field in each packet, in bytes (1 ... 128).
        public var length: Int

        /// Creates an MKI.
        ///
        /// - Parameters:
        ///   - value: The MKI value.
        ///   - length: Its length on the wire in bytes.
        public init(value: UInt64, length: Int) {
            self.value = value
            self.length = length
        }
    }

    /// The master key followed by the master salt.
    public var masterKey: SRTPMasterKey
    /// The key lifetime in packets, or `nil` for the default of 2^48 (RFC 3711 section 9.2).
    public var lifetime: UInt64?
    /// The master key identifier, or `nil` when packets carry none. `SRTPSession` does not use MKIs: reject offers
    /// that carry one (see Docs/Keys.md).
    public var mki: MKI?

    /// The key-method prefix (RFC 4568 section 6.1: `key-method = "inline"`).
    static let inlinePrefix = "inline:"
    /// Separates key-salt, lifetime and MKI (RFC 4568 section 6.1).
    static let fieldSeparator: Character = "|"
    /// Separates the MKI value from its length (RFC 4568 section 6.1).
    static let mkiSeparator: Character = ":"
    /// The power-of-two lifetime prefix (RFC 4568 section 6.1: `lifetime = ["2^"] 1*(DIGIT)`).
    static let powerOfTwoPrefix = "2^"
    /// The largest key lifetime: 2^48 SRTP packets (RFC 3711 section 9.2).
    static let maximumLifetimeExponent = 48
    /// The largest MKI length in bytes (RFC 4568 section 6.1: mki-length is 1 to 128).
    static let maximumMKILength = 128

    /// Creates an inline key from its parts.
    ///
    /// - Parameters:
    ///   - masterKey: The master key and salt.
    ///   - lifetime: The key lifetime in packets, or `nil` for none.
    ///   - mki: The master key identifier, or `nil` for none.
    public init(masterKey: SRTPMasterKey, lifetime: UInt64? = nil, mki: MKI? = nil) {
        self.masterKey = masterKey
        self.lifetime = lifetime
        self.mki = mki
    }

    /// Parses an SDES key parameter such as `inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|2^20|1:32`.
    ///
    /// Base64 with or without trailing `=` padding is accepted.
    ///
    /// - Parameters:
    ///   - keyParams: The key parameter from an `a=crypto` line (RFC 4568 section 9.1 `key-params`).
    ///   - suite: The crypto suite of that line; fixes the decoded key-and-salt length.
    /// - Throws: `SRTPKeyError` naming the first malformed part; never the key itself.
    public init(parsing keyParams: String, for suite: SRTPSuite) throws(SRTPKeyError) {
        guard keyParams.hasPrefix(Self.inlinePrefix) else { throw .missingInlinePrefix }
        let fields = keyParams.dropFirst(Self.inlinePrefix.count)
            .split(separator: Self.fieldSeparator, omittingEmptySubsequences: false)
        guard fields.count <= 3 else { throw .tooManyFields(fields.count) }

        var base64 = String(fields[0])
        let remainder = base64.utf8.count % 4
        if remainder == 2 || remainder == 3 { base64 += String(repeating: "=", count: 4 - remainder) }
        guard let decoded = Data(base64Encoded: base64) else { throw .invalidBase64 }
        masterKey = try SRTPMasterKey(keyAndSalt: decoded, for: suite)

        lifetime = nil
        mki = nil
        for field in fields.dropFirst() {
            if field.contains(Self.mkiSeparator) {
                guard mki == nil else { throw .invalidMKI(String(field)) }
                mki = try Self.parseMKI(field)
            } else {
                // RFC 4568 section 6.1: the lifetime comes before the MKI.
                guard lifetime == nil, mki == nil else { throw .invalidLifetime(String(field)) }
                lifetime = try Self.parseLifetime(field)
            }
        }
    }

    /// The key parameter in SDP form: `inline:<base64>[|2^n or n][|value:length]`. Contains the key in clear.
    ///
    /// Base64 is written with `=` padding. A lifetime that is a power of two is written `2^n`.
    public var keyParams: String {
        var text = masterKey.withUnsafeBytes { Self.inlinePrefix + Data($0).base64EncodedString() }
        if let lifetime {
            text.append(Self.fieldSeparator)
            if lifetime.nonzeroBitCount == 1 {
                text += Self.powerOfTwoPrefix + String(lifetime.trailingZeroBitCount)
            } else {
                text += String(lifetime)
            }
        }
        if let mki {
            text += "\(Self.fieldSeparator)\(mki.value)\(Self.mkiSeparator)\(mki.length)"
        }
        return text
    }

    /// The key parameter with the key redacted, safe for logs.
    public var description: String {
        var text = "inline:\(masterKey)"
        if let lifetime { text += "|lifetime \(lifetime)" }
        if let mki { text += "|MKI \(mki.value):\(mki.length)" }
        return text
    }

    private static func parseLifetime(_ field: Substring) throws(SRTPKeyError) -> UInt64 {
        let maximum: UInt64 = 1 << maximumLifetimeExponent
        if field.hasPrefix(powerOfTwoPrefix) {
            let exponentText = field.dropFirst(powerOfTwoPrefix.count)
            guard isDecimal(exponentText), let exponent = Int(exponentText), exponent <= maximumLifetimeExponent else {
                throw .invalidLifetime(String(field))
            }
            return 1 << UInt64(exponent)
        }
        guard isDecimal(field), let packets = UInt64(field), packets > 0, packets <= maximum else {
            throw .invalidLifetime(String(field))
        }
        return packets
    }

    private static func parseMKI(_ field: Substring) throws(SRTPKeyError) -> MKI {
        let parts = field.split(separator: mkiSeparator, omittingEmptySubsequences: false)
        guard parts.count == 2, isDecimal(parts[0]), isDecimal(parts[1]),
            let value = UInt64(parts[0]), let length = Int(parts[1]),
            (1...maximumMKILength).contains(length),
            length >= MemoryLayout<UInt64>.size || value < (UInt64(1) << UInt64(8 * length))
        else { throw .invalidMKI(String(field)) }
        return MKI(value: value, length: length)
    }

    private static func isDecimal(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
