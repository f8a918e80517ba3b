/// One `a=` line: a name and, for value attributes, the text after the first colon (RFC 8866 section 5.13).
public struct SDPAttribute: Hashable, Sendable, CustomStringConvertible {
    /// The name, e.g. `rtpmap`.
    public var name: String
    /// The value, e.g. `96 H264/90000`; `nil` for property attributes such as `rtcp-mux`.
    public var value: String?

    /// Creates an attribute.
    /// - Parameters:
    ///   - name: The name.
    ///   - value: The value, or `nil` for a property attribute.
    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// Parses the text after `a=`.
    /// - Parameters:
    ///   - text: `name` or `name:value`.
    init(parsing text: Substring) {
        if let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) {
            name = String(text[..<colon])
            value = String(text[text.index(after: colon)...])
        } else {
            name = String(text)
            value = nil
        }
    }

    /// The line without `a=`: `name` or `name:value`.
    public var description: String { value.map { "\(name):\($0)" } ?? name }
}
