/// Why a bandwidth estimator could not be configured.
public enum BandwidthEstimatorError: Error, Hashable, Sendable {
    /// The bounds are not 1 kbit/s <= minimum <= maximum <= 10 Gbit/s.
    case invalidBounds(minimum: Int, maximum: Int)
}
