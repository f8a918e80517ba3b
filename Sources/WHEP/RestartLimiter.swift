import MediaTime

/// The bound on one viewer's ICE restarts (an ICE restart storm): at most one a second and `perMinute` a minute.
/// Pure: the times come in as values.
struct RestartLimiter: Sendable {
    /// The least time between two restarts.
    static let minimumInterval = Duration.seconds(1)
    /// The most restarts within a minute.
    static let perMinute = 10

    /// When the viewer restarted, newest last (at most `perMinute`).
    private var times: [MonotonicTime] = []

    /// Why a restart at `now` is refused: the seconds to wait (for `Retry-After`), or nil when it may go ahead.
    mutating func refusal(now: MonotonicTime) -> Int? {
        times.removeAll { now - $0 >= .seconds(60) }
        if let last = times.last, now - last < Self.minimumInterval { return 1 }
        guard times.count >= Self.perMinute else { return nil }
        let wait = times.first.map { Duration.seconds(60) - (now - $0) } ?? .seconds(60)
        return max(1, Int((wait / .seconds(1)).rounded(.up)))
    }

    /// Records a restart that went ahead at `now`.
    mutating func record(now: MonotonicTime) {
        times.append(now)
    }
}
