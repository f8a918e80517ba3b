import MediaTime
import RTP

/// The sender's bandwidth estimate: the minimum of the loss-based estimate (receiver reports), the delay-based one
/// (transport-wide feedback, when negotiated), the receiver's REMB and TMMBR limits, and the operator's bitrate
/// (issue 12, item 6; libwebrtc `SendSideBandwidthEstimation`). Its `targetBitrate` drives the encoder, the pacer
/// and the NACK budget.
public struct SendSideBandwidthEstimator: Sendable {
    /// The loss-based estimator (capped by the others after each update).
    public private(set) var lossBased: LossBasedBandwidthEstimator
    /// The delay-based estimator, nil when transport-wide feedback is not in use.
    public private(set) var delayBased: DelayBasedBandwidthEstimator?
    /// The loss model on transport-wide feedback (libwebrtc `LossBasedBweV2`), nil without it. Once it has its
    /// observations (`isReady`) it replaces `lossBased`, whose 2 %/10 % rule on receiver reports cuts at random loss.
    public private(set) var lossModel: LossBasedBandwidthEstimatorV2?
    /// The latest REMB bitrate, nil when none was received.
    public private(set) var rembBitrate: Int?
    /// The latest TMMBR bitrate, nil when none was received.
    public private(set) var tmmbrBitrate: Int?
    /// The operator's bitrate (the application's ceiling).
    public private(set) var configuredBitrate: Int
    /// The latest RTT estimate.
    public private(set) var roundTripTime: Duration?

    /// Creates an estimator.
    /// - Parameters:
    ///   - initialBitrate: the operator's bitrate, and the starting target unless `startBitrate` is lower.
    ///   - startBitrate: where both estimates start when lower than `initialBitrate` (probing then finds the path's
    ///     rate; see `ProbeController.startExponentialProbing`), nil to start at `initialBitrate`.
    ///   - minimumBitrate: the lowest target, at least 1 kbit/s.
    ///   - maximumBitrate: the highest target, at most 10 Gbit/s.
    ///   - usesTransportFeedback: whether transport-wide feedback was negotiated (enables the delay-based part).
    /// - Throws: `BandwidthEstimatorError.invalidBounds`.
    public init(
        initialBitrate: Int, startBitrate: Int? = nil, minimumBitrate: Int = 30_000, maximumBitrate: Int = 20_000_000,
        usesTransportFeedback: Bool
    ) throws(BandwidthEstimatorError) {
        let start = min(startBitrate ?? initialBitrate, initialBitrate)
        lossBased = try LossBasedBandwidthEstimator(
            initialBitrate: start, minimumBitrate: minimumBitrate, maximumBitrate: maximumBitrate)
        delayBased = usesTransportFeedback
            ? try DelayBasedBandwidthEstimator(
                initialBitrate: start, minimumBitrate: minimumBitrate, maximumBitrate: maximumBitrate)
            : nil
        configuredBitrate = min(max(initialBitrate, minimumBitrate), maximumBitrate)
        lossModel = usesTransportFeedback
            ? LossBasedBandwidthEstimatorV2(
                initialBitrate: start, minimumBitrate: minimumBitrate, maximumBitrate: configuredBitrate)
            : nil
    }

    /// The loss-based estimate in use: the loss model's once ready, else the receiver reports' rule.
    public var lossBasedBitrate: Int {
        if let lossModel, lossModel.isReady { return Int(lossModel.estimate) }
        return lossBased.targetBitrate
    }

    /// The loss the latest estimate saw: the loss model's weighted average once ready, else the latest receiver
    /// report's (nil before one).
    public var recentLoss: Double? {
        if let lossModel, lossModel.isReady { return lossModel.averageLoss }
        return lossBased.lastLoss
    }

    /// The peer sends no transport-wide feedback (none came in `SenderConfiguration.transportFeedbackWait`): the
    /// delay-based part is dropped and the loss-based estimate, which may have started low, rises to the operator's
    /// bitrate at once (the receiver's reports and limits still cap it).
    public mutating func transportFeedbackAbsent() {
        delayBased = nil
        lossModel = nil
        lossBased.raise(to: configuredBitrate)
        capLossBased()
    }

    /// What the latest probe cluster measured, once (whether or not it raised the estimate).
    public mutating func takeProbeResult() -> (cluster: Int, bitrate: Int)? {
        delayBased?.takeProbeResult()
    }

    /// The combined target and what limits it (on a tie, the limit that capped the loss-based estimate).
    public var estimate: (bitrate: Int, limit: BandwidthLimit) {
        var best = (lossBasedBitrate, BandwidthLimit.lossBased)
        if let delay = delayBased?.targetBitrate, delay <= best.0 { best = (delay, .delayBased) }
        if let remb = rembBitrate, remb <= best.0 { best = (remb, .remb) }
        if let tmmbr = tmmbrBitrate, tmmbr <= best.0 { best = (tmmbr, .tmmbr) }
        if configuredBitrate <= best.0 { best = (configuredBitrate, .configured) }
        return (max(best.0, lossBased.minimumBitrate), best.1)
    }

    /// The combined target in bits per second.
    public var targetBitrate: Int { estimate.bitrate }

    /// Whether the path has shown room above the target: the operator's bitrate limits it (no estimate does), the
    /// recent loss (`recentLoss`) is under 2 % (`LossBasedBandwidthEstimator.lowLossThreshold`: a lossy path is not
    /// trusted with bursts), and the delay-based estimate, when in use, has a trend and stands at least
    /// `roomMargin` above the target (a sender entering a bottleneck sees its delay-based estimate creep a few per
    /// cent up before the queue shows). The pacer lets whole frames leave at once only then.
    public var hasRoom: Bool {
        let (bitrate, limit) = estimate
        guard limit == .configured, (recentLoss ?? 0) < LossBasedBandwidthEstimator.lowLossThreshold else {
            return false
        }
        guard let delayBased else { return true }
        return delayBased.hasTrend && Double(delayBased.targetBitrate) >= Self.roomMargin * Double(bitrate)
    }

    /// How far the delay-based estimate must stand above the target for `hasRoom`: 1.2.
    public static let roomMargin = 1.2

    private mutating func capLossBased() {
        var ceiling = configuredBitrate
        if let delay = delayBased?.targetBitrate { ceiling = min(ceiling, delay) }
        if let remb = rembBitrate { ceiling = min(ceiling, remb) }
        if let tmmbr = tmmbrBitrate { ceiling = min(ceiling, tmmbr) }
        lossBased.limit(to: ceiling)
    }

    /// Sets the operator's bitrate (e.g. from the control API).
    /// - Parameter bitsPerSecond: the ceiling, clamped to the bounds.
    public mutating func setConfiguredBitrate(_ bitsPerSecond: Int) {
        configuredBitrate = min(max(bitsPerSecond, lossBased.minimumBitrate), lossBased.maximumBitrate)
        lossModel?.setMaximumBitrate(configuredBitrate)
        capLossBased()
    }

    /// Records the receiver's REMB, or clears it with nil.
    /// - Parameter bitsPerSecond: the REMB bitrate.
    public mutating func setREMB(_ bitsPerSecond: Int?) {
        rembBitrate = bitsPerSecond.map { max($0, 0) }
        capLossBased()
    }

    /// Records the receiver's TMMBR limit, or clears it with nil.
    /// - Parameter bitsPerSecond: the TMMBR bitrate.
    public mutating func setTMMBR(_ bitsPerSecond: Int?) {
        tmmbrBitrate = bitsPerSecond.map { max($0, 0) }
        capLossBased()
    }

    /// Records a new RTT estimate.
    /// - Parameter rtt: the RTT.
    public mutating func setRoundTripTime(_ rtt: Duration) {
        roundTripTime = rtt
        delayBased?.roundTripTime = rtt
    }

    /// Feeds a report block about our media SSRC.
    /// - Parameters:
    ///   - block: the block.
    ///   - now: the current time.
    /// - Returns: the combined target after it.
    @discardableResult
    public mutating func update(with block: ReportBlock, now: MonotonicTime) -> Int {
        lossBased.update(with: block, now: now, roundTripTime: roundTripTime)
        capLossBased()
        return targetBitrate
    }

    /// Records a sent packet for the delay-based part (ignored without transport-wide feedback).
    /// - Parameters:
    ///   - transportSequenceNumber: its transport-wide sequence number.
    ///   - size: bytes sent.
    ///   - now: the send time.
    ///   - probeCluster: the probe cluster it belongs to, 0 for none.
    public mutating func packetSent(
        transportSequenceNumber: SequenceNumber, size: Int, now: MonotonicTime, probeCluster: Int = 0
    ) {
        delayBased?.packetSent(
            transportSequenceNumber: transportSequenceNumber, size: size, now: now, probeCluster: probeCluster)
    }

    /// Starts measuring a probe cluster (ignored without the delay-based part).
    /// - Parameters:
    ///   - cluster: the cluster's identifier (not 0).
    ///   - bitrate: the probe rate.
    public mutating func startProbe(cluster: Int, bitrate: Int) {
        delayBased?.startProbe(cluster: cluster, bitrate: bitrate)
    }

    /// Feeds transport-wide feedback (ignored without the delay-based part).
    /// - Parameters:
    ///   - feedback: the feedback.
    ///   - now: when it arrived.
    ///   - applicationLimited: whether the sender is in ALR (`ApplicationLimitedRegionDetector`): its acknowledged
    ///     rate then says nothing about the path, and the loss model does not take it as a candidate.
    /// - Returns: the combined target after it.
    @discardableResult
    public mutating func update(
        with feedback: TransportFeedback, now: MonotonicTime, applicationLimited: Bool = false
    ) -> Int {
        // Updated in place (`delayBased!`): a copy taken out and stored back would share its sent-packet tables and
        // windows, and the first write to each would copy it whole (about 150 KB on every feedback message).
        guard delayBased != nil else { return targetBitrate }
        delayBased!.update(with: feedback, now: now)
        let summary = delayBased!.lastFeedbackSummary
        let probe = delayBased!.takeProbeRaise()
        lossModel?.update(
            bytes: summary.bytes, lostBytes: summary.lostBytes, firstSend: summary.firstSend,
            lastSend: summary.lastSend, delayBasedEstimate: delayBased!.targetBitrate,
            acknowledgedBitrate: delayBased!.acknowledgedBitrate, applicationLimited: applicationLimited)
        lossBased.increaseBetweenReports(now: now)
        if let probe {
            // A probe got through at this rate: the loss-based estimate follows at once (within the ceilings).
            lossBased.raise(to: probe)
            if let model = lossModel, Double(probe) > model.estimate { lossModel?.setEstimate(probe) }
        }
        capLossBased()
        return targetBitrate
    }
}
