/// Running counts of an `AdaptiveH264Encoder`: frames encoded and skipped (each skip with its reason), and the
/// resolution switches (each with its reason).
public struct AdaptiveEncoderStatistics: Sendable, Equatable {
    /// Input frames that produced an access unit.
    public var framesEncoded = 0
    /// Input frames that produced nothing, by reason.
    public var framesSkipped: [FrameSkipReason: Int] = [:]
    /// Resolution switches after the initial choice, by reason.
    public var resolutionSwitches: [ResolutionSwitchReason: Int] = [:]
    /// The last change (the initial choice until the first switch).
    public var lastResolutionChange: ResolutionChange?

    /// Creates empty statistics.
    public init() {}

    /// All skipped frames, whatever the reason.
    public var totalFramesSkipped: Int { framesSkipped.values.reduce(0, +) }
    /// All switches, whatever the reason.
    public var totalResolutionSwitches: Int { resolutionSwitches.values.reduce(0, +) }
}
