import MediaTime
import RTP

/// The share of the sent bytes that were retransmissions over the last second, which the encoder's target gives up so
/// that media and retransmissions together stay within the congestion target (libwebrtc's protection overhead:
/// `FecControllerDefault::UpdateFecRates` takes the NACK and FEC rates out of the encoder's target, at most half of
/// it). Without this, a sender repairing a burst of loss behind a full bottleneck queue adds its retransmissions on
/// top of a target that already fills the link, loses more, and is asked for more: a 1 Mbit/s bottleneck with a
/// 30-packet queue, entered at 1.5 Mbit/s, saw 147 retransmissions in one second on top of 0.9 Mbit/s of media.
///
/// Fed with the cumulative byte counters whenever the target is looked at; a sample is kept every `sampleInterval`
/// and the share is measured between the newest one and the one about `window` older. Pure: times come in.
public struct RetransmissionShare: Sendable {
    /// The span the share is measured over (libwebrtc measures the sent rates over 1 s).
    public static let window = Duration.seconds(1)
    /// The least time between two kept samples.
    public static let sampleInterval = Duration.milliseconds(100)
    /// The most of the target retransmissions may take from the encoder (libwebrtc `kProtectionOverheadRateThreshold`).
    public static let maximumShare = 0.5

    private struct Sample {
        var time: MonotonicTime
        var media: Int
        var retransmitted: Int
    }

    /// Enough samples for `window` at `sampleInterval`, plus the one just outside it.
    private static let capacity = 12
    private var samples: [Sample] = []

    /// Creates an empty share: no samples, so the retransmissions' share reads 0 until the first interval has passed.
    public init() { samples.reserveCapacity(Self.capacity) }

    /// Records the counters at `now` (kept only when `sampleInterval` has passed since the last kept sample).
    /// - Parameters:
    ///   - media: media bytes sent so far.
    ///   - retransmitted: retransmitted bytes sent so far.
    ///   - now: when the counts were read (one sample per interval is kept).
    public mutating func record(media: Int, retransmitted: Int, now: MonotonicTime) {
        if let last = samples.last, now - last.time < Self.sampleInterval { return }
        if samples.count == Self.capacity { samples.removeFirst() }
        samples.append(Sample(time: now, media: media, retransmitted: retransmitted))
    }

    /// The retransmitted share of the bytes sent between the newest sample and the newest one at least `window`
    /// before it (or the oldest kept, early on), at most `maximumShare`; 0 before two samples or with nothing sent.
    var share: Double {
        guard let newest = samples.last, samples.count >= 2 else { return 0 }
        var base = samples[0]
        for sample in samples.dropLast() where newest.time - sample.time >= Self.window { base = sample }
        let media = max(0, newest.media - base.media)
        let retransmitted = max(0, newest.retransmitted - base.retransmitted)
        let total = media + retransmitted
        guard total > 0 else { return 0 }
        return min(Self.maximumShare, Double(retransmitted) / Double(total))
    }

    /// `bitrate` less the retransmitted share, at least 1 bit/s.
    public func mediaBitrate(of bitrate: Int) -> Int {
        let share = self.share
        guard share > 0 else { return bitrate }
        return max(1, Int((Double(bitrate) * (1 - share)).rounded()))
    }
}
