public import H264

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
    /// Whether a Baseline format may carry our Constrained Baseline stream when no Constrained Baseline one is offered.
    public var acceptBaselineForConstrainedBaseline = true

    /// The URI of the transport-wide sequence number extension (draft-holmer-rmcat-transport-wide-cc-extensions-01).
    public static let transportCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

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
