import Dispatch
import MediaTime
import Synchronization
import RTP
import Video

/// The sender's intake: one slot for the next frame to encode, filled by the application's thread and emptied by the
/// encoder's.
///
/// When a frame arrives while the previous one is still waiting (the encoder is busy), the newer one wins and the
/// older is counted as dropped, as a real-time sender must: a camera never waits for the encoder. A producer that
/// must not lose frames (a file) waits for the slot instead (`waitForSpace()`). Buffers circulate between the slot,
/// the encoder and the producer, so nothing is allocated per frame once the first few frames have passed.
final class FrameMailbox: Sendable {
    /// A frame waiting for the encoder.
    struct Slot {
        var frame: I420Frame
        var captureTime: MonotonicTime
    }

    private struct State: ~Copyable {
        var pending: Slot?
        var spares: [I420Frame] = []
        var encoderScheduled = false
        var dropped = 0
        var closed = false
        var spaceWaiters: [CheckedContinuation<Void, Never>] = []
        var blockedWaiters: [DispatchSemaphore] = []
    }

    /// Buffers kept for reuse (one being filled, one pending, one being encoded).
    static let maximumSpares = 3

    private let state = Mutex(State())

    /// Frames replaced in the slot before the encoder took them.
    var droppedFrames: Int { state.withLock { $0.dropped } }

    /// Fills a buffer outside the lock and puts it in the slot, replacing (and counting) a frame still waiting.
    /// - Parameters:
    ///   - captureTime: the frame's capture time.
    ///   - fill: writes the picture into a reused buffer (of any size; it may replace it).
    /// - Returns: whether the encoder must be woken (nothing was scheduled) and whether a waiting frame was replaced.
    /// - Throws: `SenderError.finished` after `close()`, or what `fill` throws (then the slot is unchanged).
    func put(captureTime: MonotonicTime, fill: (inout I420Frame) throws -> Void) throws -> (wake: Bool, replaced: Bool) {
        var buffer: I420Frame = try state.withLock { state throws(SenderError) in
            guard !state.closed else { throw SenderError.finished }
            return state.spares.popLast() ?? I420Frame(width: 2, height: 2)
        }
        do {
            try fill(&buffer)
        } catch {
            recycle(buffer)
            throw error
        }
        let filled = buffer
        return state.withLock { state in
            var replaced = false
            if let old = state.pending {
                state.dropped += 1
                replaced = true
                if state.spares.count < Self.maximumSpares { state.spares.append(old.frame) }
            }
            state.pending = Slot(frame: filled, captureTime: captureTime)
            if state.encoderScheduled { return (false, replaced) }
            state.encoderScheduled = true
            return (true, replaced)
        }
    }

    /// Takes the waiting frame, or marks the encoder idle when there is none.
    /// - Returns: the frame, or nil (then the next `put` wakes the encoder again).
    func take() -> Slot? {
        let (slot, waiters, blocked) = state.withLock { state -> (Slot?, [CheckedContinuation<Void, Never>], [DispatchSemaphore]) in
            guard let slot = state.pending else {
                state.encoderScheduled = false
                return (nil, [], [])
            }
            state.pending = nil
            defer {
                state.spaceWaiters.removeAll()
                state.blockedWaiters.removeAll()
            }
            return (slot, state.spaceWaiters, state.blockedWaiters)
        }
        for waiter in waiters { waiter.resume() }
        for waiter in blocked { waiter.signal() }
        return slot
    }

    /// Blocks the calling thread until the slot is empty: `waitForSpace()` for a producer on a thread of its own (a
    /// `FramePump`), without a task hop per frame.
    func waitForSpaceBlocking() {
        let semaphore = DispatchSemaphore(value: 0)
        let ready = state.withLock { state -> Bool in
            if state.pending == nil || state.closed { return true }
            state.blockedWaiters.append(semaphore)
            return false
        }
        if !ready { semaphore.wait() }
    }

    /// Gives a buffer back for reuse.
    /// - Parameter frame: a buffer the encoder is done with.
    func recycle(_ frame: consuming I420Frame) {
        let frame = frame
        state.withLock { state in
            if state.spares.count < Self.maximumSpares { state.spares.append(frame) }
        }
    }

    /// Waits until the slot is empty (the encoder took the last frame), for producers that must not drop frames.
    func waitForSpace() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.pending == nil || state.closed { return true }
                state.spaceWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Refuses further frames and releases every waiter; the frame still waiting is discarded.
    func close() {
        let (waiters, blocked) = state.withLock { state -> ([CheckedContinuation<Void, Never>], [DispatchSemaphore]) in
            state.closed = true
            state.pending = nil
            defer {
                state.spaceWaiters.removeAll()
                state.blockedWaiters.removeAll()
            }
            return (state.spaceWaiters, state.blockedWaiters)
        }
        for waiter in waiters { waiter.resume() }
        for waiter in blocked { waiter.signal() }
    }
}
