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

/// RFC 5761 section 4: on a multiplexed port, a packet whose second byte (marker bit + payload type) is in 192...223
/// is RTCP (RTCP packet types 200-207 with the top bit set); anything else is RTP.
enum RTCPMultiplexing {
    /// The RTCP range of the second byte.
    static let rtcpSecondByteRange: ClosedRange<UInt8> = 192...223

    /// Whether a datagram is RTCP.
    /// - Parameter secondByte: the datagram's second byte.
    static func isRTCP(secondByte: UInt8) -> Bool { rtcpSecondByteRange.contains(secondByte) }
}
