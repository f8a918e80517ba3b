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

    /// Capture -> first packet: the decode's capture -> decoded less the time since the frame's first packet arrived;
    /// a later packet of the frame moves only its last arrival (first -> last packet), a retransmission neither; a
    /// frame whose first packet was not seen is measured for decode only.
    @Test func theFirstPacketsArrivalGivesCaptureToFirstPacketAndTheSpread() throws {
        var tracker = CaptureLatencyTracker()
        tracker.received(AbsoluteCaptureTime(captureTimestamp: Self.captured), timestamp: RTPTimestamp(9_000))
        let start = MonotonicTime(nanoseconds: 5_000_000_000)
        // Frame 1: first packet (65534) 14 ms after capture, the newest (1, across the wrap) 10 ms later, a repeat of
        // 65535 on the media SSRC 20 ms later and an RTX retransmission 30 ms later; decoded 45 ms after capture (31 ms
        // after its first packet).
        tracker.packetArrived(timestamp: RTPTimestamp(9_000), sequence: SequenceNumber(65_534), now: start)
        tracker.packetArrived(timestamp: RTPTimestamp(9_000), sequence: SequenceNumber(1), now: start + .milliseconds(10))
        tracker.packetArrived(timestamp: RTPTimestamp(9_000), sequence: SequenceNumber(65_535), now: start + .milliseconds(20))
        tracker.packetArrived(timestamp: RTPTimestamp(9_000), sequence: SequenceNumber(2), now: start + .milliseconds(30),
                              isRetransmission: true)
        tracker.decoded(timestamp: RTPTimestamp(9_000), wallClock: Self.captured.advanced(by: .milliseconds(45)),
                        now: start + .milliseconds(31))
        // Frame 2 (33 ms later): its first packet never seen; decoded 20 ms after capture.
        tracker.decoded(timestamp: RTPTimestamp(9_000 + 2_970), wallClock: Self.captured.advanced(by: .milliseconds(53)),
                        now: start + .milliseconds(39))
        let first = try #require(tracker.firstPacketStatistics)
        #expect(first.frames == 1)
        #expect(abs(first.p50 - 14) < 0.01, "\(first)")
        let spread = try #require(tracker.spreadStatistics)
        #expect(spread.frames == 1 && abs(spread.p50 - 10) < 0.01, "\(spread)")
        #expect(tracker.statistics?.frames == 2)
    }
}
