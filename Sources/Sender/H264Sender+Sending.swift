import Codec
import H264
import NIOCore
import RTP
import SRTP
import Video

extension H264Sender {
    /// Monotonic time in nanoseconds (the clock frames are paced by).
    static func uptime() -> Int64 { Int64(NIODeadline.now().uptimeNanoseconds) }

    /// Starts the frame ticks and the report timer. On the event loop.
    func start() {
        eventLoop.assertInEventLoop()
        guard !state.running else { return }
        state.running = true
        let now = Self.uptime()
        state.startUptime = now
        state.nextFrameUptime = now
        state.lastReportUptime = now
        let interval = TimeAmount.nanoseconds(configuration.reportInterval)
        state.reportTask = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak self] _ in
            self?.report()
        }
        scheduleTick()
    }

    /// Schedules the next frame: at its deadline in real time, or right away (behind pending I/O) otherwise.
    func scheduleTick() {
        guard state.running else { return }
        switch configuration.pacing {
        case .asFastAsPossible:
            // `execute` lets RTCP reads and control requests already queued on the loop run between frames.
            eventLoop.execute { [weak self] in self?.tick() }
        case .realTime:
            let deadline = NIODeadline.uptimeNanoseconds(UInt64(max(0, state.nextFrameUptime)))
            state.tickTask = eventLoop.scheduleTask(deadline: deadline) { [weak self] in self?.tick() }
        }
    }

    /// One frame: take it from the source, encode it, packetize, protect and send it.
    func tick() {
        guard state.running else { return }
        let now = Self.uptime()
        if let limit = configuration.frameLimit, state.sourceFrameIndex >= limit {
            return finish(error: nil)
        }
        // Media time: from the monotonic clock in real time, from the frame count otherwise (90 kHz).
        switch configuration.pacing {
        case .realTime:
            state.mediaTime = (now - state.startUptime) * 90_000 / 1_000_000_000
        case .asFastAsPossible:
            if state.sourceFrameIndex > 0 {
                state.mediaTime += Int64((90_000 / state.frameRate).rounded())
            }
        }
        if let duration = configuration.duration, Double(state.mediaTime) / 90_000 >= duration {
            return finish(error: nil)
        }
        do {
            // The source lends its own buffer (a camera's) or fills the reused one, moved out of the state for the
            // call so that filling it does not copy it.
            var buffer = PipelineState.placeholderFrame
            swap(&buffer, &state.sourceFrame)
            defer { swap(&buffer, &state.sourceFrame) }
            let source = state.source
            let produced: Void? = try source.withNextFrame(buffer: &buffer) { frame in
                let index = state.sourceFrameIndex
                state.sourceFrameIndex += 1
                try encodeAndSend(frame, sourceIndex: index, now: now)
            }
            guard produced != nil else { return finish(error: nil) }
        } catch {
            return finish(error: error)
        }
        // Next deadline: one interval later; when behind by more than a frame, restart the grid from now
        // instead of bursting to catch up.
        state.nextFrameUptime += state.frameInterval
        if state.nextFrameUptime < now - state.frameInterval { state.nextFrameUptime = now }
        scheduleTick()
    }

    private func encodeAndSend(_ frame: I420FrameView, sourceIndex: Int, now: Int64) throws {
        let force = state.throttle.shouldForceKeyframe(at: now)
        let result = try state.encoder.encode(frame, timestamp: state.mediaTime, forceKeyframe: force)
        switch result {
        case .skipped:
            state.stats.framesSkipped += 1
            if force { state.throttle.request() }  // the request stays pending: the next frame serves it
        case .frame(let encoded, let statistics):
            state.stats.framesEncoded += 1
            state.stats.totalEncodeTime += statistics.encodeDuration.inSeconds
            if let qp = statistics.averageQP { state.stats.qpSum += qp }
            if encoded.isKeyframe {
                state.stats.keyFramesEncoded += 1
                // The window starts when the keyframe is out of the encoder, so keyframes leave at least the window apart.
                state.throttle.keyframeEncoded(at: Self.uptime())
            }
            onFrameSent?(encoded, sourceIndex)
            try send(encoded)
        }
    }

    /// Sends one access unit through the packetizer and SRTP stages, then flushes the batch once: NIO sends the
    /// datagrams written together with one `sendmmsg`.
    func send(_ frame: EncodedFrame) throws {
        let timestamp = state.timestampMapper.timestamp(for: frame.timestamp)
        state.lastRTPTimestamp = timestamp.rawValue
        let sent = try state.sendPath.send(frame, timestamp: timestamp) { rtpEndpoint.write($0, to: peerRTP) }
        rtpEndpoint.flush()
        if frame.isKeyframe, let requested = state.keyframeRequestUptime {
            // From the request's arrival to the IDR's packets handed to the socket (one sendmmsg, first packet first).
            state.stats.keyframeRequestLatency = Double(Self.uptime() - requested) / 1e9
            state.keyframeRequestUptime = nil
        }
        state.stats.framesSent += 1
        state.stats.packetsSent += sent.packets
        state.stats.bytesSent += sent.payloadBytes
        state.stats.headerBytesSent += sent.headerBytes
    }

    /// Ends the stream: BYE, sockets closed, `run()` returns. On the event loop; idempotent.
    func finish(error: Error?) {
        guard !state.finished else { return }
        state.finished = true
        let wasRunning = state.running
        state.running = false
        state.tickTask?.cancel()
        state.reportTask?.cancel()
        if wasRunning { sendGoodbye() }
        let final = snapshot()
        rtpEndpoint.channel.close(promise: nil)
        rtcpEndpoint?.channel.close(promise: nil)
        if let error { finished.fail(error) } else { finished.succeed(final) }
    }
}
