import MediaTime

extension ReportBlock {
    /// The round-trip time this block implies (RFC 3550 section 6.4.1: RTT = A - LSR - DLSR), in units of
    /// 1/65536 s, for a report that arrived at NTP time `arrival`. The time is passed in; nothing reads a clock.
    /// - Parameter arrival: when the report containing this block arrived, on the same NTP clock that stamped
    ///   the sender report it refers to.
    /// - Returns: the RTT in 1/65536 s units, `nil` when the block refers to no SR (LSR = 0); a negative result
    ///   (clock steps, bogus DLSR) is clamped to 0.
    public func roundTripTimeUnits(arrival: NTPTimestamp) -> UInt32? {
        guard lastSenderReport != 0 else { return nil }
        let rtt = Int32(bitPattern: arrival.middle32 &- lastSenderReport &- delaySinceLastSenderReport)
        return rtt < 0 ? 0 : UInt32(rtt)
    }

    /// The round-trip time as a `Duration` (see `roundTripTimeUnits(arrival:)`).
    /// - Parameter arrival: when the report arrived (NTP time).
    /// - Returns: the RTT, or `nil` when LSR is 0.
    public func roundTripTime(arrival: NTPTimestamp) -> Duration? {
        guard let units = roundTripTimeUnits(arrival: arrival) else { return nil }
        return .nanoseconds(Int64(units) * 1_000_000_000 / 65_536)
    }
}

extension NTPTimestamp {
    /// The DLSR field for a report sent at `self` about an SR that arrived at `arrival`: the delay in 1/65536 s
    /// (RFC 3550 section 6.4.1), computed from the middle 32 bits so it wraps like the field.
    /// - Parameter arrival: when the SR arrived.
    /// - Returns: the delay in 1/65536 s units.
    public func delay(since arrival: NTPTimestamp) -> UInt32 {
        middle32 &- arrival.middle32
    }
}
