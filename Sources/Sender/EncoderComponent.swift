import Codec
import MediaTime
import NIOCore
import NIOPosix
import RTP
import Synchronization
import Transport
import Video

/// The encoder half every front end shares: the frame mailbox producers push into, the encoder's own thread, the
/// `EncoderStage` there (OpenH264, the keyframe throttle, the applied rates) and its controls. `H264Sender` feeds one
/// session from it, the WHEP fan-out every viewer's; `deliver` receives each output on the encoder's thread.
///
/// ```
/// send(frame) -> FrameMailbox -> EncoderStage (its own thread) -> deliver(EncoderOutput)
/// requestKeyframe / setRates / setFrameRate / setDegradationPreference -> the stage, on its thread
/// ```
/// Safe from any thread.
package final class EncoderComponent: Sendable {
    private let origin: ContinuousClock.Instant
    private let group: MultiThreadedEventLoopGroup
    private let loop: EventLoop
    private let stage: NIOLoopBound<EncoderStage>
    private let mailbox: FrameMailbox
    private let stopped = Atomic<Bool>(false)
    /// The frame rate the encoder plans for now (a `Double`'s bits), changed by `setFrameRate(_:)`.
    private let frameRateBits: Atomic<UInt64>

    /// Creates the encoder on a thread of its own.
    /// - Parameters:
    ///   - configuration: the stream (its `sendingEncoderConfiguration`, keyframe throttle and failure limit).
    ///   - clock: the clocks.
    ///   - origin: the `ContinuousClock` instant that `clock.monotonic` counts from (capture times are mapped with it).
    ///   - makeEncoder: creates the encoder, on the encoder's thread.
    ///   - deliver: receives each output, in order, on the encoder's thread.
    /// - Throws: encoder errors (the thread is stopped again then).
    package init(
        configuration: SenderConfiguration, clock: MediaClock, origin: ContinuousClock.Instant,
        makeEncoder: @escaping @Sendable (EncoderConfiguration) throws -> any FrameEncoder,
        deliver: @escaping @Sendable (EncoderOutput) -> Void
    ) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let mailbox = FrameMailbox()
        let encoderConfiguration = configuration.sendingEncoderConfiguration
        let maximumFailures = configuration.maximumConsecutiveFrameFailures
        let throttle = KeyframeRequestThrottle(minimumInterval: configuration.keyframeThrottle)
        do {
            stage = try await loop.submit {
                let stage = EncoderStage(
                    encoder: try makeEncoder(encoderConfiguration), throttle: throttle, mailbox: mailbox, clock: clock,
                    maximumConsecutiveFailures: maximumFailures, deliver: deliver)
                // Weak: the stage must not keep itself (and its OpenH264 encoder) alive through its own closure.
                let weakStage = NIOLoopBound(WeakReference(stage), eventLoop: loop)
                stage.reschedule = { loop.execute { weakStage.value.object?.drain() } }
                return NIOLoopBound(stage, eventLoop: loop)
            }.get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        self.origin = origin
        self.group = group
        self.loop = loop
        self.mailbox = mailbox
        frameRateBits = Atomic(configuration.encoder.frameRate.bitPattern)
    }

    deinit {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        mailbox.close()
        group.shutdownGracefully { _ in }
    }

    // MARK: Frames

    /// The frame rate the encoder plans for (the configuration's until `setFrameRate(_:)`).
    package var frameRate: Double { Double(bitPattern: frameRateBits.load(ordering: .relaxed)) }

    /// Frames replaced in the mailbox before the encoder took them.
    package var droppedFrames: Int { mailbox.droppedFrames }

    /// Pushes a frame written straight into the encoder's reused buffer (newest wins when the encoder is busy).
    /// - Parameters:
    ///   - captureTime: when it was captured, on `ContinuousClock`.
    ///   - fill: writes the picture (it may replace the buffer with one of another size).
    /// - Returns: whether an older frame still waiting was replaced (dropped).
    /// - Throws: what `fill` throws (nothing is pushed then), `SenderError.finished` once closed.
    @discardableResult
    package func send(captureTime: ContinuousClock.Instant, fill: (inout I420Frame) throws -> Void) throws -> Bool {
        let time = MonotonicTime(nanoseconds: (captureTime - origin).saturatingNanoseconds)
        let (wake, replaced) = try mailbox.put(captureTime: time, fill: fill)
        if wake {
            let stage = self.stage
            loop.execute { stage.value.drain() }
        }
        return replaced
    }

    /// Pushes a borrowed I420 picture (copied before this returns).
    @discardableResult
    package func send(_ view: I420FrameView, captureTime: ContinuousClock.Instant) throws -> Bool {
        try send(captureTime: captureTime) { view.copy(into: &$0) }
    }

    /// Pushes an owned frame in I420, NV12 or BGRA (converted to I420 with libyuv on the caller's thread).
    /// - Throws: `VideoError` for a frame that cannot be converted, `SenderError.finished`.
    @discardableResult
    package func send(_ frame: VideoFrame, captureTime: ContinuousClock.Instant) throws -> Bool {
        if case .i420(let i420) = frame {
            return try i420.withView { try send($0, captureTime: captureTime) }
        }
        var converter = try FrameConverter(width: frame.width, height: frame.height)
        return try send(captureTime: captureTime) { buffer in try converter.convert(frame, into: &buffer) }
    }

    /// Waits until the encoder has taken the last frame pushed.
    package func waitForEncoder() async { await mailbox.waitForSpace() }

    /// Blocks the calling thread until the encoder has taken the last frame pushed.
    package func waitForEncoderBlocking() { mailbox.waitForSpaceBlocking() }

    // MARK: Control

    /// Records a keyframe request with the stage's throttle.
    /// - Parameter now: when the request arrived.
    package func requestKeyframe(at now: MonotonicTime) {
        let stage = self.stage
        loop.execute { stage.value.requestKeyframe(at: now) }
    }

    /// Applies rates on the encoder's thread; `rates` is read there, when the thread gets to it (so that the last
    /// change applied reflects every wish recorded before it).
    /// - Returns: a future that fails when the encoder refused (nothing changed then).
    package func setRates(_ rates: @escaping @Sendable () -> (target: Int, ceiling: Int)) -> EventLoopFuture<Void> {
        let stage = self.stage
        return loop.submit { () throws -> Void in
            let (target, ceiling) = rates()
            try stage.value.setRates(target: target, ceiling: ceiling)
        }
    }

    /// Changes the frame rate the encoder's rate control plans for (and producers pace at).
    /// - Parameter framesPerSecond: within `EncoderConfiguration.supportedFrameRates`.
    /// - Throws: `SenderError.invalidRate` (nothing changed).
    package func setFrameRate(_ framesPerSecond: Double) async throws {
        do {
            try EncoderConfiguration.validate(frameRate: framesPerSecond)
        } catch {
            throw SenderError.invalidRate("\(error)")
        }
        let stage = self.stage
        do {
            try await loop.submit { try stage.value.setFrameRate(framesPerSecond) }.get()
        } catch {
            throw SenderError.invalidRate("\(error)")
        }
        frameRateBits.store(framesPerSecond.bitPattern, ordering: .relaxed)
    }

    /// Changes what the encoder gives up first when the bitrate is short. Applied before the next frame.
    /// - Throws: `SenderError.invalidConfiguration` when the encoder does not adapt its size; `SenderError.finished`
    ///   once the thread is gone.
    package func setDegradationPreference(_ preference: DegradationPreference) async throws {
        let stage = self.stage
        do {
            try await loop.submit { try stage.value.setDegradationPreference(preference) }.get()
        } catch let error as SenderError {
            throw error
        } catch {
            throw SenderError.finished  // the encoder's loop is gone: finished meanwhile
        }
    }

    // MARK: Lifecycle

    /// Refuses further frames (`send` throws `SenderError.finished`); the frame waiting is still encoded.
    package func close() { mailbox.close() }

    /// Encodes the frame still waiting, if any.
    package func drain() async {
        let stage = self.stage
        try? await loop.submit { stage.value.drain() }.get()
    }

    /// Refuses further frames and stops the encoder's thread. Idempotent.
    package func stop() async {
        mailbox.close()
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? await group.shutdownGracefully()
    }
}
