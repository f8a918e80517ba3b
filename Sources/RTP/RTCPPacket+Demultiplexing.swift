extension RTCPPacket {
    /// The range of the second byte that marks RTCP when RTP and RTCP share a port (RFC 5761 section 4: RTCP packet
    /// types 192...223 are kept clear of RTP payload types, whose marker bit + PT byte would otherwise collide).
    public static let multiplexedPacketTypes: ClosedRange<UInt8> = 192...223

    /// Whether a datagram received on an rtcp-mux port is RTCP rather than RTP (RFC 5761 section 4).
    /// - Parameter datagram: the received bytes; works before SRTP/SRTCP unprotect, as both headers are in the clear.
    /// - Returns: `true` for RTCP; `false` for RTP or anything shorter than 2 bytes.
    public static func isMultiplexedRTCP(_ datagram: ArraySlice<UInt8>) -> Bool {
        guard datagram.count >= 2 else { return false }
        return multiplexedPacketTypes.contains(datagram[datagram.startIndex + 1])
    }
}
