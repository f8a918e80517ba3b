/// How long the jitter buffer waits for a missing packet before its frame is given up and a keyframe asked for
/// (issue 12, item 4: "asks for a keyframe only when retransmission cannot repair in time").
///
/// A NACKed packet comes back after about one round trip (plus the sender's pacing); the receiver repeats the NACK
/// once per RTT, so 2.5 RTT leaves room for a first answer that is lost and the repeat's answer (libwebrtc waits
/// for retransmissions on the same scale: its NACK module keeps asking for about 2.5 x RTT before the frame buffer's
/// own limit). Four times the interarrival jitter (RFC 3550 section 6.4.1) covers the spread of arrivals. The wait
/// never drops below `minimum` (a short RTT still gets several NACK rounds) and never exceeds `maximum` (the
/// latency budget); before an RTT is measured it is `minimum`. Pure.
public struct RepairWait: Sendable, Equatable {
    /// Round trips waited for a retransmission.
    public static let roundTrips = 2.5
    /// Interarrival jitters added.
    public static let jitterFactor = 4.0

    /// The least wait.
    public let minimum: Duration
    /// The most wait.
    public let maximum: Duration

    /// Creates a policy; a `maximum` below `minimum` is raised to it.
    /// - Parameters:
    ///   - minimum: the least wait (and the wait before an RTT is known).
    ///   - maximum: the latency budget.
    public init(minimum: Duration, maximum: Duration) {
        self.minimum = max(minimum, .zero)
        self.maximum = max(maximum, self.minimum)
    }

    /// The wait for the measured round-trip time and jitter.
    /// - Parameters:
    ///   - roundTripTime: the measured RTT (NACK -> retransmission), nil until measured.
    ///   - jitter: the interarrival jitter.
    /// - Returns: `minimum ... maximum`.
    public func wait(roundTripTime: Duration?, jitter: Duration = .zero) -> Duration {
        guard let roundTripTime else { return minimum }
        // Bounded before scaling, so that no value can overflow.
        let rtt = min(max(roundTripTime, .zero), .seconds(60))
        let spread = min(max(jitter, .zero), .seconds(60))
        let wanted = rtt * Self.roundTrips + spread * Self.jitterFactor
        return min(max(wanted, minimum), maximum)
    }
}
