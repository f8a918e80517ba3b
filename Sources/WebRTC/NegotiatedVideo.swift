public import DTLS
import H264

/// The outcome of an offer/answer for our video stream: the format it travels in (what to send, or for a WHEP client
/// what arrives), and the peer's ICE and DTLS parameters.
public struct NegotiatedVideo: Hashable, Sendable {
    /// The m-section's `a=mid`.
    public var mid: String
    /// The H.264 format chosen: payload type, profile-level-id written in the answer, packetization mode.
    public var format: H264PayloadFormat
    /// The RTX payload type, when both sides use RTX.
    public var rtxPayloadType: UInt8? { format.rtxPayloadType }
    /// The FlexFEC payload type, when both sides use FlexFEC.
    public var fecPayloadType: UInt8? { format.fecPayloadType }
    /// The `a=rtcp-fb` values both sides use.
    public var feedback: [String] { format.feedback }
    /// The transport-wide sequence number extension id, when negotiated.
    public var transportCCExtensionID: Int?
    /// Whether the peer accepts reduced-size RTCP (RFC 5506).
    public var rtcpReducedSize: Bool
    /// The peer's ICE credentials.
    public var remoteCredentials: ICECredentials
    /// Whether the peer is ICE-lite.
    public var remoteICELite: Bool
    /// The peer's candidates (an mDNS `.local` address needs resolving before use).
    public var remoteCandidates: [ICECandidate]
    /// The fingerprint the peer's DTLS certificate must have.
    public var remoteFingerprint: DTLSFingerprint
    /// Our DTLS role.
    public var dtlsRole: DTLSRole
    /// The absolute capture time extension id, when negotiated (1...14).
    public var absoluteCaptureTimeExtensionID: Int? = nil
    /// The playout delay extension id, when negotiated (1...14).
    public var playoutDelayExtensionID: Int? = nil
    /// The dependency descriptor extension id, when negotiated (1...14).
    public var dependencyDescriptorExtensionID: Int? = nil
    /// The simulcast streams the answer receives, in our offer's order (those it left out, or marked paused, are
    /// not sent); nil when the answer takes no simulcast (then one stream is sent).
    public var simulcastRIDs: [String]? = nil
    /// The `sdes:mid` extension id, when negotiated with simulcast (1...14).
    public var midExtensionID: Int? = nil
    /// The `rtp-stream-id` extension id, when negotiated with simulcast (1...14).
    public var ridExtensionID: Int? = nil
    /// The `repaired-rtp-stream-id` extension id, when negotiated with simulcast and RTX (1...14).
    public var repairedRIDExtensionID: Int? = nil

    /// A negotiated header extension id as the RTP writers and readers take it: 1...14 (the one-byte form), else nil.
    /// - Parameter id: the id.
    package static func oneByteID(_ id: Int?) -> UInt8? { id.flatMap { (1...14).contains($0) ? UInt8($0) : nil } }
}
