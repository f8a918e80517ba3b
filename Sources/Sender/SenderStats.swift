/// What the sender has done, named after WebRTC's `RTCOutboundRtpStreamStats` (W3C webrtc-stats) where a name fits,
/// plus the counters of everything dropped or refused. Returned by `GET /stats`, written by `--stats FILE` as JSON
/// lines, and summarised in the progress line. Contains no key material.
public struct SenderStats: Codable, Sendable, Equatable {
    /// Seconds since the sender started.
    public var timestamp: Double = 0
    /// `ssrc` of the stream.
    public var ssrc: UInt32 = 0
    /// `encoderImplementation`.
    public var encoderImplementation: String = "OpenH264"
    /// Each simulcast encoding's figures, lowest first; nil for one stream (the figures above add them up).
    public var simulcastLayers: [SimulcastLayerStats]?
    /// `scalabilityMode` (W3C webrtc-svc): `L1T1`, `L1T2` or `L1T3`, from the encoder's temporal layers.
    public var scalabilityMode: String = "L1T1"
    /// `frameWidth`.
    public var frameWidth: Int = 0
    /// `frameHeight`.
    public var frameHeight: Int = 0
    /// Resolution switches since the start (the initial size not counted).
    public var resolutionChanges: Int = 0
    /// `qualityLimitationReason`: "bandwidth" while the picture is smaller than the input, else "none".
    public var qualityLimitationReason: String = "none"
    /// `framesPerSecond`: frames encoded in the last second.
    public var framesPerSecond: Double = 0
    /// `framesEncoded`.
    public var framesEncoded: Int = 0
    /// `keyFramesEncoded`.
    public var keyFramesEncoded: Int = 0
    /// Frames the encoder's rate control dropped (reported, never a silent gap).
    public var framesSkipped: Int = 0
    /// Frames replaced by a newer one while the encoder was busy (push API: the newest frame wins).
    public var framesDropped: Int = 0
    /// Frames that failed to encode, packetize or protect, dropped and answered with an IDR.
    public var frameFailures: Int = 0
    /// `framesSent`.
    public var framesSent: Int = 0
    /// `packetsSent`.
    public var packetsSent: Int = 0
    /// `bytesSent`: RTP payload bytes, headers and SRTP tags excluded.
    public var bytesSent: Int = 0
    /// `headerBytesSent`: RTP header bytes.
    public var headerBytesSent: Int = 0
    /// `targetBitrate` in bit/s: the sender's target now (the operator's bitrate capped by the peer's limits and the
    /// congestion estimate), for media and retransmissions together.
    public var targetBitrate: Int = 0
    /// What the encoder is asked for now, in bit/s: `targetBitrate` less the retransmissions' share of the last
    /// second (at most half of it; libwebrtc's protection overhead). Equal to `targetBitrate` when nothing was resent.
    public var mediaTargetBitrate: Int = 0
    /// The encoder's hard ceiling in bit/s (1.5x the target).
    public var maxBitrate: Int = 0
    /// The operator's bitrate in bit/s (command line or control endpoint).
    public var operatorBitrate: Int = 0
    /// The bitrate actually produced over the last second, in bit/s (payload bytes).
    public var actualBitrate: Int = 0
    /// `totalEncodeTime` in seconds.
    public var totalEncodeTime: Double = 0
    /// `qpSum`.
    public var qpSum: Int = 0
    /// `pliCount`.
    public var pliCount: Int = 0
    /// `firCount` (repeated FIR sequence numbers are not counted).
    public var firCount: Int = 0
    /// `nackCount`: NACK messages received.
    public var nackCount: Int = 0
    /// `retransmittedPacketsSent`: packets resent in answer to NACKs (on the RTX stream when negotiated).
    public var retransmittedPacketsSent: Int = 0
    /// `retransmittedBytesSent`: bytes of the packets resent.
    public var retransmittedBytesSent: Int = 0
    /// Requested packets not resent: no longer in the history, asked again within an RTT, or over the budget.
    public var nackRequestsIgnored: Int = 0
    /// Of `nackRequestsIgnored`: no longer in the history.
    public var nackIgnoredNotInHistory: Int = 0
    /// Of `nackRequestsIgnored`: already resent less than an RTT ago.
    public var nackIgnoredTooSoon: Int = 0
    /// Of `nackRequestsIgnored`: over the retransmission budget (the target rate over 500 ms).
    public var nackIgnoredOverBudget: Int = 0
    /// Of `retransmittedPacketsSent`: second copies of packets asked for again after their retransmission was lost.
    public var retransmittedExtraCopies: Int = 0
    /// Seconds the oldest packet has waited in the pacer's queue.
    public var pacerQueueDelay: Double = 0
    /// Packets the pacer dropped because its queue was full.
    public var pacerPacketsDropped: Int = 0
    /// The congestion controller's estimate of the path's capacity, bit/s: the minimum of the loss-based and (with
    /// transport-wide feedback) the delay-based estimates, REMB, TMMBR and the operator's bitrate.
    public var congestionEstimate: Int?
    /// The loss-based estimate (receiver reports), bit/s.
    public var lossBasedEstimate: Int?
    /// The delay-based estimate (transport-wide feedback), bit/s; nil without the extension.
    public var delayBasedEstimate: Int?
    /// Fast cuts of the loss model (transport-wide feedback): observations that lost heavily and brought the
    /// estimate at once to what they delivered (`LossBasedBandwidthEstimatorV2.fastCutLoss`).
    public var lossFastCuts: Int = 0
    /// What limits `congestionEstimate`: `lossBased`, `delayBased`, `remb`, `tmmbr` or `configured`.
    public var estimateLimitedBy: String?
    /// Bandwidth probes sent (clusters of padding, `ProbeController`).
    public var probes: Int = 0
    /// Probes whose measured rate raised the estimate.
    public var probesRaisedEstimate: Int = 0
    /// Probe padding packets sent (recent media packets again).
    public var probePacketsSent: Int = 0
    /// FlexFEC packets sent (`getStats()` `fecPacketsSent`).
    public var fecPacketsSent: Int = 0
    /// Bytes of the FlexFEC packets sent, whole RTP packets (`fecBytesSent`).
    public var fecBytesSent: Int = 0
    /// FEC packets per media packet of delta frames now (0 with no FEC or no loss; `FECProtection`).
    public var fecProtection: Double = 0
    /// Transport-wide feedback messages received (RTPFB FMT 15).
    public var transportFeedbackReceived: Int = 0
    /// True once the session gave the delay-based estimate up because the peer sent no transport-wide feedback
    /// within `SenderConfiguration.transportFeedbackWait` of the first packet carrying the extension.
    public var transportFeedbackAbsent: Bool = false
    /// Whether the sender is application-limited now (sending well under the estimate; `ApplicationLimitedRegionDetector`).
    public var applicationLimited: Bool = false
    /// Times the sender entered the application-limited region.
    public var applicationLimitedRegions: Int = 0
    /// Times the delay-based detector signalled overuse.
    public var overuseEvents: Int = 0
    /// Seconds from the arrival of the latest served keyframe request (PLI, FIR, control) to the first packet of the
    /// IDR that answered it being handed to the socket: the keyframe latency.
    public var keyframeRequestLatency: Double?
    /// Keyframe requests from the application (`requestKeyframe()`, the control endpoint).
    public var keyframeRequests: Int = 0
    /// Bitrate limits from the peer (REMB, TMMBR) that the encoder refused; the stream stayed as it was.
    public var bitrateChangeFailures: Int = 0
    /// The latest REMB limit from the peer, bit/s.
    public var rembBitrate: Int?
    /// The latest TMMBR limit from the peer, bit/s.
    public var tmmbrBitrate: Int?
    /// `roundTripTime` in seconds, from the latest RR (LSR/DLSR).
    public var roundTripTime: Double?
    /// `fractionLost` from the latest RR (0...1).
    public var fractionLost: Double?
    /// `packetsLost` (cumulative) from the latest RR.
    public var packetsLost: Int?
    /// RTCP packets (compound) received from the peer.
    public var rtcpPacketsReceived: Int = 0
    /// RTCP compound packets sent (SR, BYE, TMMBN).
    public var rtcpPacketsSent: Int = 0
    /// RTCP that did not parse.
    public var rtcpMalformed: Int = 0
    /// SRTCP packets that failed authentication or replay checks.
    public var srtcpUnprotectFailures: Int = 0
    /// Datagrams from an address other than the peer's.
    public var packetsFromStrangers: Int = 0
    /// Socket errors while sending (e.g. ICMP port unreachable); the sender goes on.
    public var sendErrors: Int = 0
    /// RTCP accepted in the clear although the media is SRTP (`acceptPlainRTCP`).
    public var plainRTCPAccepted: Int = 0
    /// Writes that carried several RTP packets to the socket at once (UDP GSO on Linux: each packet is still its own
    /// datagram on the wire; `TransportCounters.segmentedWrites`).
    public var segmentedWrites: Int = 0
    /// Segmented writes the path refused (after the first the stream sends packet by packet).
    public var segmentationOffloadFailures: Int = 0

    /// Creates empty statistics.
    public init() {}
}
