/// Why the sender could not start, refused a request, or had to stop.
public enum SenderError: Error, Equatable, CustomStringConvertible {
    /// An address that does not resolve or parse.
    case invalidAddress(String, String)
    /// A configuration value out of range.
    case invalidConfiguration(String)
    /// A bitrate or frame rate the sender refuses (the stream is unchanged).
    case invalidRate(String)
    /// The sender has finished; nothing more can be sent.
    case finished
    /// Several frames in a row failed; the stream ended with the last failure.
    case tooManyFrameFailures(count: Int, lastError: String)
    /// The connection to the peer ended (WebRTC: ICE consent expired, DTLS failed or the peer closed).
    case transportClosed(String)

    public var description: String {
        switch self {
        case .invalidAddress(let address, let reason): return "invalid address \(address): \(reason)"
        case .invalidConfiguration(let reason): return "invalid configuration: \(reason)"
        case .invalidRate(let reason): return reason
        case .finished: return "the sender has finished"
        case .tooManyFrameFailures(let count, let last): return "\(count) frames in a row failed; the last: \(last)"
        case .transportClosed(let reason): return "the connection to the peer closed: \(reason)"
        }
    }
}
