/// One SDES item (RFC 3550 section 6.5): a type, and up to 255 bytes of UTF-8 text.
///
/// ```
/// |    type       |     length    | text (length bytes) ...
/// ```
public struct SourceDescriptionItem: Hashable, Sendable {
    /// CNAME, the canonical end-point identifier (RFC 3550 section 6.5.1).
    public static let cnameType: UInt8 = 1
    /// NAME (section 6.5.2).
    public static let nameType: UInt8 = 2
    /// TOOL (section 6.5.6).
    public static let toolType: UInt8 = 6
    /// END, the null item that ends a chunk (section 6.5).
    static let endType: UInt8 = 0

    /// The longest item text: the length field is one octet (RFC 3550 section 6.5).
    public static let maxLength = 255

    /// The item type (1...255).
    public var type: UInt8
    /// The item text as bytes.
    public var value: [UInt8]

    /// Creates an item.
    /// - Parameters:
    ///   - type: the item type.
    ///   - value: the text bytes (at most 255).
    public init(type: UInt8, value: [UInt8]) {
        self.type = type
        self.value = value
    }

    /// Creates an item from text.
    /// - Parameters:
    ///   - type: the item type.
    ///   - text: the text, encoded as UTF-8.
    public init(type: UInt8, text: String) {
        self.init(type: type, value: Array(text.utf8))
    }

    /// Creates an item, checking that it can be sent: the type is not 0 (END) and the text is at most 255 bytes
    /// (a CNAME at least 1).
    /// - Parameters:
    ///   - type: the item type, 1...255.
    ///   - value: the text bytes.
    /// - Throws: ``RTCPError/sdesItemLength(type:length:)``.
    public init(validatingType type: UInt8, value: [UInt8]) throws(RTCPError) {
        self.init(type: type, value: value)
        try validate()
    }

    /// A CNAME item.
    /// - Parameter cname: the canonical name.
    public static func cname(_ cname: String) -> SourceDescriptionItem {
        SourceDescriptionItem(type: cnameType, text: cname)
    }

    /// A CNAME item, checked at configuration time so that a sender never builds reports that cannot be sent
    /// (issue 11: a CNAME over 255 bytes made every report fail silently). The rule is rejection, never
    /// truncation: cutting UTF-8 text could split a character and would change the peer-visible identity.
    /// - Parameter cname: the canonical name, 1...255 bytes of UTF-8.
    /// - Returns: the item.
    /// - Throws: ``RTCPError/sdesItemLength(type:length:)``.
    public static func validatedCNAME(_ cname: String) throws(RTCPError) -> SourceDescriptionItem {
        try SourceDescriptionItem(validatingType: cnameType, value: Array(cname.utf8))
    }

    /// Checks that the item can be serialized.
    /// - Throws: ``RTCPError/sdesItemLength(type:length:)`` for type 0, text over 255 bytes, or an empty CNAME.
    public func validate() throws(RTCPError) {
        let minimum = type == Self.cnameType ? 1 : 0
        guard type != Self.endType, (minimum...Self.maxLength).contains(value.count) else {
            throw .sdesItemLength(type: type, length: value.count)
        }
    }

    /// The value decoded as UTF-8 (invalid sequences replaced).
    public var text: String { String(decoding: value, as: UTF8.self) }
}
