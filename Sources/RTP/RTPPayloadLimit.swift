/// Computes the largest RTP payload that keeps a packet within an MTU once IP, UDP, the RTP header and the SRTP
/// authentication tag are added.
public struct RTPPayloadLimit: Hashable, Sendable {
    /// The IP version of the path, which sets the IP header size.
    public enum IPVersion: Hashable, Sendable {
        /// IPv4: 20-byte header without options (RFC 791 section 3.1).
        case v4
        /// IPv6: 40-byte fixed header (RFC 8200 section 3).
        case v6

        /// The IP header size in bytes.
        public var headerSize: Int { self == .v4 ? 20 : 40 }
    }

    /// libwebrtc's video MTU (`kVideoMtu = 1200`), small enough for tunnels and TURN on the open Internet.
    public static let defaultMTU = 1200
    /// The UDP header size (RFC 768).
    public static let udpHeaderSize = 8
    /// The SRTP authentication tag of AES_CM_128_HMAC_SHA1_80, the default crypto suite (RFC 4568 section 6.2.1,
    /// RFC 3711 section 5.2: an 80-bit tag).
    public static let defaultSRTPTrailerSize = 10

    /// The IP-level MTU in bytes.
    public var mtu: Int
    /// The IP version.
    public var ipVersion: IPVersion
    /// Bytes of the RTP header, CSRCs and extension block.
    public var rtpHeaderSize: Int
    /// Bytes SRTP appends (authentication tag, plus MKI if any).
    public var srtpTrailerSize: Int

    /// Creates a limit.
    /// - Parameters:
    ///   - mtu: the IP-level MTU (default 1200).
    ///   - ipVersion: the IP version (default IPv4).
    ///   - rtpHeaderSize: bytes of the RTP header as sent (default: the 12-byte fixed header).
    ///   - srtpTrailerSize: bytes SRTP adds (default 10; 0 for plain RTP).
    public init(
        mtu: Int = defaultMTU, ipVersion: IPVersion = .v4, rtpHeaderSize: Int = RTPHeader.fixedSize,
        srtpTrailerSize: Int = defaultSRTPTrailerSize
    ) {
        self.mtu = mtu
        self.ipVersion = ipVersion
        self.rtpHeaderSize = rtpHeaderSize
        self.srtpTrailerSize = srtpTrailerSize
    }

    /// The largest MTU accepted: an IP datagram's total length is a 16-bit field (RFC 791 section 3.1; IPv6's payload
    /// length likewise, RFC 8200 section 3, jumbograms aside). Above it a payload could not be sent in one datagram,
    /// and a STAP-A's 16-bit NAL unit size field (RFC 6184 section 5.7.1) could not describe what it aggregates.
    public static let maxMTU = 65_535

    /// The largest RTP payload: MTU - IP - UDP - RTP header - SRTP trailer. Never traps: out-of-range fields are
    /// clamped for the arithmetic (``validate()`` reports them).
    public var maxPayloadSize: Int {
        let clamp = { (value: Int) in min(max(value, 0), Self.maxMTU * 2) }
        return clamp(mtu) - ipVersion.headerSize - Self.udpHeaderSize - clamp(rtpHeaderSize) - clamp(srtpTrailerSize)
    }

    /// Checks that packets can be built within this limit: the MTU is at most ``maxMTU``, the header and trailer
    /// sizes are sane, and at least ``H264Payloader/minimumPayloadLimit`` payload bytes remain (a FU-A needs its
    /// indicator, its header and one byte).
    /// - Throws: ``H264PayloadError/mtuTooLarge(_:)``, ``H264PayloadError/invalidOverhead(rtpHeaderSize:srtpTrailerSize:)``
    ///   or ``H264PayloadError/payloadLimitTooSmall(_:)``.
    public func validate() throws(H264PayloadError) {
        guard mtu <= Self.maxMTU else { throw .mtuTooLarge(mtu) }
        guard rtpHeaderSize >= RTPHeader.fixedSize, rtpHeaderSize <= Self.maxMTU,
              srtpTrailerSize >= 0, srtpTrailerSize <= Self.maxMTU
        else { throw .invalidOverhead(rtpHeaderSize: rtpHeaderSize, srtpTrailerSize: srtpTrailerSize) }
        guard maxPayloadSize >= H264Payloader.minimumPayloadLimit else { throw .payloadLimitTooSmall(maxPayloadSize) }
    }

    /// The largest RTP packet (header + payload) before SRTP.
    public var maxPacketSize: Int { rtpHeaderSize + maxPayloadSize }
}
