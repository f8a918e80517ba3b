import Codec
import SRTP

/// Everything the sender needs to know before it starts. Validated by `H264Sender` before any socket is opened.
public struct SenderConfiguration: Sendable {
    /// How frames are paced.
    public enum Pacing: Sendable, Equatable {
        /// One frame per frame interval from a monotonic clock mapped to the 90 kHz RTP clock (live sending).
        case realTime
        /// Encode and send as fast as possible; timestamps advance by 90000/fps per frame (benchmarks, tests).
        case asFastAsPossible
    }

    /// SRTP settings; nil sends plain RTP.
    public struct Security: Sendable {
        /// The suite (default AES_CM_128_HMAC_SHA1_80).
        public var suite: SRTPSuite
        /// The master key and salt. Never logged.
        public var key: SRTPMasterKey

        /// Creates SRTP settings.
        /// - Parameters:
        ///   - suite: the crypto suite.
        ///   - key: its master key and salt.
        public init(suite: SRTPSuite = .default, key: SRTPMasterKey) {
            self.suite = suite
            self.key = key
        }
    }

    /// The peer's address (IPv4 or IPv6 literal, or a host name).
    public var peerHost: String
    /// The peer's RTP port (RTCP too when muxed, else `peerPort + 1`).
    public var peerPort: Int
    /// The local address to bind.
    public var localHost: String = "0.0.0.0"
    /// The local RTP port (0 picks one); RTCP on `localPort + 1` when not muxed.
    public var localPort: Int = 0
    /// RTCP multiplexed on the RTP port (RFC 5761), as WebRTC does.
    public var rtcpMux: Bool = true
    /// The encoder's settings (size, frame rate, profile, bitrate, ceiling, keyframe interval, threads).
    public var encoder: EncoderConfiguration
    /// The lowest bitrate the peer's limits may push the target to, in bit/s.
    public var minimumBitrate: Int = 50_000
    /// The IP-level MTU the packets must fit.
    public var mtu: Int = 1200
    /// RFC 6184 packetization mode (0: single NAL units only; 1: STAP-A and FU-A too).
    public var packetizationMode: Int = 1
    /// The RTP payload type.
    public var payloadType: UInt8 = 96
    /// The SSRC; random when nil.
    public var ssrc: UInt32?
    /// The first sequence number; random below 2^15 when nil.
    public var firstSequenceNumber: UInt16?
    /// SRTP, or nil for plain RTP.
    public var security: Security?
    /// The RTCP CNAME (RFC 3550 section 6.5.1).
    public var cname: String = "rtc-h264"
    /// The shortest time between keyframes produced on request (PLI, FIR, control), in nanoseconds.
    public var keyframeThrottle: Int64 = KeyframeRequestThrottle.defaultMinimumInterval
    /// Frame pacing.
    public var pacing: Pacing = .realTime
    /// Stop after this many frames taken from the source (nil: until the source ends or `stop()`).
    public var frameLimit: Int?
    /// Stop after this many seconds of media time (nil: no limit).
    public var duration: Double?
    /// How often stats are taken and Sender Reports sent, in nanoseconds (RFC 3550 suggests about 5 s for a
    /// two-party session; WebRTC sends about once a second for video).
    public var reportInterval: Int64 = 1_000_000_000

    /// Creates a configuration with defaults for everything but the peer and the encoder.
    /// - Parameters:
    ///   - peerHost: the peer's address.
    ///   - peerPort: the peer's RTP port.
    ///   - encoder: the encoder's settings.
    public init(peerHost: String, peerPort: Int, encoder: EncoderConfiguration) {
        self.peerHost = peerHost
        self.peerPort = peerPort
        self.encoder = encoder
    }
}
