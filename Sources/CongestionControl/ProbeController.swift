import MediaTime
import RTP

/// When to probe the path for more capacity (issue 12, item 6: "cautious probing upward"; a simpler form of libwebrtc's
/// `ProbeController`, which probes at 3x and 6x the start rate and again when the estimate is application-limited).
///
/// A probe is a cluster of padding packets (recent media packets sent again) released by the pacer ahead of media;
/// the rate at which they reach the receiver, from transport-wide feedback (`ProbeBitrateEstimator`), can lift the
/// estimate at once instead of at 8 % per second. It is cautious: only once the estimate has not gone down for
/// `stableTime`, at most every `interval`, never above the operator's ceiling, at `factor` x the estimate, and
/// the result never exceeds that probe rate. A probe followed by overuse within `failureWindow` found the link's limit:
/// the interval doubles (up to `maximumInterval`), so that a sender already at the capacity of its path does not keep
/// pushing its queue (in the network benchmark, probes every 5 s behind a 1 Mbit/s bottleneck each caused an overuse
/// and a cut, holding the target at 0.55-0.75 Mbit/s); a large drop (below `largeDropFraction` of the estimate before
/// it) means the path changed, and the interval starts again at `interval`. Pure: time comes in as values.
public struct ProbeController: Sendable {
    /// How long the estimate must not have decreased before a probe.
    public static let stableTime = Duration.seconds(3)
    /// The least time between two probes.
    public static let interval = Duration.seconds(5)
    /// The longest time between two probes after repeated failures.
    public static let maximumInterval = Duration.seconds(60)
    /// Overuse this soon after a probe counts as the probe's failure.
    public static let failureWindow = Duration.seconds(2)
    /// An estimate below this fraction of the one before its decline is a large drop.
    public static let largeDropFraction = 0.66
    /// The probe rate over the current estimate (libwebrtc's first probe: 3x the start rate; later ones 2x).
    public static let factor = 2.0
    /// No probe when the estimate is already this close to the ceiling.
    public static let ceilingMargin = 0.95
    /// Packets per probe cluster (libwebrtc `kMinProbePacketsSent`: 5; one more survives a lost one).
    public static let clusterPackets = 6

    private var lastEstimate: Int?
    private var stableSince: MonotonicTime?
    private var lastProbe: MonotonicTime?
    private var nextCluster = 1
    private var beforeDecline: Int?

    /// The current time between probes (`interval`, doubled after each failed probe).
    public private(set) var currentInterval = ProbeController.interval

    /// Creates a controller.
    public init() {}

    /// Records the combined estimate; a decrease restarts the stable time.
    /// - Parameters:
    ///   - estimate: the estimate in bit/s.
    ///   - now: the current time.
    public mutating func update(estimate: Int, now: MonotonicTime) {
        if let last = lastEstimate, estimate >= last {
            beforeDecline = nil  // unchanged or growing: still stable
        } else {
            stableSince = now
            if let last = lastEstimate {
                let reference = beforeDecline ?? last
                beforeDecline = reference
                if Double(estimate) < Double(reference) * Self.largeDropFraction { currentInterval = Self.interval }
            }
        }
        lastEstimate = estimate
    }

    /// Records that the delay-based detector signalled overuse; right after a probe, the probe failed.
    /// - Parameter now: the current time.
    public mutating func overuseDetected(now: MonotonicTime) {
        guard let last = lastProbe, now - last <= Self.failureWindow else { return }
        currentInterval = min(currentInterval * 2, Self.maximumInterval)
    }

    /// The probe to send now, if one is due.
    /// - Parameters:
    ///   - now: the current time.
    ///   - estimate: the combined estimate in bit/s.
    ///   - ceiling: the operator's bitrate, which no probe exceeds.
    /// - Returns: the cluster's identifier (1, 2, ...) and its probe rate in bit/s, or nil.
    public mutating func probe(now: MonotonicTime, estimate: Int, ceiling: Int) -> (cluster: Int, bitrate: Int)? {
        update(estimate: estimate, now: now)
        guard let since = stableSince, now - since >= Self.stableTime else { return nil }
        if let last = lastProbe, now - last < currentInterval { return nil }
        guard Double(estimate) < Double(ceiling) * Self.ceilingMargin, estimate > 0 else { return nil }
        let bitrate = Int(min(Double(estimate) * Self.factor, Double(ceiling)))
        lastProbe = now
        defer { nextCluster = nextCluster == Int.max ? 1 : nextCluster + 1 }
        return (nextCluster, bitrate)
    }
}
