/// A degradation preference name that is none of `DegradationPreference`'s (from a control request or a script).
public struct UnknownDegradationPreferenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The longest part of the refused text quoted back in `description`.
    public static let quotedPrefixLength = 40

    /// The text that was refused.
    public var text: String

    /// Creates the error.
    /// - Parameter text: the text that was refused.
    public init(text: String) { self.text = text }

    public var description: String {
        let shown = text.count > Self.quotedPrefixLength ? text.prefix(Self.quotedPrefixLength) + "..." : Substring(text)
        let names = DegradationPreference.allCases.map(\.rawValue)
        return "unknown preference '\(shown)'; use \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "")"
    }
}
