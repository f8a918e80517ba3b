import MediaTime
import RTP

/// Decides which frame answers a keyframe request (PLI, FIR, `requestKeyframe()`), and which frames may switch the
/// resolution (an IDR as well): the one owner of "a keyframe is wanted".
///
/// At most one requested keyframe per `minimumInterval` (300 ms by default, like libwebrtc's
/// `kMinKeyframeSendIntervalMs`): a flood of PLIs cannot turn the stream into all-IDR. A request that arrives inside the
/// window is kept and served by the first frame after the window ends, never lost. Any keyframe, requested or periodic,
/// satisfies the requests that came before it. Time is passed in; this type reads no clock.
///
/// The window is measured in media time: frames are checked and keyframes recorded at their capture time, which
/// their RTP timestamps follow, so two requested IDRs are never closer than the window in RTP time, however long
/// each frame waited for the encoder. Requests are recorded at their arrival time (for the keyframe latency); both
/// are on the sender's monotonic clock.
public struct KeyframeRequestThrottle: Sendable {
    /// The shortest time between two keyframes produced on request.
    public var minimumInterval: Duration
    /// Whether a request is waiting to be served.
    public private(set) var isPending: Bool = false
    /// When the oldest request still waiting arrived (for the keyframe latency).
    public private(set) var pendingSince: MonotonicTime?
    /// The media time (capture time) of the last keyframe, if any.
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

    /// Asks whether the frame captured at `now` (its media time), about to be encoded, must be forced to an IDR.
    ///
    /// True while a request is pending and the window of the last keyframe has passed; the request stays pending
    /// until a keyframe is actually encoded (a frame skipped by rate control does not lose it).
    /// - Parameter now: the frame's capture time (what its RTP timestamp follows), not when it is encoded.
    public func shouldForceKeyframe(at now: MonotonicTime) -> Bool {
        isPending && !isWithinWindow(at: now)
    }

    /// Whether the frame captured at `now` is inside the window of the last keyframe: no keyframe may start there,
    /// requested or caused by a resolution switch (which needs an IDR for its new SPS).
    /// - Parameter now: the frame's capture time (its media time).
    public func isWithinWindow(at now: MonotonicTime) -> Bool {
        guard let last = lastKeyframeTime else { return false }
        return now - last < minimumInterval
    }

    /// Records that the frame captured at `now` was encoded as a keyframe (requested or not); earlier requests are
    /// satisfied by it.
    /// - Parameter now: the keyframe's capture time (its media time), not when it was encoded.
    /// - Returns: the time from the oldest request it served to `now`, if one was pending.
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
