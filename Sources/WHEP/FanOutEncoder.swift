import Codec
import CongestionControl
import H264
import Logging
import MediaTime
import NIOCore
import RTP
import SRTP
import Sender
import Synchronization
import Transport
import Video

/// One encoder for many viewers (the WHEP server): frames are pushed once, encoded once on the encoder's own thread,
/// and each access unit goes to every attached viewer's session (Sender's `SharedEncoderSession`) on that viewer's
/// loop.
///
/// ```
/// send(frame) -> FrameMailbox -> EncoderStage (one thread, one KeyframeRequestThrottle)
///                                    |-- EncoderOutput --> viewer 1: SharedEncoderSession -> its UDPTransport (own SRTP keys)
///                                    |-- EncoderOutput --> viewer 2: SharedEncoderSession -> ...
/// viewer n's PLI/FIR  -> the one throttle;  viewer n's rates -> RateArbiter (the weakest viewer) -> the encoder
/// ```
/// Each viewer's core owns its packetizer (its own SSRC and sequence numbers), packet history, NACK responder, RTX
/// stream, pacer and bitrate controller, so a NACK is answered for that viewer only. A viewer that attaches gets its
/// first frame at a keyframe: it waits (no packet sent) until the IDR it asked for comes out of the encoder.
///
/// With simulcast (`SenderConfiguration.simulcast`) there is one encoder per layer, and each viewer gets the frames
/// of one layer, the highest its own estimate carries (`LayerSelector`): it starts low and probes up, moves to
/// another layer at that layer's next keyframe (asked for when the viewer decides), keeps its own sequence numbers
/// and timestamps across the switch (its core packetizes whatever it is given), and answers NACKs from what it was
/// sent. Each layer's encoder follows the weakest viewer on that layer (a `RateArbiter` per layer, within the
/// layer's minimum and maximum), so a slow viewer no longer lowers the picture of the others; a layer nobody watches
/// gets no pictures (nothing is encoded).
package final class FanOutEncoder: Sendable {
    /// The stream's description (peer fields unused: each viewer's transport has its own peer).
    package let configuration: SenderConfiguration

    private let clock: MediaClock
    /// The encoders: one, or one per simulcast layer (lowest first).
    private let encoders: [EncoderComponent]
    /// The highest layer's encoder (the only one without simulcast): frame rate, degradation preference.
    private var encoder: EncoderComponent { encoders[encoders.count - 1] }
    /// Simulcast: gives each layer's encoder a picture of its own size.
    private let feeder: SimulcastFeeder?
    private let registry: Registry
    private let finished = Atomic<Bool>(false)

    /// The viewers, their keyframe gates and the rate arbiter, shared by the encoder's thread and the viewers' loops.
    final class Registry: Sendable {
        struct Viewer {
            let session: SharedEncoderSession
            /// No frame goes out until a keyframe: a decoder cannot start on a delta frame.
            var waitingForKeyframe = true
            /// The simulcast layer whose frames the viewer gets (0 without simulcast).
            var layer = 0
            /// The layer it moves to at that layer's next keyframe.
            var pendingLayer: Int?
            /// The layer its estimate has wanted since `candidateSince` (`LayerSelector.holds`): it moves there once
            /// the estimate has held that long.
            var candidate: Int?
            var candidateSince = MonotonicTime(nanoseconds: 0)
            /// Layer switches made.
            var switches = 0
        }

        struct State {
            var viewers: [UInt64: Viewer] = [:]
            var arbiter: RateArbiter
            var nextID: UInt64 = 1
            /// Frames the encoder produced.
            var framesEncoded = 0
            /// The error that ended the stream (too many frames failed in a row), once it happened.
            var failure: SenderError?
            /// Told once when the stream fails: the owner ends its viewers' sessions.
            var onFatal: (@Sendable (SenderError) -> Void)?
            /// Simulcast: the layers (lowest first), a rate arbiter per layer over the viewers on it, and whether
            /// each layer's encoder gets pictures.
            var layers: [SimulcastLayer] = []
            var layerArbiters: [RateArbiter] = []
            var layerActive: [Bool] = []
            /// Moves a layer's encoder to its viewers' rates, and asks a layer's encoder for a keyframe (set once the
            /// encoders exist).
            var applyLayer: (@Sendable (Int) -> Void)?
            var keyframeLayer: (@Sendable (Int) -> Void)?

            /// Starts a viewer's move to its candidate layer once the estimate has wanted it long enough (or at once
            /// when `urgent`): the move then waits for that layer's keyframe, which is to be asked for.
            /// - Returns: the layer whose keyframe to ask for, if the move starts.
            mutating func promote(_ id: UInt64, now: MonotonicTime, urgent: Bool = false) -> Int? {
                guard var viewer = viewers[id], let candidate = viewer.candidate else { return nil }
                let hold = candidate > viewer.layer ? LayerSelector.upHold : LayerSelector.downHold
                guard urgent || now - viewer.candidateSince >= hold else { return nil }
                viewer.candidate = nil
                viewer.pendingLayer = candidate
                viewers[id] = viewer
                updateActiveLayers()
                return candidate
            }

            /// Simulcast: each layer gets pictures when a viewer is on it or moving to it.
            mutating func updateActiveLayers() {
                guard !layers.isEmpty else { return }
                var active = Array(repeating: false, count: layers.count)
                for viewer in viewers.values {
                    active[viewer.layer] = true
                    if let pending = viewer.pendingLayer { active[pending] = true }
                }
                layerActive = active
            }

            /// A layer's rates: its viewers' weakest wish, within the layer's minimum and maximum.
            func layerRates(_ layer: Int) -> RateArbiter.Rates {
                let applied = layerArbiters[layer].applied
                let target = min(max(applied.target, layers[layer].minimumBitrate), layers[layer].maximumBitrate)
                return RateArbiter.Rates(target: target, ceiling: max(target, min(applied.ceiling, layers[layer].maximumBitrate * 3 / 2)))
            }
        }

        let state: Mutex<State>
        /// The clocks (simulcast: when a viewer's estimate started to want another layer).
        let clock: MediaClock?
        /// The configuration's `frameObserver`, called once per encoded frame (not once per viewer).
        let observer: (@Sendable (EncodedFrame, RTPTimestamp) -> Void)?

        init(
            operatorRates: RateArbiter.Rates, observer: (@Sendable (EncodedFrame, RTPTimestamp) -> Void)?,
            clock: MediaClock? = nil
        ) {
            state = Mutex(State(arbiter: RateArbiter(operatorRates: operatorRates)))
            self.observer = observer
            self.clock = clock
        }

        /// Hands one output of layer `layer`'s encoder to every viewer on that layer (a frame only to those past their
        /// first keyframe), and its keyframes to the viewers moving to it, which switch there.
        func deliver(_ output: EncoderOutput, layer: Int = 0) {
            var reapply: [Int] = []
            var keyframes: [Int] = []
            var actions: (apply: (@Sendable (Int) -> Void)?, keyframe: (@Sendable (Int) -> Void)?) = (nil, nil)
            defer {
                for layer in Set(reapply) { actions.apply?(layer) }
                for layer in Set(keyframes) { actions.keyframe?(layer) }
            }
            // A failure: every viewer's core finishes with it below (its BYE queued on its loop first); then the owner
            // ends the sessions (ICE would keep them alive for ever otherwise) and refuses new ones.
            var fatal: (handler: @Sendable (SenderError) -> Void, error: SenderError)?
            if case .fatal(let error) = output {
                fatal = state.withLock { state in
                    guard state.failure == nil else { return nil }
                    state.failure = error
                    return state.onFatal.map { ($0, error) }
                }
            }
            defer { fatal.map { $0.handler($0.error) } }
            if let observer, case .frame(let frame, _, _, _) = output {
                // The stream's own media time (90 kHz from the first frame): each viewer has its own RTP offset.
                observer(frame, RTPTimestamp(UInt32(truncatingIfNeeded: frame.timestamp)))
            }
            let targets: [Viewer] = state.withLock { state in
                var targets: [Viewer] = []
                targets.reserveCapacity(state.viewers.count)
                let keyframe: Bool?
                if case .frame(let frame, _, _, _) = output {
                    keyframe = frame.isKeyframe
                    state.framesEncoded += 1
                } else {
                    keyframe = nil
                }
                var switched = false
                actions = (state.applyLayer, state.keyframeLayer)
                // A move the estimate has wanted long enough starts now (the estimate may not change again).
                if keyframe != nil, !state.layers.isEmpty, let now = clock?.monotonic() {
                    for id in state.viewers.keys where state.viewers[id]?.candidate != nil {
                        if let layer = state.promote(id, now: now) { keyframes.append(layer) }
                    }
                }
                for (id, viewer) in state.viewers {
                    if viewer.pendingLayer == layer, keyframe == true {
                        // The layer it waited for starts here: the switch (or the first picture).
                        state.viewers[id]?.layer = layer
                        state.viewers[id]?.pendingLayer = nil
                        if !viewer.waitingForKeyframe { state.viewers[id]?.switches += 1 }
                        state.viewers[id]?.waitingForKeyframe = false
                        if let wish = state.layerArbiters.isEmpty ? nil : state.layerArbiters[viewer.layer].wish(of: id) {
                            _ = state.layerArbiters[viewer.layer].remove(id)
                            _ = state.layerArbiters[layer].set(wish, for: id)
                            // Both layers' encoders follow their viewers as they are now: the layer left must not
                            // stay at the leaving viewer's rate.
                            reapply += [viewer.layer, layer]
                        }
                        switched = true
                        targets.append(viewer)
                        continue
                    }
                    // A fatal error reaches every viewer; anything else only the viewers on the layer.
                    guard viewer.layer == layer || isFatal(output) else { continue }
                    if let keyframe, viewer.waitingForKeyframe {
                        guard keyframe, viewer.pendingLayer == nil else { continue }
                        state.viewers[id]?.waitingForKeyframe = false
                    }
                    targets.append(viewer)
                }
                if switched { state.updateActiveLayers() }
                return targets
            }
            for viewer in targets { viewer.session.deliver(output) }
        }

        private func isFatal(_ output: EncoderOutput) -> Bool {
            if case .fatal = output { return true }
            return false
        }
    }

    /// How one viewer's core reaches the shared encoder (or, with simulcast, its layer's encoder).
    struct ViewerControl: EncoderControl {
        let id: UInt64
        let encoders: [EncoderComponent]
        let registry: Registry
        let clock: MediaClock

        func requestKeyframe(at now: MonotonicTime) {
            guard encoders.count > 1 else { return encoders[0].requestKeyframe(at: now) }
            // The layer the viewer watches (and the one it moves to): a PLI costs no other layer a keyframe.
            let layers = registry.state.withLock { state in
                state.viewers[id].map { [$0.layer] + ($0.pendingLayer.map { [$0] } ?? []) } ?? []
            }
            for layer in layers { encoders[layer].requestKeyframe(at: now) }
        }

        func setRates(target: Int, ceiling: Int) -> EventLoopFuture<Void> {
            let wish = RateArbiter.Rates(target: target, ceiling: ceiling)
            guard encoders.count > 1 else {
                _ = registry.state.withLock { $0.arbiter.set(wish, for: id) }
                return FanOutEncoder.applyArbitratedRates(encoder: encoders[0], registry: registry)
            }
            // The layer the viewer's estimate carries: once it has wanted it for `LayerSelector`'s hold (at once when
            // far below its layer), the move waits for that layer's keyframe, asked for then.
            let now = clock.monotonic()
            let (layer, moveTo) = registry.state.withLock { state -> (Int, Int?) in
                guard var viewer = state.viewers[id] else { return (0, nil) }
                _ = state.layerArbiters[viewer.layer].set(wish, for: id)
                let desired = LayerSelector.layer(for: target, current: viewer.layer, layers: state.layers)
                if desired == viewer.layer {
                    viewer.candidate = nil
                    viewer.pendingLayer = nil
                } else if desired != viewer.candidate, desired != viewer.pendingLayer {
                    viewer.candidate = desired
                    viewer.candidateSince = now
                }
                state.viewers[id] = viewer
                state.updateActiveLayers()
                let urgent = LayerSelector.isFarBelow(target, layer: viewer.layer, layers: state.layers)
                return (viewer.layer, state.promote(id, now: now, urgent: urgent))
            }
            if let moveTo { encoders[moveTo].requestKeyframe(at: clock.monotonic()) }
            let future = FanOutEncoder.applyLayerRates(encoders: encoders, layer: layer, registry: registry)
            if let moveTo { _ = FanOutEncoder.applyLayerRates(encoders: encoders, layer: moveTo, registry: registry) }
            return future
        }
    }

    /// Validates the configuration, creates the encoder and its thread. Frames pushed before any viewer attaches are
    /// encoded and dropped (the stream is live; a viewer joins at the next keyframe). The configuration's
    /// `frameObserver` sees every encoded frame once, on the encoder's thread, with the stream's media time (90 kHz
    /// from its first frame) as the timestamp.
    /// - Parameters:
    ///   - configuration: the stream (encoder, MTU, NACK, RTX, pacing, congestion control, CNAME).
    ///   - clock: the clocks (default: the system's, from `origin`).
    ///   - origin: the instant `clock.monotonic` counts from.
    ///   - makeEncoder: creates the encoder, on the encoder's thread (default: OpenH264 with the configured
    ///     degradation preference).
    /// - Throws: `SenderError` for an invalid configuration, encoder errors.
    package init(
        configuration: SenderConfiguration, clock: MediaClock? = nil, origin: ContinuousClock.Instant = .now,
        makeEncoder: (@Sendable (EncoderConfiguration) throws -> any FrameEncoder)? = nil
    ) async throws {
        try configuration.validate()
        let clock = clock ?? .system(origin: origin)
        let preference = configuration.degradationPreference
        let makeEncoder = makeEncoder ?? { try AdaptiveH264Encoder(configuration: $0, preference: preference) }
        let enc = configuration.encoder
        let registry = Registry(
            operatorRates: RateArbiter.Rates(target: enc.targetBitrate, ceiling: enc.effectiveMaxBitrate),
            observer: configuration.frameObserver, clock: clock)
        let simulcast = configuration.simulcast.count > 1 ? configuration.simulcast : []
        var encoders: [EncoderComponent] = []
        do {
            if simulcast.isEmpty {
                encoders.append(try await EncoderComponent(
                    configuration: configuration, clock: clock, origin: origin, makeEncoder: makeEncoder
                ) { output in
                    registry.deliver(output)
                })
            } else {
                // One encoder per layer, each keeping its size.
                let keepSize: @Sendable (EncoderConfiguration) throws -> any FrameEncoder = {
                    try AdaptiveH264Encoder(configuration: $0, preference: .maintainResolution)
                }
                for (index, layer) in configuration.encoderConfigurations.enumerated() {
                    encoders.append(try await EncoderComponent(
                        configuration: layer, clock: clock, origin: origin, makeEncoder: keepSize
                    ) { output in
                        registry.deliver(output, layer: index)
                    })
                }
                registry.state.withLock { state in
                    state.layers = simulcast.map(\.layer)
                    state.layerArbiters = simulcast.map {
                        RateArbiter(operatorRates: RateArbiter.Rates(
                            target: $0.layer.maximumBitrate, ceiling: $0.layer.maximumBitrate * 3 / 2))
                    }
                    state.layerActive = simulcast.map { _ in false }
                    state.applyLayer = { [encoders] layer in _ = Self.applyLayerRates(encoders: encoders, layer: layer, registry: registry) }
                    state.keyframeLayer = { [encoders] layer in encoders[layer].requestKeyframe(at: clock.monotonic()) }
                }
            }
        } catch {
            for encoder in encoders { await encoder.stop() }
            throw error
        }
        self.encoders = encoders
        feeder = simulcast.isEmpty ? nil
            : SimulcastFeeder(components: encoders, sizes: simulcast.map { ($0.layer.width, $0.layer.height) })
        self.configuration = configuration
        self.clock = clock
        self.registry = registry
    }

    /// Moves the encoder to the arbiter's rates as they are when the encoder's thread gets to it (not when asked):
    /// changes from viewers and from the operator may be queued in any order, and the last one applied must reflect
    /// every wish recorded.
    static func applyArbitratedRates(encoder: EncoderComponent, registry: Registry) -> EventLoopFuture<Void> {
        encoder.setRates {
            let applied = registry.state.withLock { $0.arbiter.applied }
            return (applied.target, applied.ceiling)
        }
    }

    /// Moves a simulcast layer's encoder to its viewers' rates (as they are when the encoder's thread gets to it).
    static func applyLayerRates(encoders: [EncoderComponent], layer: Int, registry: Registry) -> EventLoopFuture<Void> {
        encoders[layer].setRates {
            let rates = registry.state.withLock { $0.layerRates(layer) }
            return (rates.target, rates.ceiling)
        }
    }

    deinit {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for encoder in encoders { encoder.close() }
    }

    /// Whether there is one encoder per simulcast layer.
    private var isSimulcast: Bool { encoders.count > 1 }

    /// The simulcast layers that get pictures now (a layer no viewer is on, or moving to, gets none).
    private var activeLayers: [Bool] { registry.state.withLock { $0.layerActive } }

    // MARK: Frames

    /// The frame rate the encoder plans for (the configuration's until `setFrameRate(_:)`).
    package var frameRate: Double { encoder.frameRate }

    /// Pushes a frame written into the encoder's reused buffer (newest wins when the encoder is busy).
    /// - Parameters:
    ///   - captureTime: when it was captured, on `ContinuousClock`.
    ///   - fill: writes the picture.
    /// - Throws: what `fill` throws, `SenderError.finished`, or the error that ended the stream.
    package func send(captureTime: ContinuousClock.Instant = .now, fill: (inout I420Frame) throws -> Void) throws {
        if let failure { throw failure }
        guard let feeder else { return _ = try encoder.send(captureTime: captureTime, fill: fill) }
        _ = try feeder.send(captureTime: captureTime, active: activeLayers, fill: fill)
    }

    /// Pushes a borrowed I420 picture (copied before this returns).
    /// - Parameters:
    ///   - view: the picture.
    ///   - captureTime: when it was captured.
    /// - Throws: `SenderError.finished`.
    package func send(_ view: I420FrameView, captureTime: ContinuousClock.Instant = .now) throws {
        try send(captureTime: captureTime) { view.copy(into: &$0) }
    }

    /// Pushes an owned frame in I420, NV12 or BGRA (converted to I420 with libyuv on the caller's thread).
    /// - Throws: `VideoError` for a frame that cannot be converted, `SenderError.finished`, or the error that ended
    ///   the stream.
    package func send(_ frame: VideoFrame, captureTime: ContinuousClock.Instant = .now) throws {
        if let failure { throw failure }
        guard let feeder else { return _ = try encoder.send(frame, captureTime: captureTime) }
        _ = try feeder.send(frame, captureTime: captureTime, active: activeLayers)
    }

    /// Waits until the encoders have taken the last frame pushed.
    package func waitForEncoder() async {
        for encoder in encoders { await encoder.waitForEncoder() }
    }

    /// Blocks until the encoders have taken the last frame pushed.
    package func waitForEncoderBlocking() {
        for encoder in encoders { encoder.waitForEncoderBlocking() }
    }

    /// Frames encoded so far (every layer's), and frames replaced in the mailboxes before an encoder took them.
    package var frameCounts: (encoded: Int, dropped: Int) {
        (registry.state.withLock { $0.framesEncoded }, encoders.map(\.droppedFrames).max() ?? 0)
    }

    /// A viewer's simulcast layer (its RTP stream id) and the switches it made; nil without simulcast.
    /// - Parameter id: the viewer.
    package func layer(of id: UInt64) -> (rid: String, switches: Int)? {
        guard isSimulcast else { return nil }
        return registry.state.withLock { state in
            state.viewers[id].map { (configuration.simulcast[$0.layer].rid, $0.switches) }
        }
    }

    /// The rates the encoder follows now (the weakest viewer's, at most the operator's); with simulcast, the highest
    /// layer's (its weakest viewer's, within the layer's minimum and maximum).
    package var appliedRates: (target: Int, ceiling: Int) {
        let rates = registry.state.withLock { state in
            state.layers.isEmpty ? state.arbiter.applied : state.layerRates(state.layers.count - 1)
        }
        return (rates.target, rates.ceiling)
    }

    /// The operator's rates: the configured bitrate until `setOperatorBitrate(_:)` (the ceiling at 1.5x).
    package var operatorRates: (target: Int, ceiling: Int) {
        let rates = registry.state.withLock { $0.arbiter.operatorRates }
        return (rates.target, rates.ceiling)
    }

    // MARK: Control

    /// Sets the operator's bitrate: a ceiling over every viewer. The encoder follows the lowest of it and the
    /// viewers' wishes (REMB, TMMBR, loss and delay estimates), so no viewer's estimate raises it above this value;
    /// each viewer's own controller takes it as its application bitrate too, so that a raised value lets the
    /// encoder rise as far as the weakest viewer's estimate allows. Viewers joining later start from it.
    /// - Parameter bitsPerSecond: the operator's target in bit/s (clamped to the configured minimum; the ceiling
    ///   follows at 1.5x).
    /// - Returns: the rates the encoder applies once every viewer has taken the new value.
    /// - Throws: `SenderError.invalidRate` for a value that is not positive or above the level's limit (nothing
    ///   changed), `SenderError.finished`, or the error that ended the stream.
    package func setOperatorBitrate(_ bitsPerSecond: Int) async throws -> (target: Int, ceiling: Int) {
        guard !finished.load(ordering: .acquiring) else { throw SenderError.finished }
        if let failure { throw failure }
        let controller: BitrateController
        do {
            controller = try BitrateController(
                operatorBitrate: bitsPerSecond, minimumBitrate: configuration.minimumBitrate,
                maximumBitrate: Self.maximumBitrate(configuration.encoder))
        } catch {
            throw SenderError.invalidRate("\(error)")
        }
        let (previous, viewers) = registry.state.withLock { state in
            let previous = state.arbiter.operatorRates
            _ = state.arbiter.setOperatorRates(
                RateArbiter.Rates(target: controller.effectiveTarget, ceiling: controller.effectiveCeiling))
            return (previous, Array(state.viewers.values))
        }
        if !isSimulcast {
            do {
                try await Self.applyArbitratedRates(encoder: encoder, registry: registry).get()
            } catch {
                registry.state.withLock { _ = $0.arbiter.setOperatorRates(previous) }
                throw SenderError.invalidRate("\(error)")
            }
        }
        // Each viewer's wish follows (a viewer that finished meanwhile is skipped: it no longer counts). With
        // simulcast the wishes cap each layer's encoder through its own arbiter (never past the layer's maximum).
        for viewer in viewers {
            _ = try? await viewer.session.setOperatorBitrate(bitsPerSecond).get()
        }
        if isSimulcast {
            for layer in encoders.indices {
                try? await Self.applyLayerRates(encoders: encoders, layer: layer, registry: registry).get()
            }
        }
        return appliedRates
    }

    /// The highest operator bitrate the configured level allows (its MaxBR over the 1.5x ceiling), in bit/s: the
    /// limit each viewer's `BitrateController` has too.
    static func maximumBitrate(_ encoder: EncoderConfiguration) -> Int {
        Int(Double(encoder.level.maxBitrate(for: encoder.profile)) / EncoderConfiguration.defaultMaxBitrateRatio)
    }

    /// Asks the encoder for a keyframe, which every viewer past its first keyframe gets (within the keyframe
    /// throttle's window, like a viewer's PLI).
    /// - Throws: `SenderError.finished`.
    package func requestKeyframe() throws {
        guard !finished.load(ordering: .acquiring) else { throw SenderError.finished }
        for encoder in encoders { encoder.requestKeyframe(at: clock.monotonic()) }
    }

    /// Changes the frame rate the encoder's rate control plans for (and the frame pump paces at).
    /// - Parameter framesPerSecond: within `EncoderConfiguration.supportedFrameRates`.
    /// - Throws: `SenderError.invalidRate` (nothing changed), `SenderError.finished`.
    package func setFrameRate(_ framesPerSecond: Double) async throws {
        guard !finished.load(ordering: .acquiring) else { throw SenderError.finished }
        for encoder in encoders { try await encoder.setFrameRate(framesPerSecond) }
    }

    /// Changes what the shared encoder gives up first when the bitrate is short (as `H264Sender`'s).
    /// - Parameter preference: the new preference.
    /// - Throws: `SenderError.finished`; `SenderError.invalidConfiguration` when the encoder does not adapt its size.
    package func setDegradationPreference(_ preference: DegradationPreference) async throws {
        guard !finished.load(ordering: .acquiring) else { throw SenderError.finished }
        guard !isSimulcast else {
            throw SenderError.invalidConfiguration("simulcast layers keep their sizes: no degradation preference to change")
        }
        try await encoder.setDegradationPreference(preference)
    }

    // MARK: Viewers

    /// The error that ended the stream, if it failed (too many frames failed in a row).
    package var failure: SenderError? { registry.state.withLock { $0.failure } }

    /// Sets what happens when the stream fails: called once, on the encoder's thread, after every viewer's core got
    /// the error. Frames pushed after that are refused with the error.
    package func onFatal(_ handler: @escaping @Sendable (SenderError) -> Void) {
        let encoders = self.encoders
        registry.state.withLock {
            $0.onFatal = { error in
                for encoder in encoders { encoder.close() }
                handler(error)
            }
        }
    }

    /// Attaches a viewer: a `SharedEncoderSession` of its own over `transport` (already on its loop, already holding
    /// or later given the viewer's SRTP keys), sending from the next keyframe, which is requested now. Call on
    /// `transport.eventLoop`.
    /// - Parameters:
    ///   - transport: the viewer's transport (its peer set, SRTP installed or to be installed before media leaves).
    ///   - payloadType: the negotiated H.264 payload type.
    ///   - rtxPayloadType: the negotiated RTX payload type, or nil for no RTX.
    ///   - ssrc: the viewer's media SSRC (the one written in its answer).
    ///   - rtxSSRC: the viewer's RTX SSRC (the one written in its answer).
    ///   - fec: the viewer's FlexFEC stream (payload type and SSRC of its answer), or nil for none.
    ///   - transportWideCCExtensionID: the negotiated transport-wide sequence number extension id (1-14), or nil:
    ///     the viewer's delay-based estimate then runs on its transport-cc feedback.
    ///   - absoluteCaptureTimeExtensionID: the negotiated abs-capture-time extension id (1-14), or nil.
    ///   - playoutDelayExtensionID: the negotiated playout-delay extension id (1-14), or nil: the configuration's
    ///     playout delay then goes unsent.
    ///   - dependencyDescriptorExtensionID: the negotiated dependency descriptor extension id (1-14), or nil.
    ///   - events: the viewer's events.
    ///   - reports: the viewer's statistics, once per report interval.
    ///   - logger: where the viewer's stream logs (its events and its end).
    /// - Returns: the viewer.
    /// - Throws: `SenderError.finished`, packetizer or controller errors for a configuration that cannot work.
    package func attach(
        transport: UDPTransport, payloadType: PayloadType, rtxPayloadType: PayloadType?, ssrc: SSRC, rtxSSRC: SSRC?,
        fec: SenderConfiguration.FEC? = nil, transportWideCCExtensionID: UInt8? = nil, absoluteCaptureTimeExtensionID: UInt8? = nil,
        playoutDelayExtensionID: UInt8? = nil, dependencyDescriptorExtensionID: UInt8? = nil,
        events: AsyncStream<SenderEvent>.Continuation,
        reports: AsyncStream<SenderStats>.Continuation,
        logger: Logger = Logger(label: "rtc-h264.whep")
    ) throws -> FanOutViewer {
        guard !finished.load(ordering: .acquiring) else { throw SenderError.finished }
        if let failure { throw failure }
        var configuration = self.configuration
        configuration.payloadType = payloadType
        configuration.ssrc = ssrc
        configuration.transportWideCCExtensionID = configuration.congestionControl ? transportWideCCExtensionID : nil
        // A viewer starts at the shared encoder's rate: a low start would pull every other viewer's picture down
        // for the second its probes take (the encoder follows the weakest viewer).
        // With simulcast the viewer's own estimate picks its layer: it starts at 300 kbit/s (a low layer) and probes
        // up, as a libwebrtc sender starts (its probes need transport-wide feedback and RTX, which Chromium offers).
        configuration.startBitrate = isSimulcast ? min(300_000, configuration.encoder.targetBitrate) : nil
        configuration.simulcast = []
        configuration.mid = nil
        configuration.midExtensionID = nil
        configuration.ridExtensionID = nil
        configuration.repairedRIDExtensionID = nil
        configuration.absoluteCaptureTimeExtensionID = absoluteCaptureTimeExtensionID
        configuration.playoutDelayExtensionID = playoutDelayExtensionID
        configuration.dependencyDescriptorExtensionID = dependencyDescriptorExtensionID
        configuration.security = nil  // the viewer's transport holds the DTLS-derived keys
        configuration.frameObserver = nil  // called once per frame by the registry, not once per viewer
        configuration.rtx = configuration.nack ? rtxPayloadType.map { SenderConfiguration.RTX(payloadType: $0, ssrc: rtxSSRC) } : nil
        configuration.fec = fec
        var rng = SystemRandomNumberGenerator()
        let limit = RTPPayloadLimit(
            mtu: configuration.mtu, ipVersion: (transport.localAddress?.protocol == .inet6) ? .v6 : .v4,
            srtpTrailerSize: SRTPSuite.maxRTPTrailer)
        let identity = StreamIdentity.draw(for: configuration, using: &rng)
        let id = registry.state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let control = ViewerControl(id: id, encoders: encoders, registry: registry, clock: clock)
        // No encoder of its own: finishing the viewer leaves the shared one running.
        let session = try SharedEncoderSession(
            configuration: configuration, identity: identity, payloadLimit: limit, transport: transport, clock: clock,
            encoder: control, events: events, reports: reports, logger: logger)
        // A viewer joining after the operator changed the bitrate starts from the operator's value, not the
        // configured one (its wish is capped by the arbiter either way).
        let operatorTarget = registry.state.withLock { $0.arbiter.operatorRates.target }
        if operatorTarget != configuration.encoder.targetBitrate { _ = session.setOperatorBitrateOnLoop(operatorTarget) }
        let start = registry.state.withLock { state -> Int in
            var viewer = Registry.Viewer(session: session)
            if !state.layers.isEmpty {
                // The layer its starting estimate carries; it joins at that layer's keyframe.
                let layer = LayerSelector.layer(
                    for: configuration.startBitrate ?? configuration.encoder.targetBitrate, current: 0, layers: state.layers)
                viewer.layer = layer
                viewer.pendingLayer = layer
            }
            state.viewers[id] = viewer
            state.updateActiveLayers()
            return viewer.layer
        }
        if isSimulcast { _ = Self.applyLayerRates(encoders: encoders, layer: start, registry: registry) }
        session.requestKeyframeOnLoop(.application)
        return FanOutViewer(id: id, session: session, fanOut: self)
    }

    /// Detaches a viewer: no more frames for it; the encoder's rates follow the remaining viewers.
    func detach(_ id: UInt64) {
        let (wasAttached, layer) = registry.state.withLock { state -> (Bool, Int?) in
            _ = state.arbiter.remove(id)
            let layer = state.viewers[id]?.layer
            if let layer, !state.layerArbiters.isEmpty { _ = state.layerArbiters[layer].remove(id) }
            let removed = state.viewers.removeValue(forKey: id) != nil
            state.updateActiveLayers()
            return (removed, layer)
        }
        guard wasAttached, !finished.load(ordering: .relaxed) else { return }
        if isSimulcast {
            if let layer { _ = Self.applyLayerRates(encoders: encoders, layer: layer, registry: registry) }
        } else {
            _ = Self.applyArbitratedRates(encoder: encoder, registry: registry)
        }
    }

    /// Stops the encoder (the frame waiting is encoded and delivered first). Viewers are not finished here.
    package func finish() async {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for encoder in encoders { await encoder.drain() }
        for encoder in encoders { await encoder.stop() }
    }
}

extension FanOutEncoder: FramePumpTarget {
    /// `SenderError.finished`: the stream ended.
    package func endsStream(_ error: any Error) -> Bool {
        if case SenderError.finished = error { return true }
        return false
    }
}
