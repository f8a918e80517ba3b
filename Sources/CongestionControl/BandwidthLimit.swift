/// What currently limits the combined send-side estimate.
public enum BandwidthLimit: Hashable, Sendable {
    /// The loss-based estimate from receiver reports.
    case lossBased
    /// The delay-based estimate from transport-wide feedback.
    case delayBased
    /// The receiver's REMB (draft-alvestrand-rmcat-remb).
    case remb
    /// The receiver's TMMBR (RFC 5104 section 4.2.1).
    case tmmbr
    /// The operator's (application's) bitrate.
    case configured
}
