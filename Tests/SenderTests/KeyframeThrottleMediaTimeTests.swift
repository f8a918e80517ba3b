import Codec
import MediaTime
import RTP
import Testing
import Video
@testable import Sender

/// Issue 20, item 10: a peer sending a PLI every 33 ms got IDRs whose RTP timestamps were 333, 233, 338 and 333 ms
/// apart. Two paths let an IDR in early: the throttle measured its 300 ms window on the clock of the encode while RTP
/// timestamps follow capture times (a frame that waited longer for the encoder passed the window early in media time),
/// and the adaptive encoder's resolution switch, an IDR the throttle never saw (the flood's IDRs made rate control
/// skip frames, the scaler stepped down on the skips, and its IDR came 33-67 ms after a requested one). The window is
/// now kept in media time and gates both.
@Suite struct KeyframeThrottleMediaTimeTests {
    /// What the encoder stage produced for a scripted run.
    struct Run {
        /// Every IDR: its frame, its 90 kHz media time, whether the stage forced it.
        var keyframes: [(index: Int, timestamp: Int64, requested: Bool)] = []
        /// Frames encoded (not skipped).
        var frames = 0
        /// Resolution switches after the initial size, by frame.
        var switches: [Int] = []
        /// The frames the stage forced.
        var forcedFrames: [Int] = []

        /// The gaps between consecutive IDRs, in 90 kHz ticks.
        var gaps: [Int64] {
            let ticks = keyframes.map(\.timestamp)
            return zip(ticks, ticks.dropFirst()).map { $1 - $0 }
        }
    }

    /// Drives `frames` frames of a 30 fps test pattern through the encoder stage on a manual clock, with 30 PLIs at
    /// 33 ms intervals from `firstPLI` on. Each frame is taken at its capture time, or later when the encoder is still
    /// busy (the pump keeps capture times on the grid).
    static func run(encoder: any FrameEncoder, width: Int, height: Int, frames: Int, firstPLI: Duration,
                    encodeTime: @escaping (_ index: Int, _ isKeyframe: Bool) -> Duration) throws -> Run {
        let clock = ManualClock()
        let stalled = StalledEncoder(encoder, clock: clock, duration: encodeTime)
        var run = Run()
        var index = 0
        let mailbox = FrameMailbox()
        let stage = EncoderStage(
            encoder: stalled, throttle: KeyframeRequestThrottle(), mailbox: mailbox, clock: clock.senderClock,
            maximumConsecutiveFailures: 3
        ) { output in
            switch output {
            case .frame(let frame, let statistics, _, _):
                if frame.isKeyframe { run.keyframes.append((index, frame.timestamp, statistics.keyframeRequested)) }
                run.frames += 1
            case .resolutionChanged(let change) where change.reason != .initial:
                run.switches.append(index)
            default:
                break
            }
        }
        stage.reschedule = {}
        let pattern = try TestPattern(width: width, height: height)
        var pendingPLIs = (0..<30).map { MonotonicTime.zero + firstPLI + .milliseconds(33 * $0) }[...]
        for frameIndex in 0..<frames {
            index = frameIndex
            // On the 30 fps grid, as FramePump puts it (frame 9 at 300 ms exactly).
            let capture = MonotonicTime(nanoseconds: Int64(frameIndex) * 1_000_000_000 / 30)
            clock.advance(to: capture)
            while let pli = pendingPLIs.first, pli <= clock.now {
                stage.requestKeyframe(at: pli)
                pendingPLIs.removeFirst()
            }
            _ = try mailbox.put(captureTime: capture) { $0 = pattern.frame(frameIndex) }
            stage.drain()
        }
        run.forcedFrames = stalled.forcedFrames
        return run
    }

    /// The plain encoder, 160x120: encodes take 10 ms (an IDR 30 ms) and every 7th frame the encoder's thread is not
    /// scheduled for 150 ms, so frames wait for it. Before: IDRs 233, 466, 466 ms apart in RTP time.
    @Test func aPLIEvery33MillisecondsGivesIDRsAtLeast300MillisecondsApartInRTPTime() throws {
        let configuration = EncoderConfiguration(width: 160, height: 120, frameRate: 30, targetBitrate: 300_000)
        let run = try Self.run(encoder: try H264Encoder(configuration: configuration), width: 160, height: 120,
                               frames: 60, firstPLI: .zero) { index, isKeyframe in
            .milliseconds((isKeyframe ? 30 : 10) + (index % 7 == 6 ? 150 : 0))
        }
        #expect(run.frames == 60)
        // 300 ms at 90 kHz; every request is served by the first frame after the window (one frame: 3000 ticks).
        #expect(run.gaps.allSatisfy { $0 >= 27_000 }, "IDRs \(run.gaps.map { $0 / 90 }) ms apart in RTP time")
        #expect(run.gaps.allSatisfy { $0 < 27_000 + 3_000 }, "IDRs \(run.gaps.map { $0 / 90 }) ms apart in RTP time")
        #expect(run.keyframes.count == 5, "IDRs at frames \(run.keyframes.map(\.index))")
        // Every IDR is one the stage forced (the first frame answers the PLI at 0 ms): OpenH264 makes none of its own.
        #expect(run.keyframes.allSatisfy { $0.requested })
        #expect(run.keyframes.map(\.index) == run.forcedFrames)
    }

    /// The sender: the adaptive encoder, 640x480 at 800 kbit/s, the PLIs from 1 s on, 5 ms encodes. The
    /// flood's IDRs make rate control skip frames and the scaler steps down: before, its IDR came one to two frames
    /// after a requested one (as `send` showed over loopback: 300, 300, 300, 67 ms).
    @Test func aResolutionSwitchDuringAPLIFloodWaitsForTheWindow() throws {
        let configuration = EncoderConfiguration(width: 640, height: 480, frameRate: 30, targetBitrate: 800_000)
        let run = try Self.run(encoder: try AdaptiveH264Encoder(configuration: configuration), width: 640, height: 480,
                               frames: 90, firstPLI: .seconds(1)) { _, _ in .milliseconds(5) }
        #expect(!run.switches.isEmpty, "the flood did not make the encoder switch: the case is not exercised")
        #expect(run.gaps.allSatisfy { $0 >= 27_000 },
                "IDRs at frames \(run.keyframes.map(\.index)), \(run.gaps.map { $0 / 90 }) ms apart; switches at \(run.switches)")
    }
}
