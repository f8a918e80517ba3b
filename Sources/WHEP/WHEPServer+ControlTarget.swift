public import Codec
public import Control
import Sender

/// `rtc-h264 serve --control`: the control endpoint over the shared encoder. The bitrate is the operator's ceiling
/// over every viewer; a keyframe goes to every viewer, and is refused (409) when none is watching.
extension WHEPServer: ControlTarget {
    public func applyBitrate(_ bitsPerSecond: Int) async throws -> (target: Int, ceiling: Int) {
        try await encoder.setOperatorBitrate(bitsPerSecond)
    }

    public func applyFrameRate(_ framesPerSecond: Double) async throws {
        try await setFrameRate(framesPerSecond)
    }

    public func applyDegradationPreference(_ preference: DegradationPreference) async throws {
        try await setDegradationPreference(preference)
    }

    public func applyKeyframeRequest() async throws {
        guard viewerCount > 0 else {
            throw ControlTargetError.notApplicable(
                "no viewer is watching: a keyframe would reach no one (each viewer gets one when it joins)")
        }
        try forceKeyframe()
    }

    public func controlStatistics() async -> WHEPServerStatistics {
        await statistics()
    }
}
