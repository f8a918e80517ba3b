import MediaTime
import RTP

/// The receiver's side of `abs-capture-time`: the last capture time received (a frame's RTP timestamp and the
/// value), from which every decoded frame's capture time is taken or interpolated as libwebrtc's
/// `AbsoluteCaptureTimeInterpolator` does (along the 90 kHz timestamps, for frames within 5 s of it), and the
/// capture -> decoded times of the latest frames.
struct CaptureLatencyTracker {
    /// The last capture time received and its frame's RTP timestamp.
    private var anchor: (timestamp: RTPTimestamp, value: NTPTimestamp)?
    /// The latest samples, in milliseconds (a ring of `window`).
    private var samples: [Double] = []
    private var next = 0
    private var summary = CaptureToDecoded()

    /// Frames the percentiles are taken over.
    static let window = 1024
    /// libwebrtc's `AbsoluteCaptureTimeInterpolator::kInterpolationMaxInterval`: a frame further from the last value
    /// received gets no capture time.
    static let interpolationMaximumTicks: Int64 = 5 * RTPClock.rate

    /// A capture time received on a packet of the frame with RTP timestamp `timestamp`.
    mutating func received(_ time: AbsoluteCaptureTime, timestamp: RTPTimestamp) {
        anchor = (timestamp, time.captureTimestamp)
    }

    /// The capture time of the frame with RTP timestamp `timestamp`, or nil with none received within 5 s of it.
    func captureTime(of timestamp: RTPTimestamp) -> NTPTimestamp? {
        guard let anchor else { return nil }
        let ticks = Int64(Int32(bitPattern: timestamp.rawValue &- anchor.timestamp.rawValue))
        guard abs(ticks) <= Self.interpolationMaximumTicks else { return nil }
        return AbsoluteCaptureTime.interpolate(anchor.value, from: anchor.timestamp, to: timestamp)
    }

    /// A frame decoded at `wallClock`; recorded when its capture time is known.
    /// - Parameters:
    ///   - timestamp: the frame's RTP timestamp.
    ///   - wallClock: the receiver's wall clock when the picture came out, NTP format.
    mutating func decoded(timestamp: RTPTimestamp, wallClock: NTPTimestamp) {
        guard let capture = captureTime(of: timestamp) else { return }
        // The signed UQ32.32 difference: wraps, never traps, and a clock behind the sender's gives a negative value.
        let difference = Int64(bitPattern: wallClock.rawValue &- capture.rawValue)
        let milliseconds = Double(difference) / 4_294_967_296 * 1000
        if samples.count < Self.window {
            samples.append(milliseconds)
        } else {
            samples[next] = milliseconds
        }
        next = (next + 1) % Self.window
        summary.max = summary.frames == 0 ? milliseconds : Swift.max(summary.max, milliseconds)
        summary.frames += 1
    }

    /// The summary so far, nil before the first measured frame.
    var statistics: CaptureToDecoded? {
        guard summary.frames > 0 else { return nil }
        var result = summary
        let sorted = samples.sorted()
        result.p50 = Self.percentile(0.5, of: sorted)
        result.p95 = Self.percentile(0.95, of: sorted)
        return result
    }

    /// The nearest-rank percentile of sorted, non-empty values.
    static func percentile(_ fraction: Double, of sorted: [Double]) -> Double {
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }
}
