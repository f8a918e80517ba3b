import Codec
import CongestionControl
import MediaTime
import NIOCore
import Synchronization
import Video

/// The encoders of one `H264Sender`: one `EncoderComponent`, or one per simulcast encoding (lowest first), each on a
/// thread of its own. With several, a `SimulcastFeeder` gives every active layer's encoder a picture of its own size.
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
    /// Feeds the layers' encoders (with several).
    private let feeder: SimulcastFeeder
    private let state: Mutex<State>

    private struct State {
        var allocator: SimulcastRateAllocator
        /// Whether each layer receives pictures.
        var active: [Bool]
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
        feeder = SimulcastFeeder(
            components: components, sizes: layers.count == components.count ? layers.map { ($0.width, $0.height) } : [])
        state = Mutex(State(allocator: SimulcastRateAllocator(layers: layers), active: components.map { _ in true }))
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
        return try feeder.send(captureTime: captureTime, active: activeLayers, fill: fill)
    }

    /// Pushes a borrowed I420 picture (copied before this returns).
    @discardableResult
    package func send(_ view: I420FrameView, captureTime: ContinuousClock.Instant) throws -> Bool {
        guard isSimulcast else { return try components[0].send(view, captureTime: captureTime) }
        return try feeder.send(view, captureTime: captureTime, active: activeLayers)
    }

    /// Pushes an owned frame in I420, NV12 or BGRA (converted once to I420 on the caller's thread).
    @discardableResult
    package func send(_ frame: VideoFrame, captureTime: ContinuousClock.Instant) throws -> Bool {
        guard isSimulcast else { return try components[0].send(frame, captureTime: captureTime) }
        return try feeder.send(frame, captureTime: captureTime, active: activeLayers)
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
