#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RTP

/// The wall clock, for the NTP timestamps of RTCP Sender Reports and for RTT from receiver reports.
enum WallClock {
    /// Now, as an NTP timestamp (RFC 3550 section 4).
    static func ntpNow() -> NTPTimestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return NTPTimestamp(unixSeconds: Int64(ts.tv_sec), nanoseconds: Int64(ts.tv_nsec))
    }
}
