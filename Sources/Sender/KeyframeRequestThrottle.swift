import RTP

/// Decides which frame answers a keyframe request (PLI, FIR, `requestKeyframe()`): the one owner of "a keyframe is
/// wanted".
///
/// At most one requested keyframe per `minimumInterval` (300 ms by default, like libwebrtc's
/// `kMinKeyframeSendIntervalMs`): a flood of PLIs cannot turn the stream into all-IDR. A request that arrives inside the
/// window is kept and served by the first frame after the window ends, never lost. Any keyframe, requested or periodic,
/// satisfies the requests that came before it. Time is passed in; this type reads no clock.
public struct KeyframeRequestThrottle: Sendable {
    /// The shortest time between two keyframes produced on request.
    public var minimumInterval: Duration
    /// Whether a request is waiting to be served.
    public private(set) var isPending: Bool = false
    /// When the oldest request still waiting arrived (for the keyframe latency).
    public private(set) var pendingSince: MonotonicTime?
    /// When the last keyframe was encoded, if any.
    public private(set) var lastKeyframeTime: MonotonicTime?

    /// The default window: 300 ms.
    public static let defaultMinimumInterval = Duration.milliseconds(300)

    /// Creates a throttle.
    /// - Parameter minimumInterval: the window between requested keyframes (zero or less disables throttling).
    public init(minimumInterval: Duration = defaultMinimumInterval) {
        self.minimumInterval = max(.zero, minimumInterval)
    }

    /// Records a keyframe request.
    /// - Parameter now: when it arrived.
    public mutating func request(at now: MonotonicTime) {
        if !isPending { pendingSince = now }
        isPending = true
    }

    /// Asks whether the frame about to be encoded at `now` must be forced to an IDR.
    ///
    /// True while a request is pending and the window of the last keyframe has passed; the request stays pending
    /// until a keyframe is actually encoded (a frame skipped by rate control does not lose it).
    /// - Parameter now: the time of the frame.
    public func shouldForceKeyframe(at now: MonotonicTime) -> Bool {
        guard isPending else { return false }
        if let last = lastKeyframeTime, now - last < minimumInterval { return false }
        return true
    }

    /// Records that a keyframe was encoded at `now` (requested or not); earlier requests are satisfied by it.
    /// - Parameter now: the time of the keyframe.
    /// - Returns: how long the request it served had waited, if one was pending.
    @discardableResult
    public mutating func keyframeEncoded(at now: MonotonicTime) -> Duration? {
        lastKeyframeTime = now
        defer {
            isPending = false
            pendingSince = nil
        }
        return pendingSince.map { now - $0 }
    }
}
