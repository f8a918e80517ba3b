import Codec
import H264
import MediaTime
import RTP
import TestSupport
@testable import Sender

/// An encoder for the session simulation: it follows the rates and keyframe requests the session gives it as a CBR
/// encoder does (an IDR costs several frames' budget, which the following frames pay back), through the real
/// `KeyframeRequestThrottle`, and emits Annex-B access units of those sizes (SPS, PPS and an IDR slice, or one P
/// slice; filler bytes with no start code inside). No pixels: what the receiver may decode follows from which
/// access units arrive (one reference frame, as OpenH264 here).
struct EncoderModel {
    /// The rate the session asked for last.
    var target: Int
    let frameRate: Double
    /// An IDR's size in frame budgets.
    var keyframeCost = 6.0
    /// The share of the target the encoder produces on average: OpenH264's CBR runs a few per cent under its target
    /// at these rates (0.90 M offered for a 0.93 M target in the network benchmark's bottleneck case).
    var fill = 0.96
    private var throttle: KeyframeRequestThrottle
    private var debt = 0.0
    private var frames = 0

    init(target: Int, frameRate: Double, keyframeThrottle: Duration = KeyframeRequestThrottle.defaultMinimumInterval) {
        self.target = target
        self.frameRate = frameRate
        throttle = KeyframeRequestThrottle(minimumInterval: keyframeThrottle)
    }

    mutating func requestKeyframe(at time: MonotonicTime) {
        throttle.request(at: time)
    }

    /// Encodes the frame captured at `captureTime`.
    mutating func encode(captureTime: MonotonicTime, random: inout SplitMix64) -> EncoderOutput {
        let isKeyframe = frames == 0 || throttle.shouldForceKeyframe(at: captureTime)
        let requestedAt = isKeyframe ? throttle.pendingSince : nil
        if isKeyframe { throttle.keyframeEncoded(at: captureTime) }
        frames += 1
        let budget = Double(target) * fill / 8 / frameRate
        var size: Double
        if isKeyframe {
            size = budget * keyframeCost
        } else {
            // Pay the debt back over about half a second, never below a quarter of the budget.
            size = min(max(budget - debt / (frameRate / 2), budget * 0.25), budget * 2)
            size *= Double.random(in: 0.7...1.3, using: &random)
        }
        debt = max(0, debt + size - budget)
        let frame = Self.accessUnit(payloadSize: max(16, Int(size)), isKeyframe: isKeyframe, index: frames)
        let statistics = EncodeStatistics(
            size: frame.bytes.count, averageQP: 30, encodeDuration: .milliseconds(4), keyframeRequested: requestedAt != nil)
        return .frame(frame, statistics, captureTime: captureTime, keyframeRequestedAt: requestedAt)
    }

    /// An access unit of about `payloadSize` bytes.
    static func accessUnit(payloadSize: Int, isKeyframe: Bool, index: Int) -> EncodedFrame {
        let startCode: [UInt8] = [0, 0, 0, 1]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payloadSize + 32)
        if isKeyframe {
            bytes += startCode + [0x67, 0x42, 0xC0, 0x1F, 0xDA, 0x01, 0x40, 0x16, 0xE8]  // SPS (Constrained Baseline)
            bytes += startCode + [0x68, 0xCE, 0x3C, 0x80]  // PPS
            bytes += startCode + [0x65]  // IDR slice
        } else {
            bytes += startCode + [0x41]  // non-IDR slice
        }
        let filler = UInt8(0x80 | (index & 0x7F))
        bytes += [UInt8](repeating: filler, count: payloadSize)
        return EncodedFrame(annexB: bytes, timestamp: Int64(index))
    }
}
