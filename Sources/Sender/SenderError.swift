/// Why the sender could not start or had to stop.
public enum SenderError: Error, Equatable, CustomStringConvertible {
    /// An address that does not resolve or parse.
    case invalidAddress(String, String)
    /// A configuration value out of range.
    case invalidConfiguration(String)
    /// The source's frames are not the encoder's size and cannot be converted.
    case sourceSizeMismatch(String)

    public var description: String {
        switch self {
        case .invalidAddress(let address, let reason): return "invalid address \(address): \(reason)"
        case .invalidConfiguration(let reason): return "invalid configuration: \(reason)"
        case .sourceSizeMismatch(let reason): return "source: \(reason)"
        }
    }
}
