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

    /// A CNAME item.
    /// - Parameter cname: the canonical name.
    public static func cname(_ cname: String) -> SourceDescriptionItem {
        SourceDescriptionItem(type: cnameType, text: cname)
    }

    /// The value decoded as UTF-8 (invalid sequences replaced).
    public var text: String { String(decoding: value, as: UTF8.self) }
}
