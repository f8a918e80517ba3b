import Synchronization
import Video

/// Feeds each picture to several simulcast layers' encoders (lowest layer first), scaled once per lower layer on the
/// caller's thread, each layer from the one above it (libyuv box filter, as libwebrtc scales its simulcast layers),
/// so that every encoder gets a picture of its own size: measured, copying the full picture into every layer's
/// mailbox and letting each encoder scale it cost 0.3 ms more per 720p frame (`run-simulcast.sh`). Which layers get
/// the picture is the caller's to say (`H264Sender`'s allocator, or the WHEP fan-out's viewers). Safe from any
/// thread; the pictures are reused, so nothing is allocated per frame.
package final class SimulcastFeeder: Sendable {
    private let components: [EncoderComponent]
    private let state: Mutex<State>

    private struct State {
        /// A picture written by a producer's `fill`, then fed like a borrowed one.
        var scratch = I420Frame(width: 16, height: 16)
        /// Each layer's scaled picture and its scaler.
        var pictures: [Picture]
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

    /// Creates a feeder.
    /// - Parameters:
    ///   - components: the layers' encoders, lowest layer first.
    ///   - sizes: each layer's picture size, in the same order.
    package init(components: [EncoderComponent], sizes: [(width: Int, height: Int)]) {
        self.components = components
        state = Mutex(State(pictures: sizes.map { Picture(width: $0.width, height: $0.height) }))
    }

    /// Pushes a picture written by `fill`.
    /// - Parameters:
    ///   - captureTime: when it was captured.
    ///   - active: which layers get it (by index).
    ///   - fill: writes the picture.
    /// - Returns: whether an older frame still waiting was replaced in any encoder.
    package func send(
        captureTime: ContinuousClock.Instant, active: [Bool], fill: (inout I420Frame) throws -> Void
    ) throws -> Bool {
        try state.withLock { state in
            try fill(&state.scratch)
            return try state.scratch.withView { try send($0, captureTime: captureTime, active: active, state: state) }
        }
    }

    /// Pushes a borrowed I420 picture (read before this returns).
    package func send(_ view: I420FrameView, captureTime: ContinuousClock.Instant, active: [Bool]) throws -> Bool {
        try state.withLock { try send(view, captureTime: captureTime, active: active, state: $0) }
    }

    /// Pushes an owned frame in I420, NV12 or BGRA (converted once to I420 on the caller's thread).
    package func send(_ frame: VideoFrame, captureTime: ContinuousClock.Instant, active: [Bool]) throws -> Bool {
        if case .i420(let i420) = frame { return try i420.withView { try send($0, captureTime: captureTime, active: active) } }
        var converter = try FrameConverter(width: frame.width, height: frame.height)
        return try send(captureTime: captureTime, active: active) { try converter.convert(frame, into: &$0) }
    }

    /// Sends `view` to every active layer, highest first, each lower layer scaled from the layer above it (or from
    /// `view`, when that layer is not fed this time or has the picture's own size).
    private func send(
        _ view: I420FrameView, captureTime: ContinuousClock.Instant, active: [Bool], state: State
    ) throws -> Bool {
        var replaced = false
        var above: Picture?  // the scaled picture of the layer above, this frame
        for index in components.indices.reversed() where active.indices.contains(index) && active[index] {
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
}
