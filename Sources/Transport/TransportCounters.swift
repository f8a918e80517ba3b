/// What one transport has carried and refused. Every datagram dropped is counted under its reason.
public struct TransportCounters: Sendable, Equatable, Codable {
    /// RTP packets handed to the socket.
    public var rtpPacketsSent = 0
    /// RTP bytes handed to the socket, SRTP tags included.
    public var rtpBytesSent = 0
    /// RTCP compound packets handed to the socket.
    public var rtcpPacketsSent = 0
    /// RTP packets received from the peer and accepted (authenticated when SRTP is on).
    public var rtpPacketsReceived = 0
    /// RTCP compound packets received from the peer and parsed.
    public var rtcpPacketsReceived = 0
    /// RTCP compound packets accepted without SRTCP protection (only with `acceptPlainRTCP`).
    public var plainRTCPAccepted = 0
    /// SRTP packets that failed authentication or the replay check.
    public var srtpUnprotectFailures = 0
    /// SRTCP packets that failed authentication or the replay check.
    public var srtcpUnprotectFailures = 0
    /// Datagrams that are neither RTP nor RTCP, or RTCP that does not parse.
    public var malformedPackets = 0
    /// Datagrams from an address other than the peer's.
    public var packetsFromStrangers = 0
    /// Socket errors (ICMP port unreachable surfaces as a refused send); the transport goes on.
    public var socketErrors = 0
    /// RTP packets and RTCP compounds dropped because the transport was not yet secured (WebRTC before DTLS).
    public var heldBeforeSecured = 0
    /// RTP packets and RTCP compounds dropped because the TCP or TLS connection to a TURN relay had no room for them
    /// (its send buffer above `MediaStreamSink`'s mark: a real-time stream drops rather than queue).
    public var relayStreamDrops = 0
    /// Times a socket was bound again after NIO closed it on a send error (`EPERM` from a firewall, `ENETUNREACH`).
    public var socketRestarts = 0
    /// Writes that carried several RTP packets of one flush to the socket at once (UDP GSO; each packet is still its
    /// own datagram on the wire).
    public var segmentedWrites = 0
    /// Segmented writes that failed (a path whose MTU is under the packets, IPsec): the offload is off for the
    /// transport after the first, and the packets of each such write are lost as on a lossy link.
    public var segmentationOffloadFailures = 0

    /// Creates zeroed counters.
    public init() {}
}
