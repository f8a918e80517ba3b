/// Why an SDP offer or answer cannot be used.
public enum JSEPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A line is not `<letter>=<value>` or a required field is malformed; the line number is 1-based.
    case malformedLine(number: Int, line: String, reason: String)
    /// A required line or attribute is missing.
    case missing(String)
    /// The description has no video m-section we can use.
    case noVideoSection
    /// No offered H.264 format matches our profile and packetization mode.
    case noCompatibleH264(offered: [String])
    /// The peer's `a=setup` leaves no DTLS role for us (e.g. `holdconn`, or `actpass` in an answer).
    case incompatibleSetup(String)
    /// The peer does not use what WebRTC requires (rtcp-mux, a DTLS-SRTP profile, ...).
    case unsupported(String)

    /// The error in words; every piece of peer text in it is an excerpt (`PeerText`: bounded, controls escaped).
    public var description: String {
        switch self {
        case .malformedLine(let number, let line, let reason):
            "SDP line \(number) '\(PeerText.excerpt(line, limit: 2 * PeerText.maximumExcerptLength))': \(PeerText.excerpt(reason, limit: 2 * PeerText.maximumExcerptLength))"
        case .missing(let what): "SDP lacks \(PeerText.excerpt(what))"
        case .noVideoSection: "SDP has no usable video m-section"
        case .noCompatibleH264(let offered):
            "no offered H.264 format matches ours (offered: "
                + (offered.isEmpty ? "none" : PeerText.excerpt(offered.joined(separator: ", "), limit: 2 * PeerText.maximumExcerptLength)) + ")"
        case .incompatibleSetup(let value): "SDP a=setup:\(PeerText.excerpt(value)) leaves no DTLS role"
        case .unsupported(let what): "SDP peer does not support \(PeerText.excerpt(what, limit: 2 * PeerText.maximumExcerptLength))"
        }
    }
}
