import MediaTime
import RTP

/// When to probe the path for more capacity (libwebrtc `ProbeController`).
///
/// A probe is a cluster of padding packets (recent media packets sent again) released by the pacer at the probe's
/// rate ahead of media; the rate at which they reach the receiver, from transport-wide feedback
/// (`ProbeBitrateEstimator`), can lift the estimate at once instead of at 8 % per second. Three kinds:
/// - **Exponential probing at the start** (`startExponentialProbing`): a sender that starts low (300 kbit/s, libwebrtc's
///   start rate) probes at `firstExponentialScale` x the start rate, and, while each result reaches
///   `furtherProbeThreshold` of the probe's rate, again at `furtherExponentialScale` x the result (libwebrtc probes 3x
///   and 6x at once, then 2x while a result exceeds 70 % of the probe), up to the operator's ceiling. A result that
///   does not come within `resultTimeout` is sent once more at the same rate (a lost feedback message or a few lost
///   probe packets at 5 % loss must not leave a 300 kbit/s start to the 8 %-a-second ramp; libwebrtc's two clusters
///   at once, 3x and 6x, give it the same second chance); a second silence ends it.
/// - **Probing in ALR** (`ApplicationLimitedRegionDetector`): an encoder sending well under the estimate does not test
///   it, so while in ALR a probe at `factor` x the estimate is due every `interval` (libwebrtc's ALR probing: 2x, 5 s).
/// - **Periodic probing**: once the estimate has not gone down for `stableTime`, at most every `interval`, at
///   `factor` x the estimate.
/// - **Further probing**: the periodic probe of a path that grew (`pathGrew`) whose result reaches
///   `furtherProbeThreshold` of its rate is followed at once by probes as at the start (`furtherExponentialScale` x
///   the result, while each gets through), so that the new capacity is found in one round of probes, not one probe
///   and then the 8 %-a-second climb.
///
/// Probes never exceed the operator's ceiling. A probe followed by overuse within `failureWindow` found the link's
/// limit: the interval doubles (up to `maximumInterval`), so that a sender already at the capacity of its path does
/// not keep pushing its queue (in the network benchmark, probes every 5 s behind a 1 Mbit/s bottleneck each caused an
/// overuse and a cut, holding the target at 0.55-0.75 Mbit/s); a large drop (below `largeDropFraction` of the estimate
/// before it) means the path changed, and the interval starts again at `interval`; so does a path that grew
/// (`pathGrew`: the acknowledged rate above the link capacity estimate), with a probe due at once. Pure: time comes
/// in as values.
public struct ProbeController: Sendable {
    /// How long the estimate must not have decreased before a periodic probe.
    public static let stableTime = Duration.seconds(3)
    /// The least time between two periodic or ALR probes (libwebrtc `alr_probing_interval`: 5 s).
    public static let interval = Duration.seconds(5)
    /// The longest time between two probes after repeated failures.
    public static let maximumInterval = Duration.seconds(60)
    /// Overuse this soon after a probe counts as the probe's failure.
    public static let failureWindow = Duration.seconds(2)
    /// An estimate below this fraction of the one before its decline is a large drop.
    public static let largeDropFraction = 0.66
    /// The periodic and ALR probe rate over the current estimate (libwebrtc `alr_probe_scale`: 2).
    public static let factor = 2.0
    /// The first start-up probe over the start rate (libwebrtc `first_exponential_probe_scale`: 3).
    public static let firstExponentialScale = 3.0
    /// Each further start-up probe over the previous result (libwebrtc `further_exponential_probe_scale`: 2; its
    /// second initial probe, 6x the start rate, is 2x a first probe that got through).
    public static let furtherExponentialScale = 2.0
    /// A start-up probe whose result reaches this fraction of its rate is followed by another (libwebrtc
    /// `further_probe_threshold`: 0.7).
    public static let furtherProbeThreshold = 0.7
    /// How long a start-up probe's result may take before exponential probing ends (libwebrtc
    /// `kMaxWaitingTimeForProbingResult`: 1 s).
    public static let resultTimeout = Duration.seconds(1)
    /// No probe when the estimate is already this close to the ceiling.
    public static let ceilingMargin = 0.95
    /// Packets per probe cluster (libwebrtc `kMinProbePacketsSent`: 5; one more survives a lost one).
    public static let clusterPackets = 6

    private var lastEstimate: Int?
    private var stableSince: MonotonicTime?
    private var lastProbe: MonotonicTime?
    private var nextCluster = 1
    private var beforeDecline: Int?
    /// Start-up probing (or further probing after the probe of a path that grew got through), nil once over.
    private var exponential: ExponentialProbing?
    /// The periodic probe sent after `pathGrew`, until its result comes.
    private var growthProbe: (cluster: Int, bitrate: Int)?
    /// Whether the next periodic probe follows `pathGrew`.
    private var pathHasGrown = false

    private enum ExponentialProbing {
        /// The next probe, at this rate, is due.
        case due(bitrate: Int)
        /// A probe was sent and its result is awaited; `retried` when it is the second try at this rate.
        case awaiting(cluster: Int, bitrate: Int, sent: MonotonicTime, retried: Bool)
    }

    /// The current time between probes (`interval`, doubled after each failed probe).
    public private(set) var currentInterval = ProbeController.interval

    /// Whether start-up probing is still going on.
    public var isProbingExponentially: Bool { exponential != nil }

    /// Creates a controller.
    public init() {}

    /// Starts exponential probing from `startBitrate`: the first probe, at `firstExponentialScale` x it, is due at
    /// once.
    /// - Parameter startBitrate: the rate the sender starts at, bit/s (positive).
    public mutating func startExponentialProbing(startBitrate: Int) {
        guard startBitrate > 0 else { return }
        exponential = .due(bitrate: Int(Double(startBitrate) * Self.firstExponentialScale))
    }

    /// Records what a probe cluster measured (whether or not it raised the estimate): during start-up probing, a
    /// result of at least `furtherProbeThreshold` of the probe's rate makes the next probe due, at
    /// `furtherExponentialScale` x the result; a lower one ends start-up probing.
    /// - Parameters:
    ///   - cluster: the cluster's identifier.
    ///   - bitrate: the rate it got through at, bit/s.
    public mutating func probeResult(cluster: Int, bitrate: Int) {
        if exponential == nil, let periodic = growthProbe, periodic.cluster == cluster {
            // The probe of a path that grew got through: it may carry more still, so probe further at once, as at the
            // start. After a capacity step up, one probe at 2x a 500 kbit/s estimate lifted it to 1.07 Mbit/s, and
            // 8 % a second took 4 s more to 1.35. Only then: behind a token-bucket policer a periodic probe fits in
            // the bucket and reads as a path with room, and probing further overran the policer (the simulation's
            // policer cases: 4 freezes where 2 are allowed).
            growthProbe = nil
            if Double(bitrate) >= Self.furtherProbeThreshold * Double(periodic.bitrate) {
                exponential = .due(bitrate: Int(Double(bitrate) * Self.furtherExponentialScale))
            }
            return
        }
        guard case .awaiting(cluster, let probed, _, _) = exponential else { return }
        exponential = Double(bitrate) >= Self.furtherProbeThreshold * Double(probed)
            ? .due(bitrate: Int(Double(bitrate) * Self.furtherExponentialScale)) : nil
    }

    /// Ends start-up probing (the path's own limit was found some other way, e.g. overuse).
    public mutating func stopExponentialProbing() { exponential = nil }

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

    /// Records that the path grew: the acknowledged throughput rose above the link capacity estimate made when
    /// overuse was last seen (`DelayBasedBandwidthEstimatorStatistics.capacityOutgrown`). The probes that failed
    /// before measured another path, so the interval starts again at `interval` and a periodic probe is due at once
    /// (once the estimate has been stable for `stableTime`): from 8 % a second alone, a 500 kbit/s estimate takes
    /// 13 s to reach 1.35 Mbit/s after the capacity returns to 2 Mbit/s, and the doubled interval could hold the next
    /// probe 20 s away.
    /// - Parameter now: the current time.
    public mutating func pathGrew(now: MonotonicTime) {
        currentInterval = Self.interval
        lastProbe = nil
        pathHasGrown = true
    }

    /// Records that the delay-based detector signalled overuse; right after a probe, the probe failed (and start-up
    /// probing, which found the link's limit, ends).
    /// - Parameter now: the current time.
    public mutating func overuseDetected(now: MonotonicTime) {
        guard let last = lastProbe, now - last <= Self.failureWindow else { return }
        exponential = nil
        currentInterval = min(currentInterval * 2, Self.maximumInterval)
    }

    /// The probe to send now, if one is due.
    /// - Parameters:
    ///   - now: the current time.
    ///   - estimate: the combined estimate in bit/s.
    ///   - ceiling: the operator's bitrate, which no probe exceeds.
    ///   - applicationLimited: whether the sender is in ALR (`ApplicationLimitedRegionDetector`): a probe is then due
    ///     every `currentInterval` without waiting for a stable estimate.
    /// - Returns: the cluster's identifier (1, 2, ...) and its probe rate in bit/s, or nil.
    public mutating func probe(
        now: MonotonicTime, estimate: Int, ceiling: Int, applicationLimited: Bool = false
    ) -> (cluster: Int, bitrate: Int)? {
        update(estimate: estimate, now: now)
        switch exponential {
        case .awaiting(_, let bitrate, let sent, let retried):
            guard now - sent > Self.resultTimeout else { return nil }
            guard !retried else {
                exponential = nil  // twice no result in time: start-up probing ends, periodic probing takes over
                return nil
            }
            let probe = makeProbe(bitrate: bitrate, now: now)
            exponential = .awaiting(cluster: probe.cluster, bitrate: bitrate, sent: now, retried: true)
            return probe
        case .due(let next):
            let bitrate = min(next, ceiling)
            guard bitrate > estimate, Double(estimate) < Double(ceiling) * Self.ceilingMargin else {
                exponential = nil
                return nil
            }
            let probe = makeProbe(bitrate: bitrate, now: now)
            // The ceiling reached: this is the last start-up probe.
            exponential = bitrate >= ceiling
                ? nil : .awaiting(cluster: probe.cluster, bitrate: bitrate, sent: now, retried: false)
            return probe
        case nil:
            break
        }
        if !applicationLimited {
            guard let since = stableSince, now - since >= Self.stableTime else { return nil }
        }
        if let last = lastProbe, now - last < currentInterval { return nil }
        guard Double(estimate) < Double(ceiling) * Self.ceilingMargin, estimate > 0 else { return nil }
        let probe = makeProbe(bitrate: Int(min(Double(estimate) * Self.factor, Double(ceiling))), now: now)
        growthProbe = pathHasGrown && probe.bitrate < ceiling ? probe : nil  // at the ceiling: nothing further
        pathHasGrown = false
        return probe
    }

    private mutating func makeProbe(bitrate: Int, now: MonotonicTime) -> (cluster: Int, bitrate: Int) {
        lastProbe = now
        defer { nextCluster = nextCluster == Int.max ? 1 : nextCluster + 1 }
        return (nextCluster, bitrate)
    }
}
