import NIOCore
import Synchronization

/// The viewers, bounded: a slot is reserved before a socket is opened, so a flood of offers cannot hold more than
/// the limit of sockets and sessions.
final class ViewerTable: Sendable {
    /// A session, reachable from any thread through its loop.
    struct Handle: Sendable {
        let loop: EventLoop
        let session: NIOLoopBound<ViewerSession>
    }

    private struct State {
        var reserved = 0
        var sessions: [String: Handle] = [:]
        var closed = false
    }

    let limit: Int
    private let state: Mutex<State>

    init(limit: Int) {
        self.limit = limit
        state = Mutex(State())
    }

    /// Reserves a slot for a viewer being set up; false when full or closed.
    func reserve() -> Bool {
        state.withLock { state in
            guard !state.closed, state.reserved + state.sessions.count < limit else { return false }
            state.reserved += 1
            return true
        }
    }

    /// Gives a reserved slot back (the set-up failed).
    func release() {
        state.withLock { $0.reserved -= 1 }
    }

    /// Turns a reserved slot into a session; false once the table is closed (the caller ends the session).
    func install(_ id: String, _ handle: Handle) -> Bool {
        state.withLock { state in
            state.reserved -= 1
            guard !state.closed else { return false }
            state.sessions[id] = handle
            return true
        }
    }

    /// Removes a session.
    func remove(_ id: String) {
        _ = state.withLock { $0.sessions.removeValue(forKey: id) }
    }

    /// A session by id.
    func session(_ id: String) -> Handle? {
        state.withLock { $0.sessions[id] }
    }

    /// Every session.
    var all: [Handle] { state.withLock { Array($0.sessions.values) } }

    /// Sessions plus slots being set up.
    var count: Int { state.withLock { $0.sessions.count + $0.reserved } }

    /// Refuses new sessions from now on; returns the ones to end.
    func close() -> [Handle] {
        state.withLock { state in
            state.closed = true
            return Array(state.sessions.values)
        }
    }
}
