import Codec
import Sender

/// `rtc-h264 send --control`: every command applies to the sender's own encoder.
extension H264Sender: ControlTarget {
    public func applyBitrate(_ bitsPerSecond: Int) async throws -> (target: Int, ceiling: Int) {
        let target = try await setBitrate(bitsPerSecond)
        return (target, await statistics().maxBitrate)
    }

    public func applyFrameRate(_ framesPerSecond: Double) async throws {
        try await setFrameRate(framesPerSecond)
    }

    public func applyDegradationPreference(_ preference: DegradationPreference) async throws {
        try await setDegradationPreference(preference)
    }

    public func applyKeyframeRequest() async throws {
        requestKeyframe()
    }

    public func controlStatistics() async -> SenderStats {
        await statistics()
    }

    public func controlMetrics() async -> [MetricSample] {
        await statistics().metricSamples()
    }
}
