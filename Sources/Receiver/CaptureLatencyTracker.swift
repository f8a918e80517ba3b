import MediaTime
import RTP

/// The receiver's side of `abs-capture-time`: the last capture time received (a frame's RTP timestamp and the
/// value), from which every decoded frame's capture time is taken or interpolated as libwebrtc's
/// `AbsoluteCaptureTimeInterpolator` does (along the 90 kHz timestamps, for frames within 5 s of it), and the
/// capture -> decoded times of the latest frames; with the arrival of each frame's first packet, its capture -> first
/// packet time too (the decode time less the time since that packet arrived: no wall clock on the receive path), and
/// how far apart its first packet and its newest (highest sequence number) arrived: a resent packet of the frame
/// (RTX, or a repeat on the media SSRC, which fills a gap below the newest) does not count.
struct CaptureLatencyTracker {
    /// The last capture time received and its frame's RTP timestamp.
    private var anchor: (timestamp: RTPTimestamp, value: NTPTimestamp)?
    private var toDecoded = Window()
    private var toFirstPacket = Window()
    private var firstToLast = Window()
    /// When the first and the last packet of each recent frame arrived (a ring of `arrivalSlots`, filled once:
    /// nothing allocated per packet).
    private var arrivals = [(timestamp: RTPTimestamp, time: MonotonicTime, last: MonotonicTime, newest: SequenceNumber)?](
        repeating: nil, count: arrivalSlots)
    private var nextArrival = 0

    /// Frames the percentiles are taken over.
    static let window = 1024
    /// Recent frames whose first packet's arrival is remembered: 128, about 4 s at 30 fps (a retransmission of an
    /// older frame's packet comes long before its slot is reused).
    static let arrivalSlots = 128
    /// libwebrtc's `AbsoluteCaptureTimeInterpolator::kInterpolationMaxInterval`: a frame further from the last value
    /// received gets no capture time.
    static let interpolationMaximumTicks: Int64 = 5 * RTPClock.rate

    /// The latest samples of one latency, in milliseconds (a ring of `window`), and their summary.
    private struct Window {
        var samples: [Double] = []
        var next = 0
        var summary = CaptureToDecoded()

        mutating func add(_ milliseconds: Double) {
            if samples.count < CaptureLatencyTracker.window {
                samples.append(milliseconds)
            } else {
                samples[next] = milliseconds
            }
            next = (next + 1) % CaptureLatencyTracker.window
            summary.max = summary.frames == 0 ? milliseconds : Swift.max(summary.max, milliseconds)
            summary.frames += 1
        }

        var statistics: CaptureToDecoded? {
            guard summary.frames > 0 else { return nil }
            var result = summary
            let sorted = samples.sorted()
            result.p50 = CaptureLatencyTracker.percentile(0.5, of: sorted)
            result.p95 = CaptureLatencyTracker.percentile(0.95, of: sorted)
            return result
        }
    }

    /// A capture time received on a packet of the frame with RTP timestamp `timestamp`.
    mutating func received(_ time: AbsoluteCaptureTime, timestamp: RTPTimestamp) {
        anchor = (timestamp, time.captureTimestamp)
    }

    /// A media packet (sequence number `sequence`) of the frame with RTP timestamp `timestamp` arrived at `now`:
    /// remembered if it is the frame's first, else as its newest when its sequence number is the highest so far and
    /// it is not an RTX retransmission (a repair says how long the repair took, not how the frame was sent).
    mutating func packetArrived(
        timestamp: RTPTimestamp, sequence: SequenceNumber, now: MonotonicTime, isRetransmission: Bool = false
    ) {
        for index in arrivals.indices where arrivals[index]?.timestamp == timestamp {
            if !isRetransmission, sequence.isAfter(arrivals[index]!.newest) {
                arrivals[index]!.last = now
                arrivals[index]!.newest = sequence
            }
            return
        }
        arrivals[nextArrival] = (timestamp, now, now, sequence)
        nextArrival = (nextArrival + 1) % Self.arrivalSlots
    }

    /// The capture time of the frame with RTP timestamp `timestamp`, or nil with none received within 5 s of it.
    func captureTime(of timestamp: RTPTimestamp) -> NTPTimestamp? {
        guard let anchor else { return nil }
        let ticks = Int64(Int32(bitPattern: timestamp.rawValue &- anchor.timestamp.rawValue))
        guard abs(ticks) <= Self.interpolationMaximumTicks else { return nil }
        return AbsoluteCaptureTime.interpolate(anchor.value, from: anchor.timestamp, to: timestamp)
    }

    /// A frame decoded at `wallClock` (`now` on the monotonic clock); recorded when its capture time is known.
    /// - Parameters:
    ///   - timestamp: the frame's RTP timestamp.
    ///   - wallClock: the receiver's wall clock when the picture came out, NTP format.
    ///   - now: the monotonic clock at the same moment (the first packet's arrival is on it), if known.
    mutating func decoded(timestamp: RTPTimestamp, wallClock: NTPTimestamp, now: MonotonicTime? = nil) {
        guard let capture = captureTime(of: timestamp) else { return }
        // The signed UQ32.32 difference: wraps, never traps, and a clock behind the sender's gives a negative value.
        let difference = Int64(bitPattern: wallClock.rawValue &- capture.rawValue)
        let milliseconds = Double(difference) / 4_294_967_296 * 1000
        toDecoded.add(milliseconds)
        guard let now, let arrival = arrivals.lazy.compactMap({ $0 }).first(where: { $0.timestamp == timestamp }),
              arrival.time <= now
        else { return }
        toFirstPacket.add(milliseconds - (now - arrival.time).inSeconds * 1000)
        firstToLast.add((arrival.last - arrival.time).inSeconds * 1000)
    }

    /// The capture -> decoded summary so far, nil before the first measured frame.
    var statistics: CaptureToDecoded? { toDecoded.statistics }

    /// The capture -> first packet summary so far, nil before the first measured frame.
    var firstPacketStatistics: CaptureToDecoded? { toFirstPacket.statistics }

    /// The first -> last packet summary of the frames measured so far, nil before the first.
    var spreadStatistics: CaptureToDecoded? { firstToLast.statistics }

    /// The nearest-rank percentile of sorted, non-empty values.
    static func percentile(_ fraction: Double, of sorted: [Double]) -> Double {
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }
}
