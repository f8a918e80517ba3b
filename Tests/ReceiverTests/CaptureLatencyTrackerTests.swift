import MediaTime
@testable import Receiver
import RTP
import Testing

/// Issue 25, item 1 on the receiver: capture -> decoded times from `abs-capture-time`, interpolated along the RTP
/// timestamps between the values received, as libwebrtc's receiver does.
@Suite struct CaptureLatencyTrackerTests {
    static let captured = NTPTimestamp(seconds: 1_000, fraction: 0)

    @Test func framesAfterTheValueAreInterpolatedAndSummarised() throws {
        var tracker = CaptureLatencyTracker()
        #expect(tracker.statistics == nil)
        tracker.decoded(timestamp: RTPTimestamp(0), wallClock: Self.captured)  // nothing received yet: not measured
        #expect(tracker.statistics == nil)
        tracker.received(AbsoluteCaptureTime(captureTimestamp: Self.captured), timestamp: RTPTimestamp(9_000))
        // Frames 100 ms apart, each decoded 10, 20, ... 100 ms after its capture.
        for index in 0..<10 {
            let timestamp = RTPTimestamp(UInt32(9_000 + index * 9_000))
            let capture = Self.captured.advanced(by: .milliseconds(100 * index))
            tracker.decoded(timestamp: timestamp, wallClock: capture.advanced(by: .milliseconds(10 * (index + 1))))
        }
        let statistics = try #require(tracker.statistics)
        #expect(statistics.frames == 10)
        #expect(abs(statistics.p50 - 50) < 0.01 && abs(statistics.p95 - 100) < 0.01 && abs(statistics.max - 100) < 0.01)
        // More than 5 s from the value received: not measured.
        tracker.decoded(timestamp: RTPTimestamp(9_000 + 451_000), wallClock: Self.captured)
        #expect(tracker.statistics?.frames == 10)
    }

    /// A receiver clock behind the sender's gives negative values; hostile values never trap.
    @Test func clockOffsetsAndHostileValuesNeverTrap() throws {
        var tracker = CaptureLatencyTracker()
        tracker.received(AbsoluteCaptureTime(captureTimestamp: NTPTimestamp(rawValue: .max)), timestamp: RTPTimestamp(.max))
        tracker.decoded(timestamp: RTPTimestamp(0), wallClock: NTPTimestamp(rawValue: 0))
        tracker.received(AbsoluteCaptureTime(captureTimestamp: Self.captured), timestamp: RTPTimestamp(0))
        tracker.decoded(timestamp: RTPTimestamp(0), wallClock: Self.captured.advanced(by: .milliseconds(-20)))
        let statistics = try #require(tracker.statistics)
        #expect(statistics.frames == 2)
        #expect(statistics.p50 < 0)
    }
}
