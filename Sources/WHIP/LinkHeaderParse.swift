/// What `LinkHeader.parse` read from a reply's `Link` header fields: the links in order, and why some text was
/// skipped. Explanations name the link by its position and the reason; they never quote the link, which may hold
/// a credential.
public struct LinkHeaderParse: Hashable, Sendable {
    /// The well-formed links, in the order of the fields and of the links within each field.
    public var links: [LinkValue] = []
    /// How many links were malformed and skipped.
    public var malformedCount = 0
    /// Why malformed links were skipped: at most `LinkHeader.maximumExplanations`, the first ones.
    public var problems: [String] = []
    /// Why the end of the input was not read, when it is longer than `LinkHeader.maximumInputLength`; nil when
    /// all of it was read.
    public var truncation: String?

    /// A result with nothing in it.
    public init() {}

    /// Adds an explanation while fewer than `LinkHeader.maximumExplanations` are kept.
    /// - Parameters:
    ///   - problem: What was skipped and why.
    mutating func note(_ problem: String) {
        if problems.count < LinkHeader.maximumExplanations { problems.append(problem) }
    }
}
