/// Running counts of an `AdaptiveH264Encoder`: frames encoded and skipped (each skip with its reason), and the
/// resolution switches (each with its reason). Plain counters, so that counting a frame allocates nothing.
public struct AdaptiveEncoderStatistics: Sendable, Equatable {
    /// Input frames that produced an access unit.
    public var framesEncoded = 0
    /// Frames skipped by rate control (`FrameSkipReason.rateControl`).
    public var framesSkippedByRateControl = 0
    /// Frames for which OpenH264 returned nothing (`FrameSkipReason.emptyOutput`).
    public var framesSkippedEmpty = 0
    /// Switches because the target fell below the floor.
    public var switchesForBitrateBelowFloor = 0
    /// Switches because rate control kept skipping.
    public var switchesForFrameSkipping = 0
    /// Switches because QP stayed high.
    public var switchesForHighQP = 0
    /// Switches up because the target left room for a larger size.
    public var switchesForBitrateAllowingLarger = 0
    /// Switches because the degradation preference changed at run time.
    public var switchesForPreferenceChange = 0
    /// The last change (the initial choice until the first switch).
    public var lastResolutionChange: ResolutionChange?

    /// Creates empty statistics.
    public init() {}

    /// Skipped frames by reason (reasons with no skip left out).
    public var framesSkipped: [FrameSkipReason: Int] {
        [.rateControl: framesSkippedByRateControl, .emptyOutput: framesSkippedEmpty].filter { $0.value > 0 }
    }

    /// Switches after the initial choice by reason (reasons with no switch left out).
    public var resolutionSwitches: [ResolutionSwitchReason: Int] {
        [.bitrateBelowFloor: switchesForBitrateBelowFloor, .frameSkipping: switchesForFrameSkipping,
         .highQP: switchesForHighQP, .bitrateAllowsLarger: switchesForBitrateAllowingLarger,
         .preferenceChanged: switchesForPreferenceChange].filter { $0.value > 0 }
    }

    /// All skipped frames, whatever the reason.
    public var totalFramesSkipped: Int { framesSkippedByRateControl + framesSkippedEmpty }
    /// All switches, whatever the reason.
    public var totalResolutionSwitches: Int {
        switchesForBitrateBelowFloor + switchesForFrameSkipping + switchesForHighQP + switchesForBitrateAllowingLarger
            + switchesForPreferenceChange
    }

    mutating func countSkip(_ reason: FrameSkipReason) {
        switch reason {
        case .rateControl: framesSkippedByRateControl += 1
        case .emptyOutput: framesSkippedEmpty += 1
        }
    }

    mutating func countSwitch(_ reason: ResolutionSwitchReason) {
        switch reason {
        case .initial: break
        case .bitrateBelowFloor: switchesForBitrateBelowFloor += 1
        case .frameSkipping: switchesForFrameSkipping += 1
        case .highQP: switchesForHighQP += 1
        case .bitrateAllowsLarger: switchesForBitrateAllowingLarger += 1
        case .preferenceChanged: switchesForPreferenceChange += 1
        }
    }
}
