#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The throughput at which overuse was last seen, with its spread (libwebrtc `LinkCapacityEstimator`): near it the
/// rate grows additively instead of multiplicatively. Rates in kbit/s.
struct LinkCapacityEstimator: Sendable {
    /// Smoothing of the samples (libwebrtc uses 0.05 on overuse).
    static let alpha = 0.05
    /// Bounds of the normalized deviation (libwebrtc: 0.4...2.5).
    static let deviationRange = 0.4...2.5

    private(set) var estimate: Double?
    private var deviation = 0.4

    private var deviationEstimate: Double { estimate.map { sqrt(deviation * $0) } ?? 0 }

    /// The estimate plus three deviations, or infinity without an estimate.
    var upperBound: Double { estimate.map { $0 + 3 * deviationEstimate } ?? .infinity }
    /// The estimate minus one deviation: where growth near the capacity stops (`AIMDRateControl`); the estimate is a
    /// smoothed throughput and reads a little over the link as often as under it.
    var ceiling: Double? { estimate.map { max(0, $0 - deviationEstimate) } }
    /// The estimate minus three deviations, or 0.
    var lowerBound: Double { estimate.map { max(0, $0 - 3 * deviationEstimate) } ?? 0 }

    mutating func reset() { estimate = nil }

    mutating func onOveruseDetected(throughputKbps sample: Double) {
        let value = estimate.map { (1 - Self.alpha) * $0 + Self.alpha * sample } ?? sample
        estimate = value
        let error = value - sample
        deviation = (1 - Self.alpha) * deviation + Self.alpha * error * error / max(value, 1)
        deviation = min(max(deviation, Self.deviationRange.lowerBound), Self.deviationRange.upperBound)
    }
}
