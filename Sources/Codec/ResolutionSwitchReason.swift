/// Why the encoder changed its picture size.
public enum ResolutionSwitchReason: String, Sendable, Hashable, CustomStringConvertible {
    /// The size chosen at start from the start bitrate and the input size.
    case initial
    /// The target fell below the current rung's floor (`QualityScaler.Settings.minimumBitsPerPixel`).
    case bitrateBelowFloor = "bitrate-below-floor"
    /// Rate control kept skipping frames at this size.
    case frameSkipping = "frame-skipping"
    /// Rate control kept QP near its ceiling at this size (`QualityScaler.Settings.highQP`).
    case highQP = "high-qp"
    /// The target left room for a larger rung for `QualityScaler.Settings.upHoldTime`.
    case bitrateAllowsLarger = "bitrate-allows-larger"
    /// The degradation preference changed at run time and the size in use is outside what the new one allows
    /// (`maintain-resolution` goes back to the input size; `balanced` never stays below half the input height; a
    /// switch to `maintain-framerate` below the current floor steps down).
    case preferenceChanged = "preference-changed"

    /// The name used in statistics and logs.
    public var description: String { rawValue }
}
