import HTTPEndpoint

/// Why a WHEP server refused to start.
public enum WHEPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A non-loopback address without a token (the host, as `LoopbackRule.hostNeedingToken` names it).
    case tokenRequired(String)
    /// An empty or over-long token.
    case invalidToken
    /// The viewer limit is outside 1...`WHEPServer.Options.maximumViewerLimit`.
    case invalidViewerLimit(Int)
    /// The address to bind or to advertise is not an IP literal, or is a wildcard with nothing to advertise.
    case invalidAddress(String)
    /// The port is outside 0-65535.
    case invalidPort(Int)
    /// The connect or consent timeout is not 1-300 s.
    case invalidConnectTimeout
    /// The HTTP connection limit is outside 1...`WHEPServer.Options.maximumConnectionLimit`, or the per-address one
    /// outside 1...the total.
    case invalidConnectionLimit(total: Int, perAddress: Int)
    /// The HTTP request timeout is outside `WHEPServer.Options.requestTimeouts`.
    case invalidRequestTimeout
    /// An ICE server cannot be used (the server and why; never its credential).
    case iceServer(String)

    public var description: String {
        switch self {
        case .tokenRequired(let host):
            LoopbackRule.tokenRequiredMessage(endpoint: "the WHEP endpoint", host: host, tokenOptions: "--token or --token-file")
        case .invalidToken: "the WHEP token must be 1-1024 bytes of visible ASCII"
        case .invalidViewerLimit(let limit):
            "the viewer limit must be 1-\(WHEPServer.Options.maximumViewerLimit), got \(limit)"
        case .invalidAddress(let why): why
        case .invalidPort(let port): "the WHEP port must be 0-65535, got \(port)"
        case .invalidConnectTimeout: "the connect and consent timeouts must be 1-300 s"
        case .invalidConnectionLimit(let total, let perAddress):
            "the HTTP connection limit must be 1-\(WHEPServer.Options.maximumConnectionLimit) and the per-address one 1-the total, got \(total) and \(perAddress)"
        case .invalidRequestTimeout: "the HTTP request timeout must be 0.1-300 s"
        case .iceServer(let why): why
        }
    }
}
