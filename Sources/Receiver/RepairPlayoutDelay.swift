import MediaTime
import RTP

/// When a receiver that repairs losses hands each access unit on, so that a frame repaired one round trip late does
/// not freeze the picture: libwebrtc's jitter delay grows by the RTT once NACKs are frequent (NACK-only mode:
/// `JitterEstimator` with `rtt_mult` 1 after `kNackLimit` NACKed frames), and a browser then plays smoothly, a round
/// trip behind. Here, in the same spirit:
/// - Each frame's **expected time** is its RTP time on the fastest arrivals of the last `window` frames: the least
///   (completion - RTP time) among frames that needed no repair.
/// - A frame that needed one (a retransmitted or FEC-recovered packet) completes later than expected by its **repair
///   time**. The **delay** is the longest repair time of the last `memory` frames (and `margin`), at most `maximum`,
///   as long as repairs go on; a whole `window` without one forgets them all, and the delay is 0 until the next, so a
///   clean path (or one whose losses stopped 10 s ago) plays as soon as frames complete, and a repair after such a
///   pause does not bring back a long delay from before it (a playout jump of its length: a freeze of its own). The
///   longer memory is for the rare repair that takes two rounds (its retransmission was lost too): at 150 ms each way
///   and 5 % loss with FEC one comes every 20-60 s, and a delay that forgot it after 10 s froze the picture for a
///   round trip at the next.
/// - A frame is handed on at its expected time plus the delay, or when it completes if that is later; frames stay in
///   order.
///
/// Pure: times come in.
public struct RepairPlayoutDelay: Sendable {
    /// Frames the expected times are taken over, and without a repair in which the delay is forgotten (10 s at
    /// 30 fps, libwebrtc's max filter span).
    public static let window = 300
    /// Frames whose repair times the delay covers while repairs go on (60 s at 30 fps).
    public static let memory = 1800
    /// Added to the longest repair time (frames repaired a little later than the longest seen still play on time).
    public static let margin = Duration.milliseconds(20)

    /// The most delay added (the receiver's latency budget).
    public let maximum: Duration

    private var offsets: [(index: Int, offset: Duration)] = []
    private var repairs: [(index: Int, late: Duration)] = []
    private var frames = 0
    private var unwrapped: Int64?
    private var lastTimestamp: UInt32 = 0

    /// Creates a schedule with no delay yet.
    /// - Parameter maximum: the most delay added (0 adds none).
    public init(maximum: Duration) {
        self.maximum = max(maximum, .zero)
    }

    /// The delay added now.
    public var delay: Duration {
        guard let longest = repairs.first?.late, maximum > .zero else { return .zero }
        return min(longest + Self.margin, maximum)
    }

    /// A frame completed: its expected time, lateness and hand-on time.
    /// - Parameters:
    ///   - timestamp: its RTP timestamp (90 kHz).
    ///   - completed: when its last packet arrived.
    ///   - repaired: whether a packet of it was retransmitted or recovered.
    /// - Returns: when to hand it on (at or after `completed`).
    public mutating func frameCompleted(timestamp: RTPTimestamp, completed: MonotonicTime, repaired: Bool) -> MonotonicTime {
        let ticks = unwrap(timestamp.rawValue)
        let media = Duration.nanoseconds(ticks * 1_000_000 / 90)
        let offset = (completed - .zero) - media
        frames += 1
        let oldest = frames - Self.window
        offsets.removeAll { $0.index <= oldest }
        if let newest = repairs.last, newest.index <= oldest {
            // A window without a repair: the losses stopped. Forget every repair, so that the next one sets the
            // delay from itself rather than bringing back a long one from before (a jump in playout of its length).
            repairs.removeAll(keepingCapacity: true)
        } else {
            repairs.removeAll { $0.index <= frames - Self.memory }
        }
        if !repaired {
            // A monotone deque of offsets: the least in the window is first.
            while let last = offsets.last, last.offset >= offset { offsets.removeLast() }
            offsets.append((frames, offset))
        }
        // Empty only while every frame of the window was repaired.
        guard let fastest = offsets.first?.offset else { return completed }
        let expected = MonotonicTime.zero + media + fastest
        // Expected far from when it completed (beyond four latency budgets either way): the timestamps jumped (a
        // sender that restarted its clock). The old expectations no longer hold; start over from this frame. A
        // repaired frame that completed a little before its expected time is not a jump (an FEC recovery or a small
        // frame can beat the window's fastest completion): it was simply not late. Starting over there threw the
        // delay away, and the next repair froze the picture for a round trip (0.30-0.35 s at 150 ms each way).
        let jump = maximum * 4
        if expected > completed + jump || completed > expected + jump {
            reset()
            if !repaired { offsets.append((frames, offset)) }
            return completed
        }
        if repaired, completed > expected {
            // A monotone deque of repair times, as for the offsets: the longest in the memory is first, and the last is
            // the newest repair (the window's test above reads it). At most one a frame: the memory bounds them.
            let late = completed - expected
            while let last = repairs.last, last.late <= late { repairs.removeLast() }
            repairs.append((frames, late))
        }
        let release = expected + delay
        return release > completed ? release : completed
    }

    /// Forgets every expectation and repair (a new stream: the sender restarted): no delay until the next repair.
    public mutating func reset() {
        offsets.removeAll(keepingCapacity: true)
        repairs.removeAll(keepingCapacity: true)
        unwrapped = nil
    }

    private mutating func unwrap(_ timestamp: UInt32) -> Int64 {
        guard let previous = unwrapped else {
            unwrapped = Int64(timestamp)
            lastTimestamp = timestamp
            return Int64(timestamp)
        }
        let next = previous + Int64(Int32(bitPattern: timestamp &- lastTimestamp))
        unwrapped = next
        lastTimestamp = timestamp
        return next
    }
}
