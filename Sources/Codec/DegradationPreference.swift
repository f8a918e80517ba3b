/// What to give up first when the bitrate cannot carry the input at full quality, as WebRTC's
/// `DegradationPreference` (`RtpParameters::degradation_preference`).
public enum DegradationPreference: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Keep the frame rate, lower the resolution (WebRTC's default for camera video, and ours): `QualityScaler` steps
    /// down the `ResolutionLadder`; frame skipping by rate control is the last resort.
    case maintainFramerate = "maintain-framerate"
    /// Keep the input resolution; rate control skips frames to hold the bitrate (this package's behaviour before
    /// resolution adaptation; WebRTC's choice for screen content).
    case maintainResolution = "maintain-resolution"
    /// Lower the resolution only part of the way (never below half the input height) and later (floors at
    /// `QualityScaler.Settings.balancedFloorFactor`), then let rate control skip frames: fewer pixels lost, some
    /// frame rate lost.
    case balanced

    /// The name used on the command line and in the control API.
    public var description: String { rawValue }

    /// Reads a preference by its name (`maintain-framerate`, `maintain-resolution`, `balanced`), ignoring
    /// surrounding whitespace and case.
    /// - Parameter text: the name.
    /// - Returns: the preference, or the error naming the valid names.
    public static func parse(_ text: String) -> Result<DegradationPreference, UnknownDegradationPreferenceError> {
        let trimmed = text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
        guard let preference = DegradationPreference(rawValue: String(trimmed).lowercased()) else {
            return .failure(UnknownDegradationPreferenceError(text: text))
        }
        return .success(preference)
    }
}
