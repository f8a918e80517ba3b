import MediaTime
import RTP
import Synchronization
@testable import Sender

/// A monotonic clock that moves only when told, for stages driven in a test.
final class ManualClock: Sendable {
    private let nanoseconds = Mutex<Int64>(0)

    /// Now.
    var now: MonotonicTime { MonotonicTime(nanoseconds: nanoseconds.withLock { $0 }) }

    /// Moves the clock on.
    /// - Parameter duration: how far.
    func advance(by duration: Duration) {
        nanoseconds.withLock { $0 += duration.saturatingNanoseconds }
    }

    /// Moves the clock to `time` if it is behind it.
    /// - Parameter time: the time.
    func advance(to time: MonotonicTime) {
        nanoseconds.withLock { $0 = max($0, time.nanoseconds) }
    }

    /// The sender's clocks on this one (the wall clock stays at zero: nothing here sends a Sender Report).
    var senderClock: MediaClock {
        MediaClock(monotonic: { self.now }, wall: { NTPTimestamp(rawValue: 0) })
    }
}
