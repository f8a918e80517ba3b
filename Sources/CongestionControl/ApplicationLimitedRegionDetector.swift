import MediaTime

/// Tells when the sender is application-limited: sending well under its estimate, so that the path's feedback says
/// nothing about capacity above what is sent (libwebrtc `AlrDetector`).
///
/// A budget fills at `bandwidthUsageRatio` x the estimate and each packet sent spends its size; the budget holds at
/// most `window` of that rate (and owes at most as much). The sender enters the application-limited region (ALR)
/// when more than `startBudgetLevel` of the budget is left unspent and leaves it when less than `stopBudgetLevel` is.
/// With libwebrtc's values (0.65, 0.80, 0.50, 500 ms) an encoder at 50 % of the estimate enters ALR within about a
/// second and one at the estimate never does. Pure: time comes in as values.
public struct ApplicationLimitedRegionDetector: Sendable {
    /// The budget's rate over the estimate (libwebrtc `bandwidth_usage_ratio`: 0.65).
    public static let bandwidthUsageRatio = 0.65
    /// Unspent budget above this fraction starts ALR (libwebrtc `start_budget_level_ratio`: 0.80).
    public static let startBudgetLevel = 0.80
    /// Unspent budget below this fraction ends ALR (libwebrtc `stop_budget_level_ratio`: 0.50).
    public static let stopBudgetLevel = 0.50
    /// The span of sending the budget holds (libwebrtc `IntervalBudget`'s window: 500 ms).
    public static let window = Duration.milliseconds(500)

    /// Whether the sender is in the application-limited region.
    public private(set) var isApplicationLimited = false
    /// Times the sender entered the region.
    public private(set) var regionsEntered = 0

    private var rate: Double = 0  // bytes per second the budget fills at
    private var remaining: Double = 0  // bytes
    private var lastSend: MonotonicTime?

    /// Creates a detector (not application-limited until sending shows it).
    public init() {}

    /// The fraction of the budget left unspent (-1...1).
    public var budgetLevel: Double {
        let capacity = rate * Self.window.inSeconds
        return capacity > 0 ? remaining / capacity : 0
    }

    /// Sets the estimate the budget follows.
    /// - Parameter bitsPerSecond: the current estimate (the budget fills at `bandwidthUsageRatio` x it).
    public mutating func setEstimate(_ bitsPerSecond: Int) {
        rate = max(0, Double(bitsPerSecond)) * Self.bandwidthUsageRatio / 8
        let capacity = rate * Self.window.inSeconds
        remaining = min(max(remaining, -capacity), capacity)
    }

    /// Records a packet sent.
    /// - Parameters:
    ///   - size: its size in bytes.
    ///   - now: when it left.
    public mutating func packetSent(size: Int, now: MonotonicTime) {
        let capacity = rate * Self.window.inSeconds
        guard capacity > 0 else { return }
        if let last = lastSend {
            remaining = min(remaining + rate * max(.zero, now - last).inSeconds, capacity)  // full after one window
        }
        lastSend = now
        remaining = max(remaining - Double(max(size, 0)), -capacity)
        let level = remaining / capacity
        if !isApplicationLimited, level > Self.startBudgetLevel {
            isApplicationLimited = true
            regionsEntered += 1
        } else if isApplicationLimited, level < Self.stopBudgetLevel {
            isApplicationLimited = false
        }
    }
}
