extension NTPTimestamp {
    /// The timestamp `duration` later (or earlier, for a negative one), wrapping modulo 2^32 seconds as NTP eras do.
    /// Never traps.
    /// - Parameter duration: how far to move.
    /// - Returns: the moved timestamp.
    public func advanced(by duration: Duration) -> NTPTimestamp {
        let nanoseconds = duration.saturatingNanoseconds
        let seconds = nanoseconds / 1_000_000_000
        let remainder = nanoseconds % 1_000_000_000
        // 32.32 fixed point: whole seconds in the upper half, the remainder scaled by 2^32 / 10^9 in the lower half.
        let fraction = (remainder << 32) / 1_000_000_000
        return NTPTimestamp(rawValue: rawValue &+ UInt64(bitPattern: (seconds &<< 32) &+ fraction))
    }
}
