import MediaTime

/// RFC 8489 section 6.2.1's schedule for a request over UDP: sent at 0, RTO, 3 RTO, 7 RTO... (the interval doubling),
/// `transmissions` times in all (Rc), the last one waited on for 16 RTO (Rm). Shared by `TURNClient` and
/// `STUNBindingClient`.
struct RetransmissionSchedule: Sendable, Equatable {
    /// The first retransmission timeout.
    let retransmissionTimeout: Duration
    /// Transmissions in all, clamped to 1...16.
    let transmissions: Int

    /// Creates a schedule.
    /// - Parameters:
    ///   - retransmissionTimeout: RTO.
    ///   - transmissions: Rc; clamped to 1...16.
    init(retransmissionTimeout: Duration, transmissions: Int) {
        self.retransmissionTimeout = retransmissionTimeout
        self.transmissions = min(max(transmissions, 1), 16)
    }

    /// How long a request waits in all before it times out: RTO x (2^(Rc-1) - 1 + 16) (39.5 s for 500 ms and 7).
    var timeout: Duration {
        retransmissionTimeout * ((1 << (transmissions - 1)) - 1 + 16)
    }

    /// When the request goes again after its `sent`-th transmission at `now`, or nil after the last.
    /// - Parameters:
    ///   - sent: Transmissions so far (1 after the first).
    ///   - now: When the last one went.
    func nextTransmission(after sent: Int, now: MonotonicTime) -> MonotonicTime? {
        guard sent < transmissions else { return nil }
        return now + retransmissionTimeout * (1 << min(max(sent - 1, 0), 15))
    }
}
