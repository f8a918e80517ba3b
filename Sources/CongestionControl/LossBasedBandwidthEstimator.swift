import MediaTime
import RTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin

#endif

/// The loss-based half of Google congestion control (draft-ietf-rmcat-gcc-02 section 6; libwebrtc
/// `SendSideBandwidthEstimation`), driven by receiver reports.
///
/// Loss is accumulated over report blocks until they cover at least 20 packets (libwebrtc `kLimitNumPackets`), so
/// that a report about three packets cannot halve the rate. Then, with `loss` the lost fraction:
/// - below 2 %: the target grows 8 % per second of time since the last increase (libwebrtc: x1.08 once per
///   `kBweIncreaseInterval` of 1 s), plus 1 kbit/s;
/// - above 10 %: the target becomes target x (1 - loss / 2), at most once per 300 ms + RTT
///   (libwebrtc `kBweDecreaseInterval`), so one loss episode is not counted twice;
/// - in between: hold.
/// The target always stays within `minimumBitrate...maximumBitrate`.
public struct LossBasedBandwidthEstimator: Sendable {
    /// Loss below this raises the target (draft-ietf-rmcat-gcc-02 section 6: 2 %).
    public static let lowLossThreshold = 0.02
    /// Loss above this lowers the target (draft-ietf-rmcat-gcc-02 section 6: 10 %).
    public static let highLossThreshold = 0.10
    /// The growth per second at low loss (libwebrtc: 8 %).
    public static let increaseFactorPerSecond = 1.08
    /// The additive growth per second at low loss (libwebrtc adds 1 kbit/s per increase).
    public static let additiveIncreasePerSecond = 1_000.0
    /// Reports are accumulated until they cover this many packets (libwebrtc `kLimitNumPackets`).
    public static let minimumPacketsPerUpdate = 20
    /// The least time between two decreases, before adding the RTT (libwebrtc `kBweDecreaseInterval`).
    public static let decreaseInterval: Duration = .milliseconds(300)
    /// The longest stretch of time one increase may cover (one increase interval).
    static let maximumIncreaseSpan: Duration = .seconds(1)
    /// How long a low-loss report keeps the target growing between reports (libwebrtc: 1.2 x
    /// `kMaxRtcpFeedbackInterval` of 5 s).
    public static let reportValidity: Duration = .seconds(6)

    /// The lowest target.
    public let minimumBitrate: Int
    /// The highest target.
    public let maximumBitrate: Int
    /// The current estimate in bits per second.
    public private(set) var targetBitrate: Int
    /// The last loss fraction applied (0...1), nil before the first update.
    public private(set) var lastLoss: Double?

    private var lastIncrease: MonotonicTime?
    private var lastReport: MonotonicTime?
    private var lastDecrease: MonotonicTime?
    private var previousBlock: ReportBlock?
    private var accumulatedExpected = 0
    private var accumulatedLost = 0

    /// Creates an estimator.
    /// - Parameters:
    ///   - initialBitrate: the starting target (clamped into the bounds).
    ///   - minimumBitrate: the lowest target, at least 1 kbit/s.
    ///   - maximumBitrate: the highest target, at most 10 Gbit/s.
    /// - Throws: `BandwidthEstimatorError.invalidBounds`.
    public init(initialBitrate: Int, minimumBitrate: Int = 30_000, maximumBitrate: Int = 20_000_000)
        throws(BandwidthEstimatorError)
    {
        guard minimumBitrate >= 1_000, minimumBitrate <= maximumBitrate, maximumBitrate <= 10_000_000_000 else {
            throw .invalidBounds(minimum: minimumBitrate, maximum: maximumBitrate)
        }
        self.minimumBitrate = minimumBitrate
        self.maximumBitrate = maximumBitrate
        self.targetBitrate = min(max(initialBitrate, minimumBitrate), maximumBitrate)
    }

    /// Feeds one report block about our media SSRC (from an SR or RR). The packets it covers are the growth of the
    /// extended highest sequence number since the previous block, the packets lost the growth of the cumulative loss.
    /// The first block only sets the baseline.
    /// - Parameters:
    ///   - block: the report block.
    ///   - now: the current time.
    ///   - roundTripTime: the current RTT estimate, if any.
    /// - Returns: the target after this report.
    @discardableResult
    public mutating func update(with block: ReportBlock, now: MonotonicTime, roundTripTime: Duration?) -> Int {
        defer { previousBlock = block }
        guard let previous = previousBlock else { return targetBitrate }
        // Both fields wrap (32 bits, 24 bits signed); a receiver restart can move them back: ignore such a report.
        let expected = Int(Int32(bitPattern: block.extendedHighestSequenceNumber &- previous.extendedHighestSequenceNumber))
        let lost = Int(block.cumulativeLost) - Int(previous.cumulativeLost)
        guard expected > 0 else { return targetBitrate }
        return update(packetsExpected: expected, packetsLost: lost, now: now, roundTripTime: roundTripTime)
    }

    /// Feeds a loss count directly.
    /// - Parameters:
    ///   - packetsExpected: packets the report interval covers (ignored when not positive).
    ///   - packetsLost: packets lost in it (clamped to `0...packetsExpected`; duplicates can make it negative).
    ///   - now: the current time.
    ///   - roundTripTime: the current RTT estimate, if any.
    /// - Returns: the target after this report.
    @discardableResult
    public mutating func update(packetsExpected: Int, packetsLost: Int, now: MonotonicTime, roundTripTime: Duration?)
        -> Int
    {
        guard packetsExpected > 0, packetsExpected < Int(Int32.max) else { return targetBitrate }
        accumulatedExpected += packetsExpected
        accumulatedLost += min(max(packetsLost, 0), packetsExpected)
        guard accumulatedExpected >= Self.minimumPacketsPerUpdate else { return targetBitrate }
        let loss = Double(accumulatedLost) / Double(accumulatedExpected)
        accumulatedExpected = 0
        accumulatedLost = 0
        apply(loss: loss, now: now, roundTripTime: roundTripTime)
        return targetBitrate
    }

    /// Lets the target grow between receiver reports while the latest one (at most `reportValidity` old) showed low
    /// loss, as libwebrtc's `SendSideBandwidthEstimation::UpdateEstimate` does on its 25 ms timer. Called on each
    /// transport-wide feedback: without it the loss-based estimate, capped by the delay-based one after each cut,
    /// only grew once per report and held the target up to one report interval (~50 kbit/s) below the delay-based
    /// estimate (network benchmark, bottleneck case: limited by `lossBased` 55 of 60 s).
    /// - Parameter now: the current time.
    public mutating func increaseBetweenReports(now: MonotonicTime) {
        guard let loss = lastLoss, loss < Self.lowLossThreshold, let report = lastReport,
            now - report <= Self.reportValidity
        else { return }
        increase(now: now)
    }

    private mutating func increase(now: MonotonicTime) {
        let since = lastIncrease.map { max(.zero, now - $0) } ?? Self.maximumIncreaseSpan
        let span = min(since, Self.maximumIncreaseSpan).inSeconds
        let grown = Double(targetBitrate) * pow(Self.increaseFactorPerSecond, span)
            + Self.additiveIncreasePerSecond * span
        set(grown)
        lastIncrease = now
    }

    private mutating func apply(loss: Double, now: MonotonicTime, roundTripTime: Duration?) {
        lastLoss = loss
        lastReport = now
        if loss < Self.lowLossThreshold {
            increase(now: now)
        } else if loss > Self.highLossThreshold {
            let interval = Self.decreaseInterval + max(.zero, roundTripTime ?? .zero)
            if let last = lastDecrease, now - last < interval { return }
            set(Double(targetBitrate) * (1 - 0.5 * loss))
            lastDecrease = now
            lastIncrease = now
        } else {
            lastIncrease = now
        }
    }

    /// Lowers the target to `bitrate` when above it: the combined estimate (`SendSideBandwidthEstimator`) caps the
    /// loss-based one by the delay-based estimate and the receiver's limits, so that growth restarts from the rate
    /// actually used (libwebrtc `SendSideBandwidthEstimation::GetUpperLimit`).
    /// - Parameter bitrate: the upper limit in bits per second (the minimum still applies).
    public mutating func limit(to bitrate: Int) {
        if bitrate < targetBitrate { set(Double(bitrate)) }
    }

    /// Raises the target to `bitrate` when below it: a probe measured that much getting through
    /// (libwebrtc `SendSideBandwidthEstimation::SetSendBitrate` after a probe).
    /// - Parameter bitrate: the measured rate in bits per second (the maximum still applies).
    public mutating func raise(to bitrate: Int) {
        if bitrate > targetBitrate { set(Double(bitrate)) }
    }

    private mutating func set(_ bitrate: Double) {
        let bounded = min(max(bitrate.isFinite ? bitrate : Double(minimumBitrate), Double(minimumBitrate)),
                          Double(maximumBitrate))
        targetBitrate = Int(bounded)
    }
}
