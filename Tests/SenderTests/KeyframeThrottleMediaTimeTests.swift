import Codec
import RTP
import Testing
import Video
@testable import Sender

/// Issue 20, item 10: a peer sending a PLI every 33 ms got IDRs whose RTP timestamps were 333, 233, 338 and 333 ms
/// apart. The throttle measured its 300 ms window on the clock of the encode (from the end of the last IDR's encode to
/// the start of the next frame's), while RTP timestamps follow capture times; a frame that waited longer for the
/// encoder than the last IDR had (a busy machine) passed the window early in media time. The window is now kept in
/// media time.
@Suite struct KeyframeThrottleMediaTimeTests {
    /// 30 PLIs at 33 ms intervals against 60 frames of a 30 fps pattern, through the encoder stage and the real
    /// OpenH264 encoder on a manual clock: encodes take 10 ms (an IDR 30 ms) and every 7th frame the encoder's thread
    /// is not scheduled for 150 ms, so frames wait for it (the pump keeps their capture times on the grid).
    @Test func aPLIEvery33MillisecondsGivesIDRsAtLeast300MillisecondsApartInRTPTime() throws {
        let clock = ManualClock()
        let configuration = EncoderConfiguration(width: 160, height: 120, frameRate: 30, targetBitrate: 300_000)
        let encoder = StalledEncoder(try H264Encoder(configuration: configuration), clock: clock) { index, isKeyframe in
            .milliseconds((isKeyframe ? 30 : 10) + (index % 7 == 6 ? 150 : 0))
        }
        var keyframes: [(index: Int, timestamp: Int64, requested: Bool)] = []
        var frames = 0
        var index = 0
        let mailbox = FrameMailbox()
        let stage = EncoderStage(
            encoder: encoder, throttle: KeyframeRequestThrottle(), mailbox: mailbox, clock: clock.senderClock,
            maximumConsecutiveFailures: 3
        ) { output in
            guard case .frame(let frame, let statistics, _, _) = output else { return }
            if frame.isKeyframe { keyframes.append((index, frame.timestamp, statistics.keyframeRequested)) }
            frames += 1
        }
        stage.reschedule = {}
        let pattern = try TestPattern(width: 160, height: 120)
        var pendingPLIs = (0..<30).map { MonotonicTime(nanoseconds: Int64($0) * 33_000_000) }[...]
        for frameIndex in 0..<60 {
            index = frameIndex
            // On the 30 fps grid, as FramePump puts it (frame 9 at 300 ms exactly).
            let capture = MonotonicTime(nanoseconds: Int64(frameIndex) * 1_000_000_000 / 30)
            // The frame is taken on its capture time, or later when the encoder is still busy.
            clock.advance(to: capture)
            while let pli = pendingPLIs.first, pli <= clock.now {
                stage.requestKeyframe(at: pli)
                pendingPLIs.removeFirst()
            }
            _ = try mailbox.put(captureTime: capture) { $0 = pattern.frame(frameIndex) }
            stage.drain()
        }
        #expect(frames == 60)
        let ticks = keyframes.map(\.timestamp)
        let gaps = zip(ticks, ticks.dropFirst()).map { $1 - $0 }
        // 300 ms at 90 kHz; every request is served by the first frame after the window (one frame: 3000 ticks).
        #expect(gaps.allSatisfy { $0 >= 27_000 }, "IDRs \(gaps.map { $0 / 90 }) ms apart in RTP time")
        #expect(gaps.allSatisfy { $0 < 27_000 + 3_000 }, "IDRs \(gaps.map { $0 / 90 }) ms apart in RTP time")
        #expect(keyframes.count == 5, "IDRs at frames \(keyframes.map(\.index))")
        // Every IDR is one the stage forced (the first frame answers the PLI at 0 ms): OpenH264 makes none of its own.
        #expect(keyframes.allSatisfy { $0.requested })
        #expect(keyframes.map(\.index) == encoder.forcedFrames)
    }
}
