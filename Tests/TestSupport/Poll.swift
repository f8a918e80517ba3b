/// Waiting for something another thread or process brings about (a datagram, a reply, a counter), by asking again
/// until it holds. Suspends between the tries, so no thread of Swift concurrency's pool waits.
public enum Poll {
    /// Evaluates `condition` every `interval` until it holds or `seconds` have passed.
    /// - Parameters:
    ///   - seconds: how long to keep asking.
    ///   - interval: the pause between two tries.
    ///   - condition: the question; may suspend (an event loop's answer).
    /// - Returns: whether it held in time (false after a cancellation too).
    /// - Throws: what `condition` throws.
    public static func until(
        seconds: Double = 10, every interval: Duration = .milliseconds(10), _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline, !Task.isCancelled {
            if try await condition() { return true }
            try? await Task.sleep(for: interval)
        }
        return try await condition()
    }
}
