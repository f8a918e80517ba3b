/// Per-source reception statistics for RTCP report blocks (RFC 3550 Appendix A.3 and A.8): expected and lost
/// packet counts, the loss fraction since the previous report, and interarrival jitter.
///
/// Pure: arrival times are passed in, already converted to the stream's RTP clock (90 kHz for video), so the
/// caller owns the clock.
public struct ReceptionStatistics: Hashable, Sendable {
    /// The source being measured.
    public let ssrc: SSRC
    private var tracker = ExtendedSequenceNumberTracker()
    private var baseSequence: Int64?
    /// Packets received, duplicates included (RFC 3550 section 6.4.1 counts them, so losses can go negative).
    public private(set) var received: Int64 = 0
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0
    /// Jitter in RTP clock units, scaled by 16 (RFC 3550 Appendix A.8's integer form).
    private var scaledJitter: Int64 = 0
    private var lastTransit: Int64?

    /// Creates empty statistics.
    /// - Parameter ssrc: the source.
    public init(ssrc: SSRC) { self.ssrc = ssrc }

    /// Records one received packet.
    /// - Parameters:
    ///   - sequenceNumber: its sequence number.
    ///   - timestamp: its RTP timestamp.
    ///   - arrival: its arrival time on the RTP clock (any origin, it only enters differences).
    public mutating func record(sequenceNumber: SequenceNumber, timestamp: RTPTimestamp, arrival: Int64) {
        let extended = tracker.extend(sequenceNumber)
        if baseSequence == nil || extended < baseSequence! { baseSequence = extended }
        received += 1
        // RFC 3550 A.8: D(i-1, i) = (R_i - R_{i-1}) - (S_i - S_{i-1}); J += (|D| - J) / 16.
        let transit = arrival - Int64(timestamp.rawValue)
        if let last = lastTransit {
            var d = transit - last
            // The RTP timestamp may have wrapped between the two packets.
            d = Int64(Int32(truncatingIfNeeded: d))
            if d < 0 { d = -d }
            scaledJitter += d - ((scaledJitter + 8) >> 4)
        }
        lastTransit = transit
    }

    /// Packets expected so far: extended highest - first + 1 (RFC 3550 A.3).
    public var expected: Int64 {
        guard let base = baseSequence, let highest = tracker.highest else { return 0 }
        return highest - base + 1
    }

    /// Cumulative packets lost (expected - received).
    public var cumulativeLost: Int64 { expected - received }

    /// Interarrival jitter in RTP clock units.
    public var jitter: UInt32 { UInt32(truncatingIfNeeded: scaledJitter >> 4) }

    /// Builds the report block for this source and starts a new loss interval (RFC 3550 A.3: the fraction covers
    /// the packets since the previous call).
    /// - Parameters:
    ///   - lastSenderReport: the middle 32 bits of the NTP time of the last SR from this source, 0 if none.
    ///   - delaySinceLastSenderReport: 1/65536 s since that SR arrived, 0 if none.
    /// - Returns: the block.
    public mutating func makeReportBlock(lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0)
        -> ReportBlock
    {
        let expectedNow = expected
        let expectedInterval = expectedNow - expectedPrior
        let receivedInterval = received - receivedPrior
        let lostInterval = expectedInterval - receivedInterval
        expectedPrior = expectedNow
        receivedPrior = received
        // lost <= expected, so the quotient is at most 256 (all lost); the field has 8 bits (RFC 3550 6.4.1).
        let fraction = expectedInterval <= 0 || lostInterval <= 0
            ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        let lost = Int32(clamping: cumulativeLost)
        return ReportBlock(
            ssrc: ssrc, fractionLost: fraction, cumulativeLost: lost, extendedHighestSequenceNumber: tracker.reportValue,
            jitter: jitter, lastSenderReport: lastSenderReport, delaySinceLastSenderReport: delaySinceLastSenderReport)
    }
}
