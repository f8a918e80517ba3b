/// Why an SDP could not be used for an H.264 stream. Every case names what is wrong and, for a line, its number
/// (counted from 1), so `rtc-h264 receive --sdp` can say exactly which line to fix.
public enum SessionDescriptionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A required line is missing.
    case missingLine(String)
    /// A line does not have the expected form.
    case malformedLine(lineNumber: Int, reason: String)
    /// The `m=video` section has no H.264 payload type.
    case noH264PayloadType
    /// The whole description is longer than ``SessionDescription/maxSize`` bytes.
    case tooLarge(bytes: Int, limit: Int)
    /// One line is longer than ``SessionDescription/maxLineLength`` bytes.
    case lineTooLong(lineNumber: Int, bytes: Int, limit: Int)
    /// ``SessionDescription/validate()``: a field that would read back differently from what was configured
    /// (an upper-case `profile-level-id`, an address with a `/ttl`, an empty parameter set...).
    case notRepresentable(field: String, reason: String?)

    public var description: String {
        switch self {
        case .missingLine(let what): return "SDP: missing \(what)"
        case .malformedLine(let n, let reason): return "SDP line \(n): \(reason)"
        case .noH264PayloadType: return "SDP: no a=rtpmap with H264/90000 in the video section"
        case .tooLarge(let bytes, let limit): return "SDP: \(bytes) bytes is more than the \(limit) accepted"
        case .lineTooLong(let n, let bytes, let limit):
            return "SDP line \(n): \(bytes) bytes is more than the \(limit) accepted for one line"
        case .notRepresentable(let field, let reason):
            return "SDP: the \(field) would not read back as configured" + (reason.map { " (\($0))" } ?? "")
        }
    }
}
