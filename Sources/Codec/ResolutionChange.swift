/// A change of the encoded picture size, reported with the first frame at the new size (an IDR with new SPS and PPS).
public struct ResolutionChange: Sendable, Equatable, CustomStringConvertible {
    /// The size before (equal to `to` for the initial choice).
    public var from: ResolutionRung
    /// The size from this frame on.
    public var to: ResolutionRung
    /// Why.
    public var reason: ResolutionSwitchReason

    /// Creates a change.
    /// - Parameters:
    ///   - from: the size before.
    ///   - to: the new size.
    ///   - reason: why.
    public init(from: ResolutionRung, to: ResolutionRung, reason: ResolutionSwitchReason) {
        self.from = from
        self.to = to
        self.reason = reason
    }

    /// "1280x720 -> 960x540 (bitrate-below-floor)".
    public var description: String { "\(from) -> \(to) (\(reason))" }
}
