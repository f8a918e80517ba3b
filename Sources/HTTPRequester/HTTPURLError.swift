/// Why a URL (`HTTPURL(parsing:)`) or a reference resolved against one (`HTTPURL.resolving(_:)`) cannot be used.
package enum HTTPURLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not an absolute `http://` or `https://` URL the client can use; the reason names the part.
    case invalid(String)
    /// The scheme is neither `http` nor `https`.
    case unsupportedScheme(String)
    /// A reference (a `Location` value) that is empty or cannot be resolved; the reason names why.
    case unusableReference(String)

    /// The error in words (the URL's text in it is bounded: `HTTPURL.printable`).
    package var description: String {
        switch self {
        case .invalid(let reason): "invalid URL: \(reason)"
        case .unsupportedScheme(let scheme):
            "URL scheme '\(HTTPURL.printable(scheme))' is not supported: only http:// and https:// are"
        case .unusableReference(let reason): "unusable URL reference: \(reason)"
        }
    }
}
