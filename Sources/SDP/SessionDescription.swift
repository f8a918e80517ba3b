#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The SDP (RFC 8866) that describes one H.264 RTP stream as its receiver sees it: what `rtc-h264 send --sdp` writes
/// and `rtc-h264 receive --sdp` reads, and what ffmpeg, GStreamer and Janus are given to play the stream.
///
/// ```
/// v=0
/// o=- 1 1 IN IP4 127.0.0.1
/// s=rtc-h264
/// c=IN IP4 127.0.0.1
/// t=0 0
/// m=video 5004 RTP/SAVP 96
/// a=rtpmap:96 H264/90000
/// a=fmtp:96 packetization-mode=1;profile-level-id=42e01f;sprop-parameter-sets=Z0LgH...,aM4...
/// a=rtcp-mux
/// a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:...
/// a=ssrc:305419896 cname:rtc-h264
/// a=recvonly
/// ```
/// Pure: no I/O. The key inside `crypto` is never part of `description`-style logging; callers write it only to files.
public struct SessionDescription: Sendable, Equatable {
    /// An `a=crypto` line (RFC 4568 section 9.1).
    public struct Crypto: Sendable, Equatable {
        /// The tag (1 when only one is offered).
        public var tag: Int
        /// The suite name, e.g. `AES_CM_128_HMAC_SHA1_80`.
        public var suite: String
        /// The key parameters, e.g. `inline:BASE64` (secret: write only to files).
        public var keyParameters: String

        /// Creates a crypto attribute.
        /// - Parameters:
        ///   - tag: the attribute tag.
        ///   - suite: the SRTP suite name.
        ///   - keyParameters: `inline:` key parameters.
        public init(tag: Int = 1, suite: String, keyParameters: String) {
            self.tag = tag
            self.suite = suite
            self.keyParameters = keyParameters
        }
    }

    /// A retransmission stream (RFC 4588 section 8): `a=rtpmap:<pt> rtx/90000`, `a=fmtp:<pt> apt=<media pt>`.
    public struct RTX: Sendable, Equatable {
        /// The RTX payload type.
        public var payloadType: UInt8
        /// The RTX SSRC (`a=ssrc-group:FID <media> <rtx>`), if known.
        public var ssrc: UInt32?
        /// How long the sender keeps packets for retransmission, in milliseconds (`rtx-time`).
        public var rtxTime: Int?

        /// Creates RTX settings.
        /// - Parameters: see the properties of the same names.
        public init(payloadType: UInt8, ssrc: UInt32? = nil, rtxTime: Int? = nil) {
            self.payloadType = payloadType
            self.ssrc = ssrc
            self.rtxTime = rtxTime
        }
    }

    /// A FlexFEC stream (`flexfec-03`, as libwebrtc writes it): `a=rtpmap:<pt> flexfec-03/90000`,
    /// `a=fmtp:<pt> repair-window=10000000`, `a=ssrc-group:FEC-FR <media> <fec>`.
    public struct FEC: Sendable, Equatable {
        /// The FEC payload type.
        public var payloadType: UInt8
        /// The FEC SSRC, if known.
        public var ssrc: UInt32?

        /// The encoding name in `a=rtpmap`.
        public static let encodingName = "flexfec-03"
        /// The `repair-window` libwebrtc writes (and neither side reads), in microseconds.
        public static let repairWindow = 10_000_000

        /// Creates FEC settings.
        /// - Parameters: see the properties of the same names.
        public init(payloadType: UInt8, ssrc: UInt32? = nil) {
            self.payloadType = payloadType
            self.ssrc = ssrc
        }
    }

    /// The address of the receiver (the `c=` line); IPv4 or IPv6 literal.
    public var connectionAddress: String
    /// The receiver's RTP port (the `m=` line).
    public var port: Int
    /// Whether RTCP shares the RTP port (RFC 5761); otherwise RTCP is on `port + 1`.
    public var rtcpMux: Bool
    /// The RTP payload type (96...127 for dynamic types).
    public var payloadType: UInt8
    /// The RFC 6184 `profile-level-id`, six hex digits.
    public var profileLevelID: String
    /// The RFC 6184 packetization mode (0 or 1).
    public var packetizationMode: Int
    /// SPS and PPS NAL units for `sprop-parameter-sets`.
    public var parameterSets: [[UInt8]]
    /// The SRTP crypto attribute, or nil for plain RTP (`RTP/AVP`).
    public var crypto: Crypto?
    /// The sender's SSRC, if known.
    public var ssrc: UInt32?
    /// The sender's RTCP CNAME.
    public var cname: String?
    /// The nominal frame rate (`a=framerate`), if known.
    public var frameRate: Double?
    /// The session name (`s=`).
    public var sessionName: String
    /// The RTCP feedback the stream uses, as `a=rtcp-fb:<pt>` values (RFC 4585 section 4.2): `nack`, `nack pli`,
    /// `ccm fir`, `ccm tmmbr`, `goog-remb`, `transport-cc`. Not empty makes the profile AVPF (`RTP/AVPF`, `RTP/SAVPF`).
    public var feedback: [String] = []
    /// The retransmission stream, if any.
    public var rtx: RTX?
    /// The FlexFEC stream, if any.
    public var fec: FEC?
    /// The header extension ID of the transport-wide sequence number (`a=extmap:<id> <uri>`, RFC 8285 section 5;
    /// draft-holmer-rmcat-transport-wide-cc-extensions-01), nil when the stream does not carry it.
    public var transportWideCCExtensionID: UInt8?
    /// The header extension ID of the absolute capture time (`a=extmap:<id> <uri>`, `abs-capture-time`), nil when
    /// the stream does not carry it.
    public var absoluteCaptureTimeExtensionID: UInt8?
    /// The header extension ID of the playout delay (`a=extmap:<id> <uri>`, `playout-delay`), nil when the stream
    /// does not carry it.
    public var playoutDelayExtensionID: UInt8?
    /// The header extension ID of the dependency descriptor (`a=extmap:<id> <uri>`, the AV1 RTP specification's
    /// Appendix A), nil when the stream does not carry it.
    public var dependencyDescriptorExtensionID: UInt8?

    /// The URI of the absolute capture time extension in `a=extmap`.
    public static let absoluteCaptureTimeURI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time"
    /// The URI of the playout delay extension in `a=extmap`.
    public static let playoutDelayURI = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"
    /// The URI of the dependency descriptor extension in `a=extmap` (the AV1 RTP specification, section A.9).
    public static let dependencyDescriptorURI =
        "https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension"

    /// The URI of the transport-wide sequence number extension in `a=extmap`.
    public static let transportWideCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

    /// Creates a description.
    /// - Parameters: see the properties of the same names.
    public init(
        connectionAddress: String, port: Int, rtcpMux: Bool = true, payloadType: UInt8 = 96,
        profileLevelID: String, packetizationMode: Int = 1, parameterSets: [[UInt8]] = [],
        crypto: Crypto? = nil, ssrc: UInt32? = nil, cname: String? = nil, frameRate: Double? = nil,
        sessionName: String = "rtc-h264"
    ) {
        self.connectionAddress = connectionAddress
        self.port = port
        self.rtcpMux = rtcpMux
        self.payloadType = payloadType
        self.profileLevelID = profileLevelID
        self.packetizationMode = packetizationMode
        self.parameterSets = parameterSets
        self.crypto = crypto
        self.ssrc = ssrc
        self.cname = cname
        self.frameRate = frameRate
        self.sessionName = sessionName
    }

    /// The CNAME written with an SSRC when none is set.
    public static let defaultCNAME = "rtc-h264"

    /// The SDP text, lines ended by CRLF as RFC 8866 section 5 requires.
    public func serialize() -> String {
        let ipVersion = connectionAddress.contains(":") ? "IP6" : "IP4"
        let proto = (crypto == nil ? "RTP/AVP" : "RTP/SAVP") + (feedback.isEmpty ? "" : "F")
        let formats = [payloadType] + (rtx.map { [$0.payloadType] } ?? []) + (fec.map { [$0.payloadType] } ?? [])
        var lines: [String] = [
            "v=0",
            "o=- \(ssrc ?? 0) 1 IN \(ipVersion) \(connectionAddress)",
            "s=\(sessionName)",
            "c=IN \(ipVersion) \(connectionAddress)",
            "t=0 0",
            "m=video \(port) \(proto) \(formats.map(String.init).joined(separator: " "))",
            "a=rtpmap:\(payloadType) H264/90000",
        ]
        var fmtp = "a=fmtp:\(payloadType) packetization-mode=\(packetizationMode);profile-level-id=\(profileLevelID)"
        if !parameterSets.isEmpty {
            fmtp += ";sprop-parameter-sets=" + parameterSets.map { Data($0).base64EncodedString() }.joined(separator: ",")
        }
        lines.append(fmtp)
        for value in feedback { lines.append("a=rtcp-fb:\(payloadType) \(value)") }
        if let id = transportWideCCExtensionID { lines.append("a=extmap:\(id) \(Self.transportWideCCURI)") }
        if let id = absoluteCaptureTimeExtensionID { lines.append("a=extmap:\(id) \(Self.absoluteCaptureTimeURI)") }
        if let id = playoutDelayExtensionID { lines.append("a=extmap:\(id) \(Self.playoutDelayURI)") }
        if let id = dependencyDescriptorExtensionID { lines.append("a=extmap:\(id) \(Self.dependencyDescriptorURI)") }
        if let rtx {
            lines.append("a=rtpmap:\(rtx.payloadType) rtx/90000")
            lines.append("a=fmtp:\(rtx.payloadType) apt=\(payloadType)" + (rtx.rtxTime.map { ";rtx-time=\($0)" } ?? ""))
        }
        if let fec {
            lines.append("a=rtpmap:\(fec.payloadType) \(FEC.encodingName)/90000")
            lines.append("a=fmtp:\(fec.payloadType) repair-window=\(FEC.repairWindow)")
        }
        if rtcpMux {
            lines.append("a=rtcp-mux")
        } else {
            lines.append("a=rtcp:\(port + 1)")
        }
        if let frameRate {
            lines.append("a=framerate:\(Self.format(frameRate))")
        }
        if let crypto {
            lines.append("a=crypto:\(crypto.tag) \(crypto.suite) \(crypto.keyParameters)")
        }
        if let ssrc {
            lines.append("a=ssrc:\(ssrc) cname:\(cname ?? Self.defaultCNAME)")
            if let fecSSRC = fec?.ssrc {
                lines.append("a=ssrc-group:FEC-FR \(ssrc) \(fecSSRC)")
                lines.append("a=ssrc:\(fecSSRC) cname:\(cname ?? Self.defaultCNAME)")
            }
        }
        lines.append("a=recvonly")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A whole number without a fraction ("30"), anything else as Swift prints a `Double` (which reads back
    /// exactly). No conversion can trap: only finite values below 2^53 go through `Int64`.
    static func format(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), value.magnitude < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return String(value)
    }
}
