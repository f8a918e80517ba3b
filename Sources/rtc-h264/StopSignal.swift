import Synchronization

/// SIGINT/SIGTERM, awaited without holding a thread (on Linux a blocked Dispatch thread is one less for Swift
/// concurrency's pool, which the HTTP handlers need).
final class StopSignal: Sendable {
    private struct State {
        var fired = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Whether the signal came.
    var fired: Bool { state.withLock { $0.fired } }

    /// Records the signal and wakes the waiter; idempotent, safe from any thread.
    func fire() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.fired else { return nil }
            state.fired = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once the signal came (at once if it already did). One waiter.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.fired { return true }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}
