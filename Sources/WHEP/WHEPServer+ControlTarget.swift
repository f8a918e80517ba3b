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

    /// The server's own figures, then every viewer's sender statistics labelled with its id (the viewer table bounds
    /// how many).
    public func controlMetrics() async -> [MetricSample] {
        let statistics = await statistics()
        let server = [
            MetricSample(name: "rtc_h264_whep_viewers", help: "Viewers with a session now.", kind: .gauge,
                         value: Double(statistics.viewers)),
            MetricSample(name: "rtc_h264_whep_frames_encoded_total", help: "Frames the shared encoder produced.",
                         kind: .counter, value: Double(statistics.framesEncoded)),
            MetricSample(name: "rtc_h264_whep_frames_dropped_total",
                         help: "Frames dropped before the shared encoder (a newer frame replaced them).",
                         kind: .counter, value: Double(statistics.framesDropped)),
            MetricSample(name: "rtc_h264_whep_frames_per_second", help: "Frames the shared encoder produces per second.",
                         kind: .gauge, value: statistics.framesPerSecond),
            MetricSample(name: "rtc_h264_whep_applied_bitrate_bps", help: "The shared encoder's target in bit/s.",
                         kind: .gauge, value: Double(statistics.appliedBitrate)),
        ]
        return server + statistics.viewerStats.flatMap { viewer in
            viewer.sender.metricSamples(labels: [MetricSample.Label("viewer", viewer.id)])
        }
    }
}
