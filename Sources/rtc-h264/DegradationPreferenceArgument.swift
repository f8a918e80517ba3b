import ArgumentParser
import Codec

/// `--degradation-preference`: `maintain-framerate`, `maintain-resolution` or `balanced`.
enum DegradationPreferenceArgument: String, ExpressibleByArgument, CaseIterable {
    case maintainFramerate = "maintain-framerate"
    case maintainResolution = "maintain-resolution"
    case balanced

    /// The library's preference.
    var preference: DegradationPreference {
        switch self {
        case .maintainFramerate: return .maintainFramerate
        case .maintainResolution: return .maintainResolution
        case .balanced: return .balanced
        }
    }
}
