/// What a datagram on the one WebRTC socket carries, told by its first byte (RFC 7983 section 7, as updated by
/// RFC 9443) and, for RTP/RTCP, by the second byte (RFC 5761 section 4).
///
/// ```
///              +----------------+
///  [0..3]   -+--> forward to STUN
///  [16..19] -+--> forward to ZRTP
///  [20..63] -+--> forward to DTLS
///  [64..79] -+--> forward to TURN channel
///  [128..191] -+--> forward to RTP/RTCP
/// ```
/// Classifying reads two bytes and allocates nothing: it runs for every packet.
public enum DatagramKind: Hashable, Sendable {
    /// STUN (ICE connectivity and consent checks).
    case stun
    /// DTLS (the handshake and alerts).
    case dtls
    /// SRTP (or RTP).
    case rtp
    /// SRTCP (or RTCP): RTP version 2 with a packet type of 192...223, i.e. a second byte whose low 7 bits are
    /// 64...95 (RFC 5761 section 4).
    case rtcp
    /// ZRTP (never used by WebRTC).
    case zrtp
    /// A TURN ChannelData message.
    case turnChannel
    /// Anything else: drop it.
    case unknown

    /// First-byte ranges (RFC 7983 section 7, RFC 9443 section 3).
    static let stunRange: ClosedRange<UInt8> = 0...3
    static let zrtpRange: ClosedRange<UInt8> = 16...19
    static let dtlsRange: ClosedRange<UInt8> = 20...63
    static let turnChannelRange: ClosedRange<UInt8> = 64...79
    static let rtpRange: ClosedRange<UInt8> = 128...191
    /// RTCP packet types 192...223 with the marker bit position masked off (RFC 5761 section 4).
    static let rtcpPayloadTypeRange: ClosedRange<UInt8> = 64...95

    /// Classifies a datagram.
    /// - Parameters:
    ///   - datagram: The received bytes.
    public init(classifying datagram: some Collection<UInt8>) {
        var iterator = datagram.makeIterator()
        guard let first = iterator.next() else {
            self = .unknown
            return
        }
        self.init(firstByte: first, secondByte: iterator.next())
    }

    /// Classifies a datagram from its first two bytes.
    /// - Parameters:
    ///   - firstByte: The first byte.
    ///   - secondByte: The second byte, if the datagram has one (RTP and RTCP need it).
    public init(firstByte: UInt8, secondByte: UInt8?) {
        switch firstByte {
        case Self.stunRange: self = .stun
        case Self.zrtpRange: self = .zrtp
        case Self.dtlsRange: self = .dtls
        case Self.turnChannelRange: self = .turnChannel
        case Self.rtpRange:
            guard let secondByte else {
                self = .unknown
                return
            }
            self = Self.rtcpPayloadTypeRange.contains(secondByte & 0x7F) ? .rtcp : .rtp
        default: self = .unknown
        }
    }
}
