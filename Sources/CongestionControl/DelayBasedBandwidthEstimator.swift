import MediaTime
import RTP

/// The delay-based half of Google congestion control (draft-ietf-rmcat-gcc-02 sections 5.2-5.5; libwebrtc
/// `DelayBasedBwe`), driven by transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01).
///
/// The sender records each packet's transport-wide sequence number, size and send time (`packetSent`); each
/// feedback message turns into (send time, arrival time, size) triples, grouped in 5 ms send bursts
/// (`InterArrivalGrouper`); the growth of one-way delay between groups is fitted by `TrendlineEstimator`, whose
/// verdict drives `AIMDRateControl` together with the acknowledged throughput. Before any throughput is known,
/// overuse halves the estimate at most every 200 ms (libwebrtc `InitialTimeToReduceFurther`).
///
/// Probe clusters (`ProbeController`) are measured here too: packets sent with a cluster identifier are matched in
/// the feedback, and a cluster's rate (`ProbeBitrateEstimator`) lifts the estimate when it is higher and the
/// detector sees no overuse (libwebrtc `DelayBasedBwe` with `ProbeBitrateEstimator`). Not done: ALR, the separate
/// audio detector.
public struct DelayBasedBandwidthEstimator: Sendable {
    /// Sent packets remembered for matching feedback (about 4 s at 1,000 packets per second).
    public static let sentPacketCapacity = 4096
    /// The least time between two halvings before the throughput is known.
    static let initialReductionInterval = 200.0
    /// The acknowledged throughput an overuse just after a probe's lift is measured over, ms (libwebrtc's
    /// `BitrateEstimator` window once started: 150 ms; here a little longer, 6 frames at 30 fps).
    static let postProbeThroughputWindow = 200.0

    /// What happened so far.
    public private(set) var statistics = DelayBasedBandwidthEstimatorStatistics()
    /// The latest RTT estimate (sets the rate controller's response time; 200 ms until known).
    public var roundTripTime: Duration? {
        didSet { rate.roundTripTime = roundTripTime.map { max(0, $0.inSeconds * 1000) } ?? 200 }
    }

    private var grouper = InterArrivalGrouper()
    private var trendline = TrendlineEstimator()
    private var rate: AIMDRateControl
    private var acked = WindowedBitrateEstimator()
    /// The same window over send times: what the sender offered.
    private var sent = WindowedBitrateEstimator()
    private var sentTimes: [Int64]
    private var sentSizes: [Int]
    private var sentSequenceNumbers: [UInt16]
    private var sentValid: [Bool]
    private var sentCluster: [Int]
    private var probes = ProbeBitrateEstimator()
    private var probeResult: Int?
    private var scratch: [(send: Double, arrival: Double, size: Int)] = []
    private var lastInitialReduction: Double?
    private var lastProbeRaise: Int?
    /// When a probe last lifted the estimate, ms.
    private var lastProbeRaiseTime: Double?
    private var lastProbeMeasurement: (cluster: Int, bitrate: Int)?
    /// The latest probe measurement, kept (the back-off before the throughput is known starts from it).
    private var lastProbedBitrate: Int?

    /// The packets the latest feedback message reported on (those this estimator sent and remembers): their bytes,
    /// the bytes of those reported lost, and their earliest and latest send times in ms (infinite when none).
    public private(set) var lastFeedbackSummary = FeedbackSummary()

    /// What one feedback message said about the packets it covers (the loss-based estimate's observations).
    public struct FeedbackSummary: Sendable, Equatable {
        /// Bytes of every packet reported on.
        public var bytes = 0
        /// Bytes of the packets reported lost.
        public var lostBytes = 0
        /// The earliest send time, ms.
        public var firstSend = Double.infinity
        /// The latest send time, ms.
        public var lastSend = -Double.infinity
    }

    /// Creates an estimator.
    /// - Parameters:
    ///   - initialBitrate: the starting estimate (clamped into the bounds).
    ///   - minimumBitrate: the lowest estimate, at least 1 kbit/s.
    ///   - maximumBitrate: the highest estimate, at most 10 Gbit/s.
    /// - Throws: `BandwidthEstimatorError.invalidBounds`.
    public init(initialBitrate: Int, minimumBitrate: Int = 30_000, maximumBitrate: Int = 20_000_000)
        throws(BandwidthEstimatorError)
    {
        guard minimumBitrate >= 1_000, minimumBitrate <= maximumBitrate, maximumBitrate <= 10_000_000_000 else {
            throw .invalidBounds(minimum: minimumBitrate, maximum: maximumBitrate)
        }
        rate = AIMDRateControl(
            initialBitrate: Double(initialBitrate), minimumBitrate: Double(minimumBitrate),
            maximumBitrate: Double(maximumBitrate))
        sentTimes = [Int64](repeating: 0, count: Self.sentPacketCapacity)
        sentSizes = [Int](repeating: 0, count: Self.sentPacketCapacity)
        sentSequenceNumbers = [UInt16](repeating: 0, count: Self.sentPacketCapacity)
        sentValid = [Bool](repeating: false, count: Self.sentPacketCapacity)
        sentCluster = [Int](repeating: 0, count: Self.sentPacketCapacity)
        scratch.reserveCapacity(512)
    }

    /// The current estimate in bits per second.
    public var targetBitrate: Int { Int(rate.bitrate) }
    /// The detector's current verdict.
    public var usage: BandwidthUsage { trendline.state }

    /// Whether the trendline has seen its window of packet groups (20), so that it can tell a queue building.
    public var hasTrend: Bool { trendline.hasTrend }
    /// The acknowledged throughput over the last 500 ms of arrivals, in bits per second, once known.
    public var acknowledgedBitrate: Int? { acked.bitrate.map { Int(min($0, 1e15)) } }

    /// Records a packet as it goes on the wire.
    /// - Parameters:
    ///   - transportSequenceNumber: the transport-wide sequence number written in it.
    ///   - size: its size in bytes (as sent, SRTP included).
    ///   - now: the send time.
    ///   - probeCluster: the probe cluster it belongs to (see `startProbe`), 0 for none.
    public mutating func packetSent(
        transportSequenceNumber: SequenceNumber, size: Int, now: MonotonicTime, probeCluster: Int = 0
    ) {
        let i = Int(transportSequenceNumber.rawValue) & (Self.sentPacketCapacity - 1)
        sentCluster[i] = probeCluster
        sentTimes[i] = now.nanoseconds
        sentSizes[i] = max(0, size)
        sentSequenceNumbers[i] = transportSequenceNumber.rawValue
        sentValid[i] = true
        sent.add(at: Double(now.nanoseconds) / 1e6, size: max(0, size))
    }

    /// The path delivered at least 90 % of what the sender offered over the last 500 ms, and the offer was under
    /// 95 % of the estimate or under the link capacity estimate's lower bound (`capacityLowerBound`, bit/s): the
    /// throughput shows the encoder's output, not the link's capacity. (The second bound: behind a 1 Mbit/s
    /// bottleneck an encoder undershooting a 0.93 Mbit/s target offered 0.90, over 95 % of the estimate, and the
    /// overuse its bursts caused read as a link of 0.90: a cut to 0.81, the capacity estimate reset, and the
    /// multiplicative climb that followed overshot to 1.03.)
    static func isApplicationLimited(
        sentRate: Double?, throughput: Double, estimate: Double, capacityLowerBound: Double = 0
    ) -> Bool {
        guard let sentRate, sentRate > 0 else { return false }
        return (sentRate < 0.95 * estimate || sentRate < capacityLowerBound) && throughput >= 0.9 * sentRate
    }

    /// Processes one feedback message and updates the estimate.
    /// - Parameters:
    ///   - feedback: the parsed transport-wide feedback.
    ///   - now: when it arrived.
    /// - Returns: the estimate after it, in bits per second.
    @discardableResult
    public mutating func update(with feedback: TransportFeedback, now: MonotonicTime) -> Int {
        statistics.feedbackMessages += 1
        scratch.removeAll(keepingCapacity: true)
        lastFeedbackSummary = FeedbackSummary()
        let arrivals = feedback.arrivalTimes
        for (offset, arrival) in arrivals.enumerated() {
            let sequenceNumber = feedback.baseSequenceNumber + offset
            let i = Int(sequenceNumber.rawValue) & (Self.sentPacketCapacity - 1)
            guard sentValid[i], sentSequenceNumbers[i] == sequenceNumber.rawValue else {
                statistics.unknownPackets += 1
                continue
            }
            let sendTime = Double(sentTimes[i]) / 1e6
            lastFeedbackSummary.bytes += sentSizes[i]
            lastFeedbackSummary.firstSend = min(lastFeedbackSummary.firstSend, sendTime)
            lastFeedbackSummary.lastSend = max(lastFeedbackSummary.lastSend, sendTime)
            guard let arrival else {
                statistics.packetsReportedLost += 1
                lastFeedbackSummary.lostBytes += sentSizes[i]
                continue
            }
            statistics.packetsAcknowledged += 1
            scratch.append((Double(sentTimes[i]) / 1e6, arrival.inSeconds * 1000, sentSizes[i]))
            if sentCluster[i] != 0, let rate = probes.add(
                cluster: sentCluster[i], send: Double(sentTimes[i]) / 1e6, arrival: arrival.inSeconds * 1000,
                size: sentSizes[i])
            {
                probeResult = max(probeResult ?? 0, rate)
                lastProbeMeasurement = (sentCluster[i], rate)
                lastProbedBitrate = rate
            }
        }
        scratch.sort { $0.arrival < $1.arrival }
        let nowMs = Double(now.nanoseconds) / 1e6
        let previousUsage = trendline.state
        for packet in scratch {
            acked.add(at: packet.arrival, size: packet.size)
            if let deltas = grouper.add(send: packet.send, arrival: packet.arrival, systemTime: nowMs, size: packet.size) {
                trendline.update(arrivalDelta: deltas.arrivalDelta, sendDelta: deltas.sendDelta, arrival: packet.arrival)
            }
        }
        guard !scratch.isEmpty else { return targetBitrate }
        let usage = trendline.state
        if usage == .overusing, previousUsage != .overusing { statistics.overuseEvents += 1 }
        var throughput = acked.bitrate
        if usage == .overusing, let raised = lastProbeRaiseTime, nowMs - raised < WindowedBitrateEstimator.window,
            let recent = acked.bitrate(over: Self.postProbeThroughputWindow), recent > throughput ?? 0
        {
            // A probe lifted the estimate less than a window ago: the 500 ms window still holds the rate from before
            // the lift, and beta x it undoes most of a probe that was right. The throughput since the lift counts.
            throughput = recent
        }
        if usage == .overusing {
            if let throughput {
                if rate.timeToReduceFurther(now: nowMs, throughput: throughput) {
                    let limited = Self.isApplicationLimited(
                        sentRate: sent.bitrate, throughput: throughput, estimate: rate.bitrate,
                        capacityLowerBound: rate.linkCapacity.lowerBound * 1000)
                    if limited { statistics.applicationLimitedCuts += 1 }
                    rate.update(usage: usage, throughput: throughput, now: nowMs, applicationLimited: limited)
                }
            } else if lastInitialReduction.map({ nowMs - $0 >= Self.initialReductionInterval }) ?? true {
                // No throughput yet, but a probe measured what the path carried: back off from that as from a
                // throughput (beta x it), not by half (entering a 1 Mbit/s bottleneck after start-up probing, halving
                // fell to 0.48 Mbit/s and took 6 s to climb back over 0.8).
                if let measured = lastProbedBitrate, Double(measured) * AIMDRateControl.beta < rate.bitrate {
                    rate.set(Double(measured) * AIMDRateControl.beta, now: nowMs)
                } else {
                    rate.set(rate.bitrate / 2, now: nowMs)
                }
                lastInitialReduction = nowMs
            }
        } else {
            rate.update(usage: usage, throughput: throughput, now: nowMs)
            if let probe = probeResult, Double(probe) > rate.bitrate {
                rate.set(Double(probe), now: nowMs)
                statistics.probesRaisedEstimate += 1
                lastProbeRaise = probe
                lastProbeRaiseTime = nowMs
            }
        }
        probeResult = nil
        statistics.capacityOutgrown = rate.capacityOutgrown
        return targetBitrate
    }

    /// The rate of the latest probe that raised the estimate, once; the caller lifts the loss-based estimate too.
    public mutating func takeProbeRaise() -> Int? {
        defer { lastProbeRaise = nil }
        return lastProbeRaise
    }

    /// What the latest probe cluster measured (its identifier and rate, bit/s), once, whether or not it raised the
    /// estimate: the probe controller decides from it whether to probe further.
    public mutating func takeProbeResult() -> (cluster: Int, bitrate: Int)? {
        defer { lastProbeMeasurement = nil }
        return lastProbeMeasurement
    }

    /// Starts measuring a probe cluster: its packets are sent with `probeCluster: cluster`.
    /// - Parameters:
    ///   - cluster: the cluster's identifier (not 0).
    ///   - bitrate: the probe rate, the most the cluster can measure.
    public mutating func startProbe(cluster: Int, bitrate: Int) {
        statistics.probesSent += 1
        probes.start(cluster: cluster, bitrate: bitrate)
    }
}
