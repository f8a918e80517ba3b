import Dispatch
import Foundation
import MediaTime
import Synchronization

/// Drives a `FrameSource` into an encoder (an `H264Sender`, a WHEP server's shared encoder) on a thread of its own,
/// so that a blocking read (a stalled Y4M pipe) holds up nothing else. Frame `n` gets the capture time
/// `start + n / fps` exactly (RTP timestamps step by exactly 90000/fps); a frame-rate change
/// (`H264Sender.setFrameRate`) starts a new grid from the last frame.
public final class FramePump: Sendable {
    /// How frames are paced.
    public enum Pacing: Sendable, Equatable {
        /// Each frame at its capture time (live sending); a frame is late rather than dropped when the encoder is
        /// behind.
        case realTime
        /// As fast as the encoder takes them, none dropped (benchmarks, tests, transcoding).
        case asFastAsPossible
    }

    private let sender: any FramePumpTarget
    private let pacing: Pacing
    private let frameLimit: Int?
    private let durationLimit: Duration?
    private let stopped = Atomic<Bool>(false)
    /// Moved to the pump's thread by `run()` and used only there.
    private nonisolated(unsafe) let source: FrameSource

    /// Creates a pump.
    /// - Parameters:
    ///   - source: the frames (used only by the pump's thread from now on).
    ///   - sender: where they go.
    ///   - pacing: real time or as fast as possible.
    ///   - frameLimit: stop after this many frames (nil: until the source ends or `stop()`).
    ///   - durationLimit: stop after this much media time (nil: no limit).
    public init(
        source: sending FrameSource, sender: any FramePumpTarget, pacing: Pacing, frameLimit: Int? = nil,
        durationLimit: Duration? = nil
    ) {
        self.source = source
        self.sender = sender
        self.pacing = pacing
        self.frameLimit = frameLimit
        self.durationLimit = durationLimit
    }

    /// Creates a pump into any frame target (the WHEP server's shared encoder).
    /// - Parameters:
    ///   - source: the frames.
    ///   - target: where they go.
    ///   - pacing: real time or as fast as possible.
    ///   - frameLimit: stop after this many frames.
    ///   - durationLimit: stop after this much media time.
    package init(source: sending FrameSource, target: any FramePumpTarget, pacing: Pacing, frameLimit: Int? = nil,
                 durationLimit: Duration? = nil) {
        self.source = source
        self.sender = target
        self.pacing = pacing
        self.frameLimit = frameLimit
        self.durationLimit = durationLimit
    }

    /// Stops the pump after the frame in hand; safe from any thread.
    public func stop() { stopped.store(true, ordering: .relaxed) }

    /// Pumps until the source ends, a limit is reached, `stop()`, or the sender finishes.
    /// - Returns: the number of frames pushed.
    /// - Throws: a source error (a truncated Y4M frame, a read error).
    public func run() async throws -> Int {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, Error>) in
            let thread = Thread { [self] in
                continuation.resume(with: Result { try self.pump() })
            }
            thread.name = "rtc-h264-source"
            thread.start()
        }
    }

    private func pump() throws -> Int {
        var index = 0
        var gridStart = ContinuousClock.now
        var gridIndex = 0
        var gridRate = sender.frameRate
        let start = gridStart
        while !stopped.load(ordering: .relaxed) {
            if let frameLimit, index >= frameLimit { break }
            let rate = sender.frameRate
            if rate != gridRate {
                gridStart = gridStart + .seconds(index - gridIndex) / gridRate
                gridIndex = index
                gridRate = rate
            }
            let captureTime = gridStart + .seconds(index - gridIndex) / gridRate
            if let durationLimit, captureTime - start >= durationLimit { break }
            if pacing == .realTime {
                let wait = captureTime - .now
                if wait > .zero { Thread.sleep(forTimeInterval: Double(wait.saturatingNanoseconds) / 1e9) }
            }
            // A file or the pattern loses no frame: when the encoder is behind, the frame waits (late, but with its
            // capture time on the grid) instead of replacing the one still waiting.
            sender.waitForEncoderBlocking()
            do {
                try sender.send(captureTime: captureTime) { buffer in
                    if buffer.width != source.width || buffer.height != source.height {
                        buffer = I420Frame(width: source.width, height: source.height)
                    }
                    if try !source.nextFrame(into: &buffer) { throw EndOfSource() }
                }
            } catch is EndOfSource {
                break
            } catch where sender.endsStream(error) {
                break
            }
            index += 1
        }
        return index
    }

    private struct EndOfSource: Error {}
}

/// What a `FramePump` pushes frames into: an `H264Sender`, or the encoder a WHEP server shares among its viewers.
public protocol FramePumpTarget: Sendable {
    /// The frame rate frames are paced at.
    var frameRate: Double { get }
    /// Blocks until the encoder has taken the last frame pushed.
    func waitForEncoderBlocking()
    /// Pushes a frame written into the encoder's buffer.
    func send(captureTime: ContinuousClock.Instant, fill: (inout I420Frame) throws -> Void) throws
    /// Whether an error `send` threw means the target has finished (the pump then stops quietly).
    func endsStream(_ error: any Error) -> Bool
}

