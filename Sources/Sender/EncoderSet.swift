import Codec
import CongestionControl
import MediaTime
import NIOCore
import Synchronization
import Video

/// The encoders of one `H264Sender`: one `EncoderComponent`, or one per simulcast encoding (lowest first), each on a
/// thread of its own. With several, each picture is scaled once per lower layer on the caller's thread, each layer
/// from the one above it (libyuv box filter, as libwebrtc scales its simulcast layers), and every encoder gets a
/// picture of its own size: measured, copying the full picture into every layer's mailbox and letting each encoder
/// scale it cost 0.3 ms more per 720p frame (`run-simulcast.sh`).
///
/// With one encoder every call goes straight to it. With several, the session's rates are split over them by a
/// `SimulcastRateAllocator` (libwebrtc's rules): a layer that gets nothing is paused (no picture reaches its encoder,
/// so nothing is encoded or sent) and resumes with a keyframe; a keyframe request for one stream goes to that
/// stream's encoder alone. Safe from any thread.
package final class EncoderSet: EncoderControl {
    /// The encoders, lowest layer first.
    package let components: [EncoderComponent]
    /// The clocks (keyframe requests of resumed layers are stamped with them).
    private let clock: MediaClock
    /// Where the futures of several encoders meet.
    private let loop: EventLoop
    private let state: Mutex<State>

    private struct State {
        var allocator: SimulcastRateAllocator
        /// Whether each layer receives pictures.
        var active: [Bool]
        /// A picture, converted once, for encoders that each copy it.
        var scratch = I420Frame(width: 16, height: 16)
        /// Each layer's scaled picture and its scaler (nil: the layer gets the picture as it is).
        var pictures: [Picture] = []
    }

    /// One layer's reused picture and scaler (a class: a lower layer is written while the one above it is read).
    private final class Picture: @unchecked Sendable {  // used under the lock only
        var frame: I420Frame
        let scaler: FrameConverter?
        init(width: Int, height: Int) {
            frame = I420Frame(width: max(width, 2), height: max(height, 2))
            scaler = try? FrameConverter(width: width, height: height)
        }
    }

    /// Creates a set.
    /// - Parameters:
    ///   - components: the encoders, lowest layer first (at least one).
    ///   - layers: their layers (the allocator's input), when there are several.
    ///   - clock: the clocks.
    ///   - loop: where the futures of several encoders meet.
    package init(components: [EncoderComponent], layers: [SimulcastLayer], clock: MediaClock, loop: EventLoop) {
        precondition(!components.isEmpty, "an encoder set needs an encoder")
        self.components = components
        self.clock = clock
        self.loop = loop
        var initial = State(allocator: SimulcastRateAllocator(layers: layers), active: components.map { _ in true })
        if components.count > 1, layers.count == components.count {
            initial.pictures = layers.map { Picture(width: $0.width, height: $0.height) }
        }
        state = Mutex(initial)
    }

    /// Whether the set has one encoder per simulcast encoding.
    var isSimulcast: Bool { components.count > 1 }

    /// Which layers are sent now (all of them before the first rate change).
    package var activeLayers: [Bool] { state.withLock { $0.active } }

    // MARK: Frames

    /// The frame rate the encoders plan for.
    package var frameRate: Double { components[0].frameRate }
    /// Frames replaced in the mailboxes before an encoder took them (the most of any encoder).
    package var droppedFrames: Int { components.map(\.droppedFrames).max() ?? 0 }

    /// Pushes a frame written by `fill` (see `EncoderComponent.send(captureTime:fill:)`).
    /// - Returns: whether an older frame still waiting was replaced in any encoder.
    @discardableResult
    package func send(captureTime: ContinuousClock.Instant, fill: (inout I420Frame) throws -> Void) throws -> Bool {
        guard isSimulcast else { return try components[0].send(captureTime: captureTime, fill: fill) }
        return try state.withLock { state in
            try fill(&state.scratch)
            return try state.scratch.withView { try sendScaled($0, captureTime: captureTime, state: state) }
        }
    }

    /// Pushes a borrowed I420 picture (copied before this returns).
    @discardableResult
    package func send(_ view: I420FrameView, captureTime: ContinuousClock.Instant) throws -> Bool {
        guard isSimulcast else { return try components[0].send(view, captureTime: captureTime) }
        return try state.withLock { try sendScaled(view, captureTime: captureTime, state: $0) }
    }

    /// Pushes an owned frame in I420, NV12 or BGRA (converted once to I420 on the caller's thread).
    @discardableResult
    package func send(_ frame: VideoFrame, captureTime: ContinuousClock.Instant) throws -> Bool {
        guard isSimulcast else { return try components[0].send(frame, captureTime: captureTime) }
        if case .i420(let i420) = frame { return try i420.withView { try send($0, captureTime: captureTime) } }
        var converter = try FrameConverter(width: frame.width, height: frame.height)
        return try send(captureTime: captureTime) { buffer in try converter.convert(frame, into: &buffer) }
    }

    /// Sends `view` to every active layer, highest first, each lower layer scaled from the layer above it (or from
    /// `view`, when that layer is paused or has the picture's own size).
    private func sendScaled(_ view: I420FrameView, captureTime: ContinuousClock.Instant, state: State) throws -> Bool {
        var replaced = false
        var above: Picture?  // the scaled picture of the layer above, this frame
        for index in components.indices.reversed() where state.active[index] {
            guard state.pictures.indices.contains(index), let scaler = state.pictures[index].scaler,
                  !view.hasSize(width: state.pictures[index].frame.width, height: state.pictures[index].frame.height)
            else {
                if try components[index].send(view, captureTime: captureTime) { replaced = true }
                above = nil
                continue
            }
            let picture = state.pictures[index]
            if let above {
                try above.frame.withView { try scaler.convert($0, into: &picture.frame) }
            } else {
                try scaler.convert(view, into: &picture.frame)
            }
            if try picture.frame.withView({ try components[index].send($0, captureTime: captureTime) }) { replaced = true }
            above = picture
        }
        return replaced
    }

    /// Waits until every encoder has taken the last frame pushed.
    package func waitForEncoder() async {
        for component in components { await component.waitForEncoder() }
    }

    /// Blocks the calling thread until every encoder has taken the last frame pushed.
    package func waitForEncoderBlocking() {
        for component in components { component.waitForEncoderBlocking() }
    }

    // MARK: Control

    package func requestKeyframe(at now: MonotonicTime) {
        for component in components { component.requestKeyframe(at: now) }
    }

    package func requestKeyframe(at now: MonotonicTime, stream: Int?) {
        guard let stream, components.indices.contains(stream) else { return requestKeyframe(at: now) }
        components[stream].requestKeyframe(at: now)
    }

    package func setRates(target: Int, ceiling: Int) -> EventLoopFuture<Void> {
        guard isSimulcast else { return components[0].setRates { (target, ceiling) } }
        let (shares, resumed) = state.withLock { state -> ([Int], [Bool]) in
            let shares = state.allocator.allocate(target)
            let resumed = zip(shares, state.active).map { $0 > 0 && !$1 }
            state.active = shares.map { $0 > 0 }
            return (shares, resumed)
        }
        let scale = Double(max(ceiling, target)) / Double(max(target, 1))
        var futures: [EventLoopFuture<Void>] = []
        for (index, share) in shares.enumerated() where share > 0 {
            let layerCeiling = max(share, Int((Double(share) * scale).rounded()))
            futures.append(components[index].setRates { (share, layerCeiling) })
            if resumed[index] { components[index].requestKeyframe(at: clock.monotonic()) }
        }
        return EventLoopFuture.andAllSucceed(futures, on: loop)
    }

    /// Changes every encoder's frame rate.
    package func setFrameRate(_ framesPerSecond: Double) async throws {
        for component in components { try await component.setFrameRate(framesPerSecond) }
    }

    /// Changes what the encoder gives up first; simulcast layers keep their sizes.
    /// - Throws: `SenderError.invalidConfiguration` with several encoders; what the encoder throws.
    package func setDegradationPreference(_ preference: DegradationPreference) async throws {
        guard !isSimulcast else {
            throw SenderError.invalidConfiguration("simulcast layers keep their sizes: no degradation preference to change")
        }
        try await components[0].setDegradationPreference(preference)
    }

    // MARK: Lifecycle

    /// Refuses further frames.
    package func close() {
        for component in components { component.close() }
    }

    /// Encodes the frames still waiting.
    package func drain() async {
        for component in components { await component.drain() }
    }

    /// Stops every encoder's thread. Idempotent.
    package func stop() async {
        for component in components { await component.stop() }
    }
}
