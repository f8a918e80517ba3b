import Dispatch
import Synchronization

/// SIGINT/SIGTERM, awaited.
final class StopSignal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let state = Mutex(false)

    var fired: Bool { state.withLock { $0 } }

    func fire() {
        let first = state.withLock { fired in
            defer { fired = true }
            return !fired
        }
        if first { semaphore.signal() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.semaphore.wait()
                continuation.resume()
            }
        }
    }
}
