import MediaTime
import RTP

/// Counts video freezes the way browsers report them in `getStats` (`freezeCount`, `totalFreezesDuration`;
/// W3C webrtc-stats, libwebrtc `VideoQualityObserver`): a freeze is an interval between two rendered frames of at
/// least max(3 x average, average + 150 ms), the average being that of the last 30 intervals (this one included,
/// rounded down to whole milliseconds), once at least 5 intervals have been seen.
public struct FreezeDetector: Sendable {
    /// Intervals averaged (libwebrtc `kAvgInterframeDelaysWindowSizeFrames`).
    public static let averagingWindow = 30
    /// Intervals needed before any freeze is detected (libwebrtc `kMinFrameSamplesToDetectFreeze`).
    public static let minimumSamples = 5
    /// The least increase over the average that counts (libwebrtc `kMinIncreaseForFreezeMs`).
    public static let minimumIncrease: Duration = .milliseconds(150)
    /// The factor over the average that counts.
    public static let averageFactor: Int64 = 3

    /// Frames rendered.
    public private(set) var framesRendered = 0
    /// Freezes detected.
    public private(set) var freezeCount = 0
    /// The sum of the freezes' intervals.
    public private(set) var totalFreezesDuration: Duration = .zero
    /// The longest freeze interval.
    public private(set) var longestFreeze: Duration = .zero

    private var lastFrame: MonotonicTime?
    private var window = [Int64](repeating: 0, count: averagingWindow)
    private var windowCount = 0
    private var windowNext = 0
    private var windowSum: Int64 = 0

    /// Creates a detector.
    public init() {}

    /// Reports a rendered (decoded and shown) frame.
    /// - Parameter now: when it was rendered.
    /// - Returns: the freeze that ended with this frame (its interval), or nil.
    @discardableResult
    public mutating func frameRendered(at now: MonotonicTime) -> Duration? {
        framesRendered += 1
        defer { lastFrame = now }
        guard let last = lastFrame else { return nil }
        let intervalMs = max(0, (now - last).saturatingNanoseconds / 1_000_000)
        if windowCount == Self.averagingWindow { windowSum -= window[windowNext] } else { windowCount += 1 }
        window[windowNext] = intervalMs
        windowSum = windowSum.addingSaturating(intervalMs)
        windowNext = (windowNext + 1) % Self.averagingWindow
        guard windowCount >= Self.minimumSamples else { return nil }
        let average = windowSum / Int64(windowCount)
        let threshold = max(average.multipliedSaturating(by: Self.averageFactor),
                            average.addingSaturating(Self.minimumIncrease.saturatingNanoseconds / 1_000_000))
        guard intervalMs >= threshold else { return nil }
        let freeze = Duration.milliseconds(intervalMs)
        freezeCount += 1
        totalFreezesDuration += freeze
        longestFreeze = max(longestFreeze, freeze)
        return freeze
    }
}
