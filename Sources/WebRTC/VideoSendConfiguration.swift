public import H264
import RTP

/// What we send and how we describe it in SDP: the H.264 format, SSRCs, stream identity and the feedback we handle.
public struct VideoSendConfiguration: Hashable, Sendable {
    /// Our `profile-level-id` (e.g. 42e01f Constrained Baseline 3.1 or 64001f High 3.1).
    public var profileLevelID: ProfileLevelID
    /// Our packetization mode, 0 or 1.
    public var packetizationMode: Int
    /// The media SSRC.
    public var ssrc: UInt32
    /// The RTX SSRC; `nil` offers and answers no RTX.
    public var rtxSSRC: UInt32?
    /// The FlexFEC SSRC; `nil` offers and answers no FlexFEC (`flexfec-03`: answered when offered, offered under
    /// `offerFECPayloadType` in our own offers).
    public var fecSSRC: UInt32? = nil
    /// The FlexFEC payload type used in our own offers (WHIP): 49, in libwebrtc's low range.
    public var offerFECPayloadType: UInt8 = 49
    /// The RTCP CNAME (RFC 7022: random per session).
    public var cname: String
    /// The `a=msid` stream id.
    public var streamID = "rtc-h264"
    /// The `a=msid` track id.
    public var trackID = "video0"
    /// The `a=rtcp-fb` values we handle, in the order written.
    public var feedback = ["nack", "nack pli", "ccm fir", "goog-remb"]
    /// Whether we handle transport-wide congestion control feedback (the header extension and `transport-cc`).
    public var transportWideCC = false
    /// The H.264 payload type used in our own offers (WHIP), from the dynamic range 96-127.
    public var offerPayloadType: UInt8 = 96
    /// The RTX payload type used in our own offers (WHIP).
    public var offerRTXPayloadType: UInt8 = 97
    /// The header extension id used for transport-cc in our own offers (1...14, one-byte form).
    public var offerTransportCCExtensionID = 3
    /// Whether we send the absolute capture time (`abs-capture-time`): offered, and answered when offered.
    public var absoluteCaptureTime = false
    /// The header extension id used for abs-capture-time in our own offers (1...14, one-byte form).
    public var offerAbsoluteCaptureTimeExtensionID = 4
    /// Whether we send a playout delay (`playout-delay`): offered, and answered when offered.
    public var playoutDelay = false
    /// The header extension id used for playout-delay in our own offers (1...14, one-byte form; Chrome offers 5).
    public var offerPlayoutDelayExtensionID = 5
    /// Whether we send the dependency descriptor (with temporal layers): offered, and answered when offered.
    /// Chromium takes it in an offer and answers it; it offers it itself only when a page asks
    /// (`RTCRtpTransceiver.setHeaderExtensionsToNegotiate`). Our descriptors fit the one-byte form (libwebrtc's L1T3
    /// structure takes exactly 16 bytes), so no `a=extmap-allow-mixed` is needed.
    public var dependencyDescriptor = false
    /// The header extension id used for the dependency descriptor in our own offers (1...14, one-byte form).
    public var offerDependencyDescriptorExtensionID = 6
    /// The simulcast streams of our own offer (WHIP), in the order written (`a=rid:<id> send`, `a=simulcast:send`);
    /// nil offers one stream. Janus numbers the `a=rid` lines highest quality first (its default `rid_order`), so a
    /// sender writes its encodings that way. Our offer then has no `a=ssrc` lines (the receiver learns each stream's
    /// SSRCs from the `rtp-stream-id` and `repaired-rtp-stream-id` extensions, offered with `sdes:mid` alongside).
    public var simulcast: SimulcastDescription? = nil
    /// The header extension ids of `sdes:mid`, `rtp-stream-id` and `repaired-rtp-stream-id` in our own offers (1...14).
    public var offerMIDExtensionID = 7
    /// See `offerMIDExtensionID`.
    public var offerRIDExtensionID = 8
    /// See `offerMIDExtensionID`.
    public var offerRepairedRIDExtensionID = 9
    /// Whether a Baseline format may carry our Constrained Baseline stream when no Constrained Baseline one is offered.
    public var acceptBaselineForConstrainedBaseline = true

    /// The URI of the transport-wide sequence number extension (draft-holmer-rmcat-transport-wide-cc-extensions-01).
    public static let transportCCURI = TransportSequenceNumber.uri
    /// The URI of the absolute capture time extension.
    public static let absoluteCaptureTimeURI = AbsoluteCaptureTime.uri
    /// The URI of the playout delay extension.
    public static let playoutDelayURI = PlayoutDelay.uri
    /// The URI of the dependency descriptor extension.
    public static let dependencyDescriptorURI = DependencyDescriptor.uri
    /// The URI of the mid extension (RFC 8843 section 15.2).
    public static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// The URI of the RTP stream id extension (RFC 8852 section 4.1).
    public static let ridURI = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    /// The URI of the repaired RTP stream id extension (RFC 8852 section 4.2).
    public static let repairedRIDURI = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"

    /// The header extensions of our offer, id and URI, in the order written: each configured one whose offer id is
    /// 1...14 and not taken by one before it (a configuration giving two the same id offers the first only).
    public var offeredExtensions: [(id: Int, uri: String)] {
        var result: [(id: Int, uri: String)] = []
        for (wanted, id, uri) in [(transportWideCC, offerTransportCCExtensionID, Self.transportCCURI),
                                  (absoluteCaptureTime, offerAbsoluteCaptureTimeExtensionID, Self.absoluteCaptureTimeURI),
                                  (playoutDelay, offerPlayoutDelayExtensionID, Self.playoutDelayURI),
                                  (dependencyDescriptor, offerDependencyDescriptorExtensionID,
                                   Self.dependencyDescriptorURI),
                                  (simulcast != nil, offerMIDExtensionID, Self.midURI),
                                  (simulcast != nil, offerRIDExtensionID, Self.ridURI),
                                  (simulcast != nil && rtxSSRC != nil, offerRepairedRIDExtensionID, Self.repairedRIDURI)]
        where wanted && (1...14).contains(id) && !result.contains(where: { $0.id == id }) {
            result.append((id, uri))
        }
        return result
    }

    /// Creates a configuration.
    /// - Parameters:
    ///   - profileLevelID: Our profile and level.
    ///   - packetizationMode: 0 or 1.
    ///   - ssrc: The media SSRC.
    ///   - rtxSSRC: The RTX SSRC, or `nil` for no RTX.
    ///   - cname: The RTCP CNAME.
    public init(profileLevelID: ProfileLevelID, packetizationMode: Int, ssrc: UInt32, rtxSSRC: UInt32? = nil,
                cname: String) {
        self.profileLevelID = profileLevelID
        self.packetizationMode = packetizationMode
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.cname = cname
    }
}
