/// An error from configuring an ICE agent.
public enum ICEError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The ufrag or password does not follow RFC 8839 section 5.4.
    case invalidCredentials(String)
    /// A configuration value is out of range.
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .invalidCredentials(let reason): "invalid ICE credentials: \(reason)"
        case .invalidConfiguration(let reason): "invalid ICE configuration: \(reason)"
        }
    }
}
