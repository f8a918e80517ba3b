import ArgumentParser
import Codec
import Foundation
import H264
import Control
import MediaTime
import RTP
import Receiver
import Synchronization
import SRTP
import Sender
import Video

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Sender and receiver over loopback with SRTP: a PLI at 3 s, a bitrate change at 6 s, then checks.",
        discussion: """
            Runs the receiver and the sender in one process over loopback UDP with SRTP (AES_CM_128_HMAC_SHA1_80):
            the test pattern, 1280x720 at 30 fps, Constrained Baseline 3.1, CBR. At 3 s the receiver asks for a \
            keyframe with a PLI; at 6 s the bitrate is lowered through the control endpoint. Prints the bitrate of each \
            second against the target, the keyframes, the PSNR of the decoded frames against the source, and exits 0 \
            only when every check holds.
            """
    )

    @Option(help: "Seconds to run.") var duration: Double = 10
    @Option(help: "Frame size WxH.") var size: FrameSize = FrameSize(argument: "1280x720")!
    @Option(help: "Frames per second.") var fps: Double = 30
    @Option(help: "Initial bitrate.") var bitrate: RateArgument = RateArgument(bps: 1_500_000)
    @Option(name: .customLong("lowered-bitrate"), help: "The bitrate set through the control endpoint at 6 s.")
    var loweredBitrate: RateArgument = RateArgument(bps: 800_000)
    @Option(help: "H.264 profile: baseline or high.") var profile: ProfileArgument = .baseline

    func validate() throws {
        guard duration >= 8 else { throw ValidationError("--duration must be at least 8 s (PLI at 3 s, bitrate change at 6 s)") }
    }

    @OptionGroup(title: "Logging") var logging: LoggingOptions

    func run() async throws {
        let suite = SRTPSuite.default
        let key = SRTPMasterKey.random(for: suite)
        let pattern = try TestPattern(width: size.width, height: size.height)
        let log = DemoLog(frameInterval: RTPClock.ticks(.seconds(1) / fps))

        var receiverConfiguration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiverConfiguration.security = .init(suite: suite, remoteKey: key)
        receiverConfiguration.stopOnBye = true
        let reference = DemoReference(pattern: pattern)
        receiverConfiguration.onFrameDecoded = { picture, received in
            guard let index = log.sourceIndex(rtpTimestamp: received.rtpTimestamp.rawValue),
                  let psnr = reference.psnr(of: picture, index: index) else { return }
            log.decoded(psnr: psnr)
        }
        let receiver = try await H264Receiver(configuration: receiverConfiguration)

        var encoder = EncoderConfiguration(width: size.width, height: size.height, frameRate: fps, targetBitrate: bitrate.bps)
        encoder.profile = profile.encoderProfile
        do { try encoder.validate() } catch { throw ValidationError("\(error)") }
        var configuration = SenderConfiguration(peerHost: "127.0.0.1", peerPort: receiver.localPort, encoder: encoder)
        configuration.localHost = "127.0.0.1"
        configuration.security = .init(suite: suite, key: key)
        configuration.frameObserver = { frame, timestamp in log.sent(rtpTimestamp: timestamp.rawValue, keyframe: frame.isKeyframe) }
        let sender = try await H264Sender(configuration: configuration)
        let control = try await ControlServer(host: "127.0.0.1", port: 0, token: nil, sender: sender)
        let reporting = Task { for await stats in sender.reports { log.report(stats) } }

        print("rtc-h264 demo: \(size.width)x\(size.height) at \(fps) fps, \(profile == .baseline ? "Constrained Baseline" : "High") 3.1, " +
              "CBR \(RateParser.format(bitrate: bitrate.bps)), SRTP \(suite.sdpName), loopback UDP, \(Int(duration)) s")
        let pump = FramePump(
            source: try PatternSource(width: size.width, height: size.height), sender: sender, pacing: .realTime,
            durationLimit: .seconds(duration))
        async let receiverStats = receiver.run()
        async let pumped = pump.run()
        let start = ContinuousClock.now
        try await Task.sleep(until: start + .seconds(3))
        receiver.requestKeyframe()
        log.mark("PLI sent by the receiver")
        try await Task.sleep(until: start + .seconds(6))
        let reply = try await ControlClient.send(.setBitrate(loweredBitrate.bps), host: "127.0.0.1", port: control.localPort)
        log.mark("bitrate set to \(RateParser.format(bitrate: loweredBitrate.bps)) through the control endpoint (HTTP \(reply.status))")
        _ = try await pumped
        let sent = try await sender.finish()
        await reporting.value
        let received = try await receiverStats
        await control.close()
        // The final report is the totals, not a one-second window.
        let windows = log.reports.dropLast()

        let report = DemoReport(
            log: log, reports: Array(windows), sent: sent, received: received, initialBitrate: bitrate.bps,
            loweredBitrate: loweredBitrate.bps, frameInterval: 1 / fps)
        print(report.table())
        if !report.passed { throw ExitCode(1) }
    }
}

/// Renders the source picture of a frame index to compare a decoded picture with (on the receiver's loop).
final class DemoReference: Sendable {
    private let pattern: TestPattern
    private let frame: Mutex<I420Frame>

    init(pattern: TestPattern) {
        self.pattern = pattern
        frame = Mutex(I420Frame(width: pattern.width, height: pattern.height))
    }

    /// PSNR-Y of a decoded picture against its source frame; a picture of a smaller rung (resolution adaptation) is
    /// scaled back to the source size first, as a viewer would see it.
    func psnr(of picture: I420Frame, index: Int) -> Double? {
        frame.withLock { reference in
            pattern.render(frameIndex: index, into: &reference)
            var shown = picture
            if picture.width != reference.width || picture.height != reference.height {
                guard var converter = try? FrameConverter(width: reference.width, height: reference.height),
                      let scaled = try? converter.convert(.i420(picture)) else { return nil }
                shown = scaled
            }
            return (try? PSNR(reference: reference, distorted: shown))?.y
        }
    }
}

/// What the demo saw, written from both event loops.
///
/// A frame's source index comes from its RTP timestamp: the sender stamps frame `n` with exactly
/// `first + n x 90000/fps`.
final class DemoLog: @unchecked Sendable {  // every field is guarded by `lock`
    private let lock = NSLock()
    private let frameInterval: Int64
    private var firstTimestamp: UInt32?
    private(set) var keyframeIndices: [Int] = []
    private(set) var reports: [SenderStats] = []
    private(set) var psnr: [Double] = []
    private(set) var marks: [(Double, String)] = []
    private let start = ContinuousClock.now

    init(frameInterval: Int64) { self.frameInterval = max(1, frameInterval) }

    func sent(rtpTimestamp: UInt32, keyframe: Bool) {
        lock.withLock {
            let first = firstTimestamp ?? rtpTimestamp
            firstTimestamp = first
            if keyframe { keyframeIndices.append(Int(Int64(rtpTimestamp &- first) / frameInterval)) }
        }
    }
    func sourceIndex(rtpTimestamp: UInt32) -> Int? {
        lock.withLock { firstTimestamp.map { Int(Int64(rtpTimestamp &- $0) / frameInterval) } }
    }
    func report(_ stats: SenderStats) { lock.withLock { reports.append(stats) } }
    func decoded(psnr value: Double) { lock.withLock { psnr.append(value) } }
    func mark(_ text: String) {
        let elapsed = ContinuousClock.now - start
        let seconds = elapsed.inSeconds
        lock.withLock { marks.append((seconds, text)) }
    }
}

/// The demo's table and checks.
struct DemoReport {
    let log: DemoLog
    let reports: [SenderStats]
    let sent: SenderStats
    let received: ReceiverStats
    let initialBitrate: Int
    let loweredBitrate: Int
    let frameInterval: Double

    /// (description, passed)
    var checks: [(String, Bool)] {
        var result: [(String, Bool)] = []
        result.append(("every frame sent was decoded (\(received.framesDecoded)/\(sent.framesSent))",
                       sent.framesSent > 0 && received.framesDecoded == sent.framesSent))
        result.append(("the PLI was received and answered by a keyframe (PLI \(sent.pliCount), keyframes \(sent.keyFramesEncoded))",
                       sent.pliCount >= 1 && sent.keyFramesEncoded >= 2))
        if let latency = sent.keyframeRequestLatency {
            let encode = sent.totalEncodeTime / Double(max(1, sent.framesEncoded))
            let bound = frameInterval + 3 * encode + 0.005
            result.append((String(format: "keyframe latency %.1f ms <= one frame interval + encode time (%.1f ms)", latency * 1000, bound * 1000),
                           latency <= bound))
        } else {
            result.append(("keyframe latency measured", false))
        }
        let windows = steadyWindows
        let before = windows.filter { $0.second >= 3 && $0.second <= 6 && $0.target == initialBitrate }
        let after = windows.filter { $0.second >= 8 && $0.target == loweredBitrate }
        let within = { (w: [Window], target: Int) in
            !w.isEmpty && w.allSatisfy { abs(Double($0.actual - target)) <= 0.15 * Double(target) }
        }
        result.append(("seconds without a keyframe within 15% of \(RateParser.format(bitrate: initialBitrate)) before the change",
                       within(before, initialBitrate)))
        result.append(("seconds without a keyframe within 15% of \(RateParser.format(bitrate: loweredBitrate)) after the change",
                       within(after, loweredBitrate)))
        result.append(("no second above the 1.5x ceiling", reports.allSatisfy { Double($0.actualBitrate) <= 1.5 * Double($0.targetBitrate) * 1.02 }))
        let minPSNR = log.psnr.min() ?? 0
        result.append((String(format: "PSNR of every decoded frame above 30 dB (min %.1f dB over %d frames)", minPSNR, log.psnr.count),
                       log.psnr.count == received.framesDecoded && minPSNR > 30))
        result.append(("no SRTP failures, no malformed packets", received.srtpUnprotectFailures == 0 && received.malformedPackets == 0))
        return result
    }

    struct Window {
        var second: Int
        var target: Int
        var actual: Int
        var keyframe: Bool
    }

    var windows: [Window] {
        var out: [Window] = []
        var previousKeyframes = 0
        for (i, r) in reports.enumerated() {
            out.append(Window(second: i + 1, target: r.targetBitrate, actual: r.actualBitrate, keyframe: r.keyFramesEncoded > previousKeyframes))
            previousKeyframes = r.keyFramesEncoded
        }
        return out
    }

    /// Windows after the first two seconds with no keyframe and no target change inside them.
    var steadyWindows: [Window] {
        var previousTarget = initialBitrate
        return windows.compactMap { w in
            defer { previousTarget = w.target }
            return w.second > 2 && !w.keyframe && w.target == previousTarget ? w : nil
        }
    }

    var passed: Bool { checks.allSatisfy(\.1) }

    func table() -> String {
        var lines = ["", "second  target        actual        keyframe"]  // columns of 14
        for w in windows {
            let pad = { (text: String) in text + String(repeating: " ", count: max(0, 14 - text.count)) }
            lines.append(String(format: "%6d  ", w.second) + pad(RateParser.format(bitrate: w.target))
                         + pad(RateParser.format(bitrate: w.actual)) + (w.keyframe ? "yes" : ""))
        }
        lines.append("")
        for (t, text) in log.marks { lines.append(String(format: "%6.2f s  %@", t, text as NSString)) }
        let keyframeTimes = log.keyframeIndices.map { String(format: "frame %d (%.2f s)", $0, Double($0) * frameInterval) }
        lines.append("frames sent \(sent.framesSent), decoded \(received.framesDecoded); keyframes: \(keyframeTimes.joined(separator: ", "))")
        if !log.psnr.isEmpty {
            lines.append(String(format: "PSNR (Y) decoded vs source: min %.2f dB, mean %.2f dB over %d frames",
                                log.psnr.min()!, log.psnr.reduce(0, +) / Double(log.psnr.count), log.psnr.count))
        }
        lines.append("")
        for (text, ok) in checks { lines.append("\(ok ? "[ok]  " : "[FAIL]") \(text)") }
        lines.append(passed ? "demo: all checks passed" : "demo: some checks FAILED")
        return lines.joined(separator: "\n")
    }
}

extension DemoCommand: LoggingCommand {}
