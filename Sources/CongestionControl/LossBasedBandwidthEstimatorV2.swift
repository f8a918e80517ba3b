#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The loss-based estimate that tells random loss from congestion (libwebrtc `LossBasedBweV2`, on by default in
/// Chrome; str0m ports it), driven by transport-wide feedback.
///
/// The sender's packets are cut into **observations** of at least `observationDurationLowerBound` of send time, each
/// with its sending rate and the bytes sent and lost; the last `observationWindowSize` are kept, the newest weighing
/// most (`temporalWeightFactor` per step back). The loss model: a path of capacity B loses a fraction `inherent` of
/// every packet (random loss) plus, when the sender sends at R > B, the excess `(R - B) / R`
/// (`lossProbability`). Each update scores a few **candidate** capacities (the current estimate x 1.02, 1.0 and
/// 0.95, the acknowledged rate, the delay-based estimate when higher) by the log-likelihood of the observed losses,
/// each with the inherent loss that fits it best (one Newton step), plus a small bias towards higher rates while the
/// loss stays under `highBandwidthPreferenceLossThreshold`; the best candidate becomes the estimate, bounded:
/// - at most `highLossUpperBoundBalance / (loss - highLossUpperBoundOffset)` once the average loss exceeds the offset
///   (the instant upper bound: 2 Mbit/s at 10 % loss, 0.67 Mbit/s at 20 %);
/// - at least the acknowledged rate (what gets through is no congestion), at most the delay-based estimate;
/// - rising at most to 1.5x the acknowledged rate (1.2x while below 1.3x the rate held after the last decrease), and
///   not at all while the average loss exceeds the fitted inherent loss;
/// - after a decrease, held for `initialHoldDuration` (doubling with each further decrease, to `maximumHoldDuration`)
///   at the lowest estimate of the decrease (libwebrtc holds the first decreased value, which sits far above a
///   policer's rate);
/// - once a loss episode measured the capacity (the median rate delivered by `capacityObservations` observations
///   that lost at least `capacityLossThreshold`, significantly more than random loss, while the model decreased),
///   rising above it, by a probe or through the acknowledged rate too, at most `increaseOverCapacityPerSecond` of it
///   per second, until the model is no longer loss-limited. A policer's bucket passes a rise for a second or more
///   before it drops, so without this the estimate ran through it into a loss burst every few seconds (not in
///   libwebrtc);
/// - **a fast cut**: an observation losing at least `fastCutLoss` of at least `fastCutPackets` packets closes after
///   `fastCutDuration` of send time (not 250 ms); when random loss (the window's loss before it, the fitted random
///   loss or `capacityRandomLossFloor`, whichever is highest) would lose that many of its packets less often than
///   `fastCutChance` (the binomial tail) and it is no blackout, the estimate falls at once to what it delivered (its
///   sending rate less the loss) and holds as after any decrease; the model is in use from then on, even before
///   `minimumObservations`. A path that drops a third of what it gets is over its capacity by half, and what it
///   delivered is that capacity; libwebrtc gets there through three 250 ms observations and 0.95x steps, and behind
///   a policer that was 0.45 s and 56 datagrams lost at a join, a burst of repairs lost again with them, and a
///   sawtooth with one loss burst per rise (not in libwebrtc).
///
/// So 5 % of random loss at 1.5 Mbit/s is explained by an inherent loss of 5 % at any candidate, and the bias keeps the
/// highest; a sender over a 1 Mbit/s bottleneck loses what it sends above 1 Mbit/s, which only a candidate near
/// 1 Mbit/s explains. Parameters are libwebrtc's defaults since 2025 (`loss_based_bwe_v2.cc` `CreateConfig`), loss
/// counted in bytes. Left out: the padding state, the loss-spike trimming of the average and the un-losing of packets
/// a later feedback reports received (reordering). Pure; times are send times in milliseconds.
public struct LossBasedBandwidthEstimatorV2: Sendable {
    /// The candidates' factors over the current estimate.
    public static let candidateFactors = [1.02, 1.0, 0.95]
    /// The bias towards higher rates, per kbit/s of a candidate.
    public static let higherBandwidthBiasFactor = 0.0002
    /// The bias towards higher rates, per ln(1 + kbit/s) of a candidate.
    public static let higherLogBandwidthBiasFactor = 0.02
    /// The fitted inherent loss stays at least this.
    public static let inherentLossLowerBound = 1e-3
    /// Above this average loss the bias turns towards lower rates.
    public static let highBandwidthPreferenceLossThreshold = 0.20
    /// Smooths the bias's turn around the threshold.
    public static let bandwidthPreferenceSmoothingFactor = 0.002
    /// The inherent loss a capacity B may carry is at most `inherentLossUpperBoundOffset` + this / B (bit/s).
    public static let inherentLossUpperBoundBalance = 100_000.0
    /// The fixed part of the inherent loss's upper bound.
    public static let inherentLossUpperBoundOffset = 0.05
    /// The inherent loss a candidate starts from.
    public static let initialInherentLoss = 0.01
    /// The step of the Newton iteration (one per update).
    public static let newtonStepSize = 0.75
    /// The shortest span of send time one observation covers, ms.
    public static let observationDurationLowerBound = 250.0
    /// Observations kept.
    public static let observationWindowSize = 15
    /// Each step back in the window weighs this much less.
    public static let temporalWeightFactor = 0.9
    /// The instant upper bound is this / (average loss - `highLossUpperBoundOffset`), bit/s.
    public static let highLossUpperBoundBalance = 100_000.0
    /// The average loss above which the instant upper bound applies.
    public static let highLossUpperBoundOffset = 0.05
    /// An increase goes at most to this factor over the acknowledged rate.
    public static let rampUpUpperBoundFactor = 1.5
    /// An increase goes at most to this factor over the acknowledged rate while that is under
    /// `rampUpHoldThreshold` x the rate held after the last decrease.
    public static let rampUpUpperBoundInHoldFactor = 1.2
    /// See `rampUpUpperBoundInHoldFactor`.
    public static let rampUpHoldThreshold = 1.3
    /// While loss-limited, an estimate grows at most by this factor per `delayedIncreaseWindow`.
    public static let maximumIncreaseFactor = 1.3
    /// The window of `maximumIncreaseFactor`, ms.
    public static let delayedIncreaseWindow = 300.0
    /// The hold after a first decrease, ms.
    public static let initialHoldDuration = 300.0
    /// The longest hold, ms.
    public static let maximumHoldDuration = 60_000.0
    /// Each further decrease multiplies the hold by this.
    public static let holdDurationFactor = 2.0
    /// Observations needed before the estimate is used.
    public static let minimumObservations = 3
    /// An observation losing at least this much, `capacityLossMargin` more than the fitted inherent loss, and
    /// `capacityLossDeviations` standard deviations over random loss while the model decreases measures the path's
    /// capacity: it delivered its sending rate less the loss.
    public static let capacityLossThreshold = 0.25
    /// See `capacityLossThreshold`.
    public static let capacityLossMargin = 0.15
    /// A loss episode measures the capacity once it has this many such observations (a blackout's edge, or a
    /// burst of random loss, gives one or two).
    public static let capacityObservations = 3
    /// See `capacityLossThreshold`: the random loss an observation's loss is tested against is at least this.
    public static let capacityRandomLossFloor = 0.05
    /// See `capacityLossThreshold`: standard deviations of random loss over `capacityRandomLossFloor` (or the fitted
    /// inherent loss) an observation must lose to measure the capacity.
    public static let capacityLossDeviations = 3.0
    /// The packet size the test of significance counts an observation's bytes in.
    public static let typicalPacketBytes = 1_200.0
    /// An observation losing this much is a blackout, no measure of capacity.
    public static let blackoutLoss = 0.95
    /// Lossy observations this far apart (ms) belong to different loss episodes.
    public static let lossEpisodeGap = 2_000.0
    /// Above the capacity the last loss episode measured, an increase adds at most this share of it per second.
    public static let increaseOverCapacityPerSecond = 0.02
    /// An observation losing at least this share of its bytes closes early and may cut the estimate at once.
    public static let fastCutLoss = 0.3
    /// The shortest span of send time such an observation covers, ms.
    public static let fastCutDuration = 80.0
    /// The fewest packets (of `typicalPacketBytes`) such an observation holds.
    public static let fastCutPackets = 8.0
    /// The chance under random loss of so much loss below which such an observation cuts: 1 in 10,000, since an
    /// observation closing early is tested at every feedback message (20 a second). Exact where a normal
    /// approximation is not: at 15 packets and 5 %, 5 losses stand 5 standard deviations out yet come one time in
    /// 1,600. It cut once in the 200 minutes of random loss of `LossModelRandomLossTests.randomLossIsNoFastCut`;
    /// 1 in 100,000 cut never there but let a 45 KB policer's bucket be overrun (16 % lost in
    /// `aPolicerIsNotRunThrough`, where 10 % is allowed).
    public static let fastCutChance = 1e-4

    /// What bounds the estimate now (libwebrtc `LossBasedState`).
    public enum State: String, Sendable {
        /// Loss-limited and rising.
        case increasing
        /// Loss-limited after a decrease (held for a while).
        case decreasing
        /// Not loss-limited: the delay-based estimate or the maximum bounds it.
        case delayBasedEstimate
    }

    private struct Observation: Sendable {
        var bytes = 0.0
        var lostBytes = 0.0
        var sendingRate = 0.0  // bit/s
        var id = -1
    }

    private struct Candidate {
        var bandwidth: Double
        var inherentLoss: Double
    }

    /// The lowest estimate, bit/s.
    public let minimumBitrate: Double
    /// The highest estimate (the operator's bitrate), bit/s.
    public private(set) var maximumBitrate: Double
    /// The estimate's state.
    public private(set) var state = State.delayBasedEstimate
    /// The estimate, bit/s (meaningful once `isReady`).
    public private(set) var estimate: Double
    /// The average loss over the window (bytes, weighted), 0...1.
    public private(set) var averageLoss = 0.0
    /// The fitted inherent (random) loss of the current estimate.
    public private(set) var inherentLoss = LossBasedBandwidthEstimatorV2.initialInherentLoss
    /// How many fast cuts the estimate took.
    public private(set) var fastCuts = 0

    private var current: Candidate
    private var observations: [Observation]
    private var weights: [Double]
    private var observationCount = 0
    private var partialBytes = 0.0
    private var partialLostBytes = 0.0
    private var lastObservationSendTime: Double?
    private var acknowledgedBitrate: Double?
    private var delayBasedEstimate = Double.infinity
    private var instantUpperBound = Double.infinity
    private var recoveringSince = -Double.infinity
    private var limitInWindow = Double.infinity
    private var holdUntil = -Double.infinity
    private var holdDuration = LossBasedBandwidthEstimatorV2.initialHoldDuration
    private var holdRate = Double.infinity
    private var deliveredAtLoss = Double.infinity
    private var episodeDelivered: [Double] = []
    private var lastLossyObservation = -Double.infinity

    /// Creates an estimator.
    /// - Parameters:
    ///   - initialBitrate: where the estimate starts, bit/s.
    ///   - minimumBitrate: the lowest estimate.
    ///   - maximumBitrate: the highest (the operator's bitrate).
    public init(initialBitrate: Int, minimumBitrate: Int, maximumBitrate: Int) {
        self.minimumBitrate = Double(max(minimumBitrate, 1))
        self.maximumBitrate = Double(max(maximumBitrate, minimumBitrate, 1))
        estimate = min(max(Double(initialBitrate), self.minimumBitrate), self.maximumBitrate)
        current = Candidate(bandwidth: estimate, inherentLoss: Self.initialInherentLoss)
        observations = Array(repeating: Observation(), count: Self.observationWindowSize)
        weights = (0..<Self.observationWindowSize).map { pow(Self.temporalWeightFactor, Double($0)) }
    }

    /// Whether enough observations came for the estimate to be used.
    public var isReady: Bool { observationCount >= Self.minimumObservations || fastCuts > 0 }

    /// Sets the highest estimate (the operator's bitrate).
    public mutating func setMaximumBitrate(_ bitsPerSecond: Int) {
        maximumBitrate = max(Double(bitsPerSecond), minimumBitrate)
    }

    /// Sets the estimate (a probe measured this much getting through). After a loss episode measured the path's
    /// capacity, a probe raises it no faster than the increase over that capacity allows: a probe is short enough to
    /// pass a policer's bucket, so what it measures there is the bucket, not the rate.
    public mutating func setEstimate(_ bitsPerSecond: Int) {
        var value = min(max(Double(bitsPerSecond), minimumBitrate), maximumBitrate)
        if let cap = capacityCap(at: lastObservationSendTime ?? -.infinity) { value = min(value, max(estimate, cap)) }
        current.bandwidth = value
        estimate = current.bandwidth
    }

    /// An observation that lost much while the model decreases (the loss is congestion, not random) measured the
    /// path's capacity: it delivered its sending rate less the loss. The loss episode's median is kept (its first
    /// observation may still ride a policer's bucket, its last a burst of retransmissions). A blackout delivers
    /// nothing and measures nothing.
    private mutating func measureCapacity(_ observation: Observation, at time: Double) {
        let ratio = observation.lostBytes / observation.bytes
        guard state == .decreasing,
            ratio >= max(
                Self.capacityLossThreshold, inherentLoss + Self.capacityLossMargin, significantLoss(of: observation)),
            ratio < Self.blackoutLoss
        else { return }
        if time - lastLossyObservation > Self.lossEpisodeGap { episodeDelivered.removeAll(keepingCapacity: true) }
        if episodeDelivered.count == Self.observationWindowSize { episodeDelivered.removeFirst() }
        episodeDelivered.append(observation.sendingRate * (1 - ratio))
        lastLossyObservation = time
        guard episodeDelivered.count >= Self.capacityObservations else { return }
        let sorted = episodeDelivered.sorted()
        deliveredAtLoss = sorted[sorted.count / 2]
    }

    /// The loss an observation must reach to be congestion rather than random loss: random loss reaches 25 % of a
    /// few packets often (2 of 8 at 10 %: one observation in five at 300 kbit/s), so `capacityLossDeviations` standard
    /// deviations over random loss of at least `capacityRandomLossFloor` (or the fitted inherent loss).
    private func significantLoss(of observation: Observation) -> Double {
        let random = max(inherentLoss, Self.capacityRandomLossFloor)
        let packets = max(observation.bytes / Self.typicalPacketBytes, 1)
        return random + Self.capacityLossDeviations * (random * (1 - random) / packets).squareRoot()
    }

    /// The chance that random loss `p` loses `lost` or more of `packets` (the binomial tail; exact where the normal
    /// approximation is not: at 15 packets and 5 %, 5 losses stand 5 deviations out yet come one time in 1,600).
    static func randomLossChance(_ lost: Int, _ packets: Int, _ p: Double) -> Double {
        guard lost > 0 else { return 1 }
        guard lost <= packets, packets > 0 else { return 0 }
        let p = min(max(p, 1e-9), 1 - 1e-9)
        let logP = log(p)
        let logQ = log(1 - p)
        func logFactorial(_ n: Int) -> Double {
            let value: Double = lgamma(Double(n) + 1)
            return value
        }
        let logFactorialN = logFactorial(packets)
        var chance = 0.0
        for k in lost...packets {
            let logTerm = logFactorialN - logFactorial(k) - logFactorial(packets - k)
                + Double(k) * logP + Double(packets - k) * logQ
            let term = exp(logTerm)
            chance += term
            // Past the mode the terms only shrink: stop once they no longer count.
            if Double(k) > Double(packets) * p, term <= chance * 1e-17 { break }
        }
        return min(chance, 1)
    }

    /// The fast cut: an observation of `fastCutPackets` or more that lost `fastCutLoss` or more (under a blackout's
    /// loss), which random loss (the window's loss before it, the fitted inherent loss or `capacityRandomLossFloor`,
    /// whichever is highest) loses less often than `fastCutChance`, sets the estimate to what the observation
    /// delivered when that is lower (before `minimumObservations`, whatever the model's unused estimate), holds it as
    /// after a decrease (the hold starts unless one is running) and puts the model in use.
    private mutating func fastCut(_ observation: Observation, priorLoss: Double, at time: Double) {
        let ratio = observation.lostBytes / observation.bytes
        let delivered = observation.sendingRate * (1 - ratio)
        guard observation.bytes >= Self.fastCutPackets * Self.typicalPacketBytes,
            ratio >= Self.fastCutLoss, ratio < Self.blackoutLoss, !isReady || delivered < estimate
        else { return }
        let packets = Int((observation.bytes / Self.typicalPacketBytes).rounded())
        let lost = Int((observation.lostBytes / Self.typicalPacketBytes).rounded())
        let random = max(inherentLoss, Self.capacityRandomLossFloor, priorLoss)
        guard Self.randomLossChance(lost, packets, random) < Self.fastCutChance else { return }
        estimate = max(minimumBitrate, delivered)
        current.bandwidth = estimate
        fastCuts += 1
        if state != .decreasing {
            holdUntil = time + holdDuration
            holdDuration = min(Self.maximumHoldDuration, holdDuration * Self.holdDurationFactor)
            holdRate = estimate
        } else {
            holdRate = min(holdRate, estimate)
        }
        state = .decreasing
    }

    /// How high an increase may go now that a loss episode measured the path's capacity (nil: no measure).
    private func capacityCap(at time: Double) -> Double? {
        guard deliveredAtLoss.isFinite, state != .delayBasedEstimate else { return nil }
        let since = max(0, time - max(lastLossyObservation, holdUntil)) / 1000
        return deliveredAtLoss * (1 + Self.increaseOverCapacityPerSecond * since)
    }

    /// Feeds one transport-wide feedback message's packets, summed.
    /// - Parameters:
    ///   - bytes: bytes of every packet it reports on (received or lost).
    ///   - lostBytes: bytes of those reported lost.
    ///   - firstSend: the earliest send time among them, ms.
    ///   - lastSend: the latest send time among them, ms.
    ///   - delayBasedEstimate: the delay-based estimate now, bit/s (nil: none).
    ///   - acknowledgedBitrate: the acknowledged rate, bit/s, if known.
    ///   - applicationLimited: whether the sender is in ALR (its acknowledged rate is then no candidate).
    /// - Returns: whether an observation was completed and the estimate updated.
    @discardableResult
    public mutating func update(
        bytes: Int, lostBytes: Int, firstSend: Double, lastSend: Double, delayBasedEstimate: Int?,
        acknowledgedBitrate: Int?, applicationLimited: Bool = false
    ) -> Bool {
        self.delayBasedEstimate = delayBasedEstimate.map(Double.init) ?? .infinity
        self.acknowledgedBitrate = acknowledgedBitrate.map(Double.init)
        guard bytes > 0, firstSend.isFinite, lastSend.isFinite else { return false }
        partialBytes += Double(bytes)
        partialLostBytes += Double(min(max(lostBytes, 0), bytes))
        if lastObservationSendTime == nil { lastObservationSendTime = firstSend }
        let duration = lastSend - (lastObservationSendTime ?? firstSend)
        // Heavy loss closes an observation early (`fastCutDuration`), so that the fast cut comes sooner.
        let heavy = partialBytes >= Self.fastCutPackets * Self.typicalPacketBytes
            && partialLostBytes >= Self.fastCutLoss * partialBytes && duration >= Self.fastCutDuration
        guard duration > 0, duration >= Self.observationDurationLowerBound || heavy else { return false }
        lastObservationSendTime = lastSend
        let observation = Observation(
            bytes: partialBytes, lostBytes: partialLostBytes, sendingRate: partialBytes * 8 / (duration / 1000),
            id: observationCount)
        observations[observationCount % Self.observationWindowSize] = observation
        observationCount += 1
        partialBytes = 0
        partialLostBytes = 0
        let priorLoss = averageLoss
        updateAverageLoss()
        instantUpperBound = averageLoss > Self.highLossUpperBoundOffset
            ? Self.highLossUpperBoundBalance / (averageLoss - Self.highLossUpperBoundOffset) : maximumBitrate
        updateEstimate(at: lastSend, applicationLimited: applicationLimited)
        fastCut(observation, priorLoss: priorLoss, at: lastSend)
        measureCapacity(observation, at: lastSend)
        return true
    }

    private func weight(of observation: Observation) -> Double {
        let age = observationCount - 1 - observation.id
        return age >= 0 && age < weights.count ? weights[age] : 0
    }

    private mutating func updateAverageLoss() {
        var lost = 0.0
        var total = 0.0
        for observation in observations where observation.id >= 0 {
            let w = weight(of: observation)
            lost += w * observation.lostBytes
            total += w * observation.bytes
        }
        averageLoss = total > 0 ? lost / total : 0
    }

    /// The probability that a packet sent at `sendingRate` over a path of capacity `bandwidth` with `inherent` random
    /// loss is lost.
    static func lossProbability(inherent: Double, bandwidth: Double, sendingRate: Double) -> Double {
        let inherent = min(max(inherent, 0), 1)
        var probability = inherent
        if sendingRate.isFinite, bandwidth.isFinite, sendingRate > bandwidth {
            probability += (1 - inherent) * (sendingRate - bandwidth) / sendingRate
        }
        return min(max(probability, 1e-6), 1 - 1e-6)
    }

    private static func feasibleInherentLoss(_ loss: Double, bandwidth: Double) -> Double {
        let upper = bandwidth <= 0
            ? 1 : min(1, inherentLossUpperBoundOffset + inherentLossUpperBoundBalance / bandwidth)
        return min(max(loss, inherentLossLowerBound), upper)
    }

    private func highBandwidthBias(_ bandwidth: Double) -> Double {
        guard bandwidth.isFinite else { return 0 }
        let difference = Self.highBandwidthPreferenceLossThreshold - averageLoss
        let adjust = difference / (Self.bandwidthPreferenceSmoothingFactor + abs(difference))
        let kbps = bandwidth / 1000
        return Self.higherBandwidthBiasFactor * adjust * kbps + Self.higherLogBandwidthBiasFactor * adjust * log(1 + kbps)
    }

    /// One Newton step towards the inherent loss that best explains the window at `candidate.bandwidth`.
    private func fitted(_ candidate: Candidate) -> Candidate {
        var first = 0.0
        var second = 0.0
        for observation in observations where observation.id >= 0 {
            let w = weight(of: observation)
            let p = Self.lossProbability(
                inherent: candidate.inherentLoss, bandwidth: candidate.bandwidth, sendingRate: observation.sendingRate)
            let lost = observation.lostBytes / 1000
            let received = (observation.bytes - observation.lostBytes) / 1000
            first += w * (lost / p - received / (1 - p))
            second -= w * (lost / (p * p) + received / ((1 - p) * (1 - p)))
        }
        if second >= 0 { second = -1e-6 }
        var result = candidate
        result.inherentLoss = Self.feasibleInherentLoss(
            candidate.inherentLoss - Self.newtonStepSize * first / second, bandwidth: candidate.bandwidth)
        return result
    }

    private func objective(_ candidate: Candidate) -> Double {
        var value = 0.0
        let bias = highBandwidthBias(candidate.bandwidth)
        for observation in observations where observation.id >= 0 {
            let w = weight(of: observation)
            let p = Self.lossProbability(
                inherent: candidate.inherentLoss, bandwidth: candidate.bandwidth, sendingRate: observation.sendingRate)
            let lost = observation.lostBytes / 1000
            let size = observation.bytes / 1000
            value += w * (lost * log(p) + (size - lost) * log(1 - p)) + w * bias * size
        }
        return value
    }

    private mutating func updateEstimate(at time: Double, applicationLimited: Bool) {
        let lossLimited = state != .delayBasedEstimate
        let capacity = capacityCap(at: time)
        // The candidates.
        var upper = maximumBitrate
        if lossLimited, limitInWindow.isFinite { upper = limitInWindow }
        let cap = max(current.bandwidth, upper)
        var best: Candidate?
        var bestObjective = -Double.infinity
        func consider(_ bandwidth: Double) {
            guard bandwidth.isFinite, bandwidth > 0 else { return }
            let b = min(bandwidth, cap)
            let start = Candidate(
                bandwidth: b, inherentLoss: Self.feasibleInherentLoss(current.inherentLoss, bandwidth: b))
            let candidate = fitted(start)
            let value = objective(candidate)
            if value > bestObjective || (value == bestObjective && b > (best?.bandwidth ?? 0)) {
                best = candidate
                bestObjective = value
            }
        }
        for factor in Self.candidateFactors { consider(current.bandwidth * factor) }
        if let acknowledgedBitrate, !applicationLimited { consider(acknowledgedBitrate) }
        if delayBasedEstimate.isFinite, delayBasedEstimate > current.bandwidth { consider(delayBasedEstimate) }
        guard var chosen = best else { return }
        // No increase while the loss is above what the model calls random.
        if averageLoss > chosen.inherentLoss, current.bandwidth < chosen.bandwidth { chosen.bandwidth = current.bandwidth }
        if lossLimited {
            if recoveringSince + Self.delayedIncreaseWindow > time, chosen.bandwidth > limitInWindow {
                chosen.bandwidth = limitInWindow
            }
            let increasing = current.bandwidth < chosen.bandwidth
                || (current.bandwidth == chosen.bandwidth && state == .increasing)
            if increasing, let acknowledgedBitrate {
                let factor = holdRate.isFinite && acknowledgedBitrate < Self.rampUpHoldThreshold * holdRate
                    ? Self.rampUpUpperBoundInHoldFactor : Self.rampUpUpperBoundFactor
                chosen.bandwidth = max(current.bandwidth, min(chosen.bandwidth, factor * acknowledgedBitrate))
                if let capacity { chosen.bandwidth = max(current.bandwidth, min(chosen.bandwidth, capacity)) }
                if state == .decreasing, chosen.bandwidth == current.bandwidth { chosen.bandwidth += 1 }
            }
        }
        // At least what gets through, but a burst's acknowledged rate (a probe, or a policer's bucket draining) is no
        // capacity once a loss episode measured one.
        let lower = max(minimumBitrate, min(acknowledgedBitrate ?? 0, capacity ?? .infinity))
        let bounded = max(lower, min(chosen.bandwidth, instantUpperBound, delayBasedEstimate, maximumBitrate))
        // Bounded, the estimate keeps its fitted inherent loss (libwebrtc's `BoundBestCandidate` resets it to 0; the
        // next Newton step then starts far from a path's random loss, and at 5 % loss a lower candidate explained the
        // window better: the estimate sawed between 1.19 and 1.5 Mbit/s in `SessionSimulationTests`; str0m keeps it).
        current = chosen
        current.bandwidth = min(max(chosen.bandwidth, lower), max(bounded, lower))
        inherentLoss = current.inherentLoss
        // Hold after a decrease.
        if state == .decreasing, holdUntil > time, bounded < delayBasedEstimate {
            holdRate = min(holdRate, bounded)
            estimate = holdRate
            current.bandwidth = min(current.bandwidth, holdRate)
            return
        }
        let previous = estimate
        if (previous < bounded || (previous == bounded && state == .increasing)), bounded < delayBasedEstimate,
            bounded < maximumBitrate
        {
            state = .increasing
        } else if bounded < delayBasedEstimate, bounded < maximumBitrate {
            if state != .decreasing {
                holdUntil = time + holdDuration
                holdDuration = min(Self.maximumHoldDuration, holdDuration * Self.holdDurationFactor)
                holdRate = bounded
            }
            state = .decreasing
        } else {
            holdUntil = -.infinity
            holdDuration = Self.initialHoldDuration
            holdRate = .infinity
            deliveredAtLoss = .infinity
            state = .delayBasedEstimate
        }
        estimate = bounded
        if state != .delayBasedEstimate, !(recoveringSince + Self.delayedIncreaseWindow >= time) {
            limitInWindow = max(5_000, current.bandwidth * Self.maximumIncreaseFactor)
            recoveringSince = time
        }
    }
}
