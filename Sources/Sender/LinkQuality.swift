import MediaTime
import RTP

/// The RTT/loss stage: what the peer's reception reports say about the path (RFC 3550 section 6.4.1). Pure: the
/// arrival time of each report comes in as an NTP timestamp.
public struct LinkQuality: Sendable, Equatable {
    /// The latest round-trip time, from LSR/DLSR.
    public private(set) var roundTripTime: Duration?
    /// The latest fraction lost (0...1).
    public private(set) var fractionLost: Double?
    /// The latest cumulative number of packets lost (may be negative with duplicates, RFC 3550 section 6.4.1).
    public private(set) var packetsLost: Int?
    /// Reports read.
    public private(set) var reportsReceived = 0

    /// Creates an empty record.
    public init() {}

    /// Reads one report block about our stream.
    /// - Parameters:
    ///   - block: the block.
    ///   - arrival: when the RTCP packet carrying it arrived (wall clock, NTP format).
    public mutating func update(with block: ReportBlock, arrival: NTPTimestamp) {
        reportsReceived += 1
        if let rtt = block.roundTripTime(arrival: arrival) { roundTripTime = rtt }
        fractionLost = Double(block.fractionLost) / 256
        packetsLost = Int(block.cumulativeLost)
    }
}
