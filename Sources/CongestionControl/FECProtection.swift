#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MediaTime

/// How much FlexFEC a sender adds, from the path's loss and round trip, on top of NACK (libwebrtc's hybrid
/// `VCMNackFecMethod`: NACK always, FEC where a round trip makes repair late):
/// - **Loss**: the mean of the fractions lost the receiver reported over the last `lossWindow` (10 s, so that FEC
///   does not switch off between two bursts). libwebrtc takes the highest instead; at 5 % random loss the reports'
///   own noise (about +-1.3 % at 300 packets a second) then reads as 7-8 % and doubles the FEC. No loss, no FEC.
/// - **Round trip**: under `lowRoundTripTime` (20 ms, libwebrtc `kLowRttNackMs`) a NACK repairs within a frame, so
///   delta frames get no FEC; keyframes keep theirs (libwebrtc keeps the key-frame factor).
/// - **Too few bits**: at a round trip under 200 ms, frames under 400 bytes up to CIF, 700 up to VGA and 1,000 above
///   get none (libwebrtc `BitRateTooLowForFec`).
/// - **How much**: each FEC packet protects a group of g media packets, g the largest (at most `largestGroup`, 4)
///   for which a lost packet is recovered at least 80 % of the time, i.e. none of the other g - 1 media packets or the
///   FEC packet of its group is lost too: `(1 - p)^g >= 0.8`. That gives 1 FEC per 4 media packets up to about 5 %
///   loss (20 % of the packets), 1 per 2 at 10 % and 1 per 1 from about 20 %. libwebrtc reads its rate from a table
///   of simulated residual loss (`kFecRateTable`) with a floor of about 1 per 4 once there is loss; at 720p and
///   2 Mbit/s it gives 64, 70 and 132 (in 1/256 per media packet) at 2, 5 and 10 % loss, where this rule gives 64, 64
///   and 128.
/// - **Keyframes**: twice the delta rate, at most one FEC packet per media packet (libwebrtc: at least twice).
/// - **Batches**: a batch spans at most `round(2 x frame rate x RTT)` frames, 1...6 (libwebrtc `max_fec_frames`),
///   so that FEC arrives within about half a round trip of the media it repairs.
///
/// Pure: loss reports and times come in.
public struct FECProtection: Sendable {
    /// Below this round trip, delta frames are left to NACK.
    public static let lowRoundTripTime = Duration.milliseconds(20)
    /// The span over which the reported losses are averaged.
    public static let lossWindow = Duration.seconds(10)
    /// The most media packets one FEC packet protects.
    public static let largestGroup = 4
    /// The least chance a lost packet's group recovers it.
    public static let recoveryTarget = 0.8
    /// The most frames one batch spans.
    public static let maximumFramesPerBatch = 6

    /// What to protect with, now.
    public struct Rates: Sendable, Equatable {
        /// FEC packets per media packet of delta frames, in 1/256 (0-255).
        public var delta: Int
        /// FEC packets per media packet of keyframes, in 1/256 (0-255).
        public var key: Int
        /// The most frames one batch spans.
        public var maximumFrames: Int

        /// No FEC.
        public static let none = Rates(delta: 0, key: 0, maximumFrames: 1)

        /// Creates rates.
        /// - Parameters:
        ///   - delta: FEC packets per media packet of delta frames, in 1/256.
        ///   - key: FEC packets per media packet of keyframes, in 1/256.
        ///   - maximumFrames: the most frames one batch spans.
        public init(delta: Int, key: Int, maximumFrames: Int) {
            self.delta = delta
            self.key = key
            self.maximumFrames = maximumFrames
        }
    }

    private var losses: [(time: MonotonicTime, fraction: Double)] = []

    /// Creates a policy with no loss reported yet (no FEC).
    public init() { losses.reserveCapacity(16) }

    /// Records the fraction lost (0...1) of a reception report that arrived at `now`.
    public mutating func recordLoss(_ fraction: Double, now: MonotonicTime) {
        losses.removeAll { now - $0.time > Self.lossWindow }
        if losses.count >= 32 { losses.removeFirst() }
        losses.append((now, min(max(fraction, 0), 1)))
    }

    /// The mean fraction lost reported within `lossWindow` of `now` (0 with no report).
    public func loss(now: MonotonicTime) -> Double {
        var sum = 0.0
        var count = 0
        for entry in losses where now - entry.time <= Self.lossWindow {
            sum += entry.fraction
            count += 1
        }
        return count > 0 ? sum / Double(count) : 0
    }

    /// The media packets one FEC packet protects at loss `p` (1...`largestGroup`).
    public static func group(loss p: Double) -> Int {
        guard p > 0 else { return largestGroup }
        guard p < 1 else { return 1 }
        let g = Int((log(recoveryTarget) / log(1 - p)).rounded(.down))
        return min(max(g, 1), largestGroup)
    }

    /// The protection now.
    /// - Parameters:
    ///   - now: the time now.
    ///   - roundTripTime: the path's round trip, nil while unknown (protected as if long).
    ///   - bitrate: the media target, bit/s.
    ///   - framesPerSecond: the frame rate.
    ///   - pixels: the frame's width x height.
    public func rates(
        now: MonotonicTime, roundTripTime: Duration?, bitrate: Int, framesPerSecond: Double, pixels: Int
    ) -> Rates {
        let p = loss(now: now)
        guard p > 0 else { return .none }
        let fps = max(framesPerSecond, 1)
        let rtt = roundTripTime?.inSeconds ?? 0.2
        let bytesPerFrame = Double(bitrate) / 8 / fps
        let floor: Double = pixels <= 352 * 288 ? 400 : pixels <= 640 * 480 ? 700 : 1_000
        guard bytesPerFrame >= floor || rtt >= 0.2 else { return .none }
        let delta = min(255, 256 / Self.group(loss: p))
        let key = min(255, 2 * delta)
        let frames = min(max(Int((2 * fps * rtt).rounded()), 1), Self.maximumFramesPerBatch)
        let short = roundTripTime.map { $0 < Self.lowRoundTripTime } ?? false
        return Rates(delta: short ? 0 : delta, key: key, maximumFrames: frames)
    }
}
