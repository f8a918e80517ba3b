import NIOCore

/// Where one transport listens and sends, and how it protects and filters.
package struct TransportConfiguration: Sendable {
    /// The local address to bind.
    package var localHost: String
    /// The local RTP port (0 picks one); RTCP on the next port when not muxed.
    package var localPort: Int
    /// The peer's RTP address, or nil to learn it from the first accepted RTP packet (symmetric RTP, a receiver).
    package var peer: SocketAddress?
    /// The peer's RTCP port when not muxed (nil: the RTP port + 1, RFC 3550 section 11).
    package var peerRTCPPort: Int?
    /// RTCP on the RTP port (RFC 5761).
    package var rtcpMux: Bool
    /// SRTP keys, or nil for plain RTP/RTCP.
    package var security: TransportSecurity?
    /// Accept RTCP that fails SRTCP authentication when it parses as plain RTCP from the peer's address (Janus sends
    /// its feedback in the clear even when the media is SRTP). Off by default; counted in `plainRTCPAccepted`.
    package var acceptPlainRTCP: Bool = false
    /// SO_RCVBUF in bytes.
    package var receiveBufferSize: Int = 1 << 20
    /// Whether RTP and RTCP wait for `secure(with:)` (WebRTC: the keys come from DTLS once ICE and the handshake are
    /// done). Until then media and reports are dropped and counted, never sent in the clear.
    package var holdMediaUntilSecured = false
    /// Whether to learn each datagram's local destination address (IP_PKTINFO; `UDPTransport.datagramDestination`):
    /// a full ICE agent on a wildcard socket with one host candidate per interface needs it.
    package var receivePacketInfo = false
    /// Whether runs of equal-sized RTP packets of one flush leave as one UDP GSO write (`SegmentationOffload`) where
    /// the platform has it (Linux). On by default; off sends every packet as its own datagram write.
    package var segmentationOffload = true

    /// Creates a configuration.
    /// - Parameters:
    ///   - localHost: the local address.
    ///   - localPort: the local RTP port.
    ///   - peer: the peer's RTP address, or nil to learn it.
    ///   - rtcpMux: RTCP on the RTP port.
    ///   - security: SRTP keys, or nil.
    package init(localHost: String, localPort: Int, peer: SocketAddress?, rtcpMux: Bool, security: TransportSecurity?) {
        self.localHost = localHost
        self.localPort = localPort
        self.peer = peer
        self.rtcpMux = rtcpMux
        self.security = security
    }
}
