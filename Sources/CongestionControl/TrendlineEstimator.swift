/// The delay-gradient overuse detector of Google congestion control (draft-ietf-rmcat-gcc-02 section 5.3 and 5.4;
/// libwebrtc `TrendlineEstimator`): the accumulated one-way delay variation is smoothed, a line is fitted through
/// the last 20 points, and its slope (scaled) is compared with an adaptive threshold. Times in ms.
struct TrendlineEstimator: Sendable {
    /// Points in the linear fit (libwebrtc `kDefaultTrendlineWindowSize`).
    static let windowSize = 20
    /// Smoothing of the accumulated delay (libwebrtc `kDefaultTrendlineSmoothingCoeff`).
    static let smoothingCoefficient = 0.9
    /// Gain applied to the slope (libwebrtc `kDefaultTrendlineThresholdGain`).
    static let thresholdGain = 4.0
    /// The slope is scaled by the number of deltas seen, up to this (libwebrtc `kMinNumDeltas`).
    static let maxDeltasInGain = 60
    /// Threshold adaptation rates up and down (libwebrtc `k_up_`, `k_down_`; draft section 5.4).
    static let thresholdUpRate = 0.0087
    static let thresholdDownRate = 0.039
    /// Overuse must last this long before it is signalled (libwebrtc `overusing_time_threshold_`).
    static let overusingTimeThreshold = 10.0
    /// The initial threshold and its bounds (libwebrtc `threshold_` 12.5, clamped to 6...600).
    static let initialThreshold = 12.5
    static let thresholdRange = 6.0...600.0
    /// Trends further than this beyond the threshold do not adapt it (libwebrtc `kMaxAdaptOffsetMs`).
    static let maxAdaptOffset = 15.0
    /// The longest time step of one threshold adaptation (libwebrtc `kMaxTimeDeltaMs`).
    static let maxAdaptTimeDelta = 100.0
    /// The delta counter's cap (libwebrtc `kDeltaCounterMax`).
    static let deltaCounterMax = 1000

    private(set) var state = BandwidthUsage.normal
    private(set) var threshold = initialThreshold
    private(set) var modifiedTrend = 0.0

    private var deltas = 0
    private var firstArrival: Double?
    private var accumulatedDelay = 0.0
    private var smoothedDelay = 0.0
    private var history: [(x: Double, y: Double)] = []
    private var trend = 0.0
    private var previousTrend = 0.0
    private var timeOverUsing = -1.0
    private var overuseCounter = 0
    private var lastThresholdUpdate: Double?

    init() { history.reserveCapacity(Self.windowSize + 1) }

    /// Whether the window is full: a trend is fitted from here on.
    var hasTrend: Bool { history.count == Self.windowSize }

    /// Adds one group delta.
    /// - Parameters:
    ///   - arrivalDelta: arrival time difference between two groups (ms).
    ///   - sendDelta: send time difference (ms).
    ///   - arrival: the group's arrival time (ms, receiver clock).
    mutating func update(arrivalDelta: Double, sendDelta: Double, arrival: Double) {
        let delta = arrivalDelta - sendDelta
        deltas = min(deltas + 1, Self.deltaCounterMax)
        if firstArrival == nil { firstArrival = arrival }
        accumulatedDelay += delta
        smoothedDelay = Self.smoothingCoefficient * smoothedDelay + (1 - Self.smoothingCoefficient) * accumulatedDelay
        history.append((arrival - (firstArrival ?? arrival), smoothedDelay))
        if history.count > Self.windowSize { history.removeFirst() }
        if history.count == Self.windowSize, let slope = Self.linearFitSlope(history) { trend = slope }
        detect(sendDelta: sendDelta, now: arrival)
    }

    static func linearFitSlope(_ points: [(x: Double, y: Double)]) -> Double? {
        let n = Double(points.count)
        let xAverage = points.reduce(0) { $0 + $1.x } / n
        let yAverage = points.reduce(0) { $0 + $1.y } / n
        var numerator = 0.0
        var denominator = 0.0
        for point in points {
            numerator += (point.x - xAverage) * (point.y - yAverage)
            denominator += (point.x - xAverage) * (point.x - xAverage)
        }
        return denominator == 0 ? nil : numerator / denominator
    }

    private mutating func detect(sendDelta: Double, now: Double) {
        guard deltas >= 2 else {
            state = .normal
            return
        }
        modifiedTrend = Double(min(deltas, Self.maxDeltasInGain)) * trend * Self.thresholdGain
        if modifiedTrend > threshold {
            if timeOverUsing == -1 {
                timeOverUsing = sendDelta / 2  // assume the overuse started half-way through this delta
            } else {
                timeOverUsing += sendDelta
            }
            overuseCounter += 1
            if timeOverUsing > Self.overusingTimeThreshold, overuseCounter > 1, trend >= previousTrend {
                timeOverUsing = 0
                overuseCounter = 0
                state = .overusing
            }
        } else if modifiedTrend < -threshold {
            timeOverUsing = -1
            overuseCounter = 0
            state = .underusing
        } else {
            timeOverUsing = -1
            overuseCounter = 0
            state = .normal
        }
        previousTrend = trend
        updateThreshold(now: now)
    }

    private mutating func updateThreshold(now: Double) {
        let last = lastThresholdUpdate ?? now
        lastThresholdUpdate = now
        let magnitude = abs(modifiedTrend)
        if magnitude > threshold + Self.maxAdaptOffset { return }  // a spike: do not adapt to it
        let rate = magnitude < threshold ? Self.thresholdDownRate : Self.thresholdUpRate
        let step = min(max(now - last, 0), Self.maxAdaptTimeDelta)
        threshold += rate * (magnitude - threshold) * step
        threshold = min(max(threshold, Self.thresholdRange.lowerBound), Self.thresholdRange.upperBound)
    }
}
