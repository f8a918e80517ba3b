/// Decides which frame answers a keyframe request (PLI, FIR, the control endpoint).
///
/// At most one requested keyframe per `minimumInterval` (300 ms by default, like libwebrtc's
/// `kMinKeyframeSendIntervalMs`): a flood of PLIs cannot turn the stream into all-IDR. A request that arrives inside the
/// window is kept and served by the first frame after the window ends, never lost. Any keyframe, requested or periodic,
/// satisfies the requests that came before it. Time is passed in (monotonic nanoseconds); this type reads no clock.
public struct KeyframeRequestThrottle: Sendable {
    /// The shortest time between two keyframes produced on request, in nanoseconds.
    public var minimumInterval: Int64
    /// Whether a request is waiting to be served.
    public private(set) var isPending: Bool = false
    /// Monotonic time of the last keyframe encoded, if any.
    public private(set) var lastKeyframeTime: Int64?

    /// The default window: 300 ms.
    public static let defaultMinimumInterval: Int64 = 300_000_000

    /// Creates a throttle.
    /// - Parameter minimumInterval: nanoseconds between requested keyframes (0 disables throttling).
    public init(minimumInterval: Int64 = defaultMinimumInterval) {
        self.minimumInterval = max(0, minimumInterval)
    }

    /// Records a keyframe request.
    public mutating func request() {
        isPending = true
    }

    /// Asks whether the frame about to be encoded at `now` must be forced to an IDR.
    ///
    /// Returns true at most once per pending request, and only outside the window of the last keyframe.
    /// - Parameter now: the monotonic time of the frame, in nanoseconds.
    public mutating func shouldForceKeyframe(at now: Int64) -> Bool {
        guard isPending else { return false }
        if let last = lastKeyframeTime, now - last < minimumInterval { return false }
        isPending = false
        return true
    }

    /// Records that a keyframe was encoded at `now` (requested or not); earlier requests are satisfied by it.
    /// - Parameter now: the monotonic time of the keyframe, in nanoseconds.
    public mutating func keyframeEncoded(at now: Int64) {
        lastKeyframeTime = now
        isPending = false
    }
}
