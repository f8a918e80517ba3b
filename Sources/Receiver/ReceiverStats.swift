import Transport

/// What the receiver has seen, named after WebRTC's `RTCInboundRtpStreamStats` where a name fits.
public struct ReceiverStats: Codable, Sendable, Equatable {
    /// Seconds since the receiver started.
    public var timestamp: Double = 0
    /// The sender's SSRC, once known.
    public var ssrc: UInt32?
    /// `packetsReceived`.
    public var packetsReceived: Int = 0
    /// `bytesReceived` (RTP payload bytes after SRTP).
    public var bytesReceived: Int = 0
    /// `packetsLost`: sequence numbers never received.
    public var packetsLost: Int = 0
    /// `jitter` in seconds (RFC 3550 section 6.4.1).
    public var jitter: Double = 0
    /// Complete access units reassembled.
    public var framesReceived: Int = 0
    /// `framesDecoded`.
    public var framesDecoded: Int = 0
    /// `keyFramesDecoded`.
    public var keyFramesDecoded: Int = 0
    /// `framesDropped`: access units lost to missing or broken packets, or not decodable.
    public var framesDropped: Int = 0
    /// How often a decoded picture's size differed from the one before it (the sender switched resolution).
    public var resolutionChanges: Int = 0
    /// Access units the decoder rejected.
    public var decodeErrors: Int = 0
    /// `pliCount`: PLIs sent.
    public var pliCount: Int = 0
    /// Receiver Reports sent.
    public var rtcpPacketsSent: Int = 0
    /// Sender Reports received.
    public var senderReportsReceived: Int = 0
    /// Whether the sender said BYE.
    public var byeReceived: Bool = false
    /// SRTP or SRTCP packets that failed authentication or replay checks.
    public var srtpUnprotectFailures: Int = 0
    /// RTP or RTCP packets that did not parse, or H.264 payloads that were malformed.
    public var malformedPackets: Int = 0
    /// Seconds (since start) at which keyframes were decoded.
    public var keyframeTimes: [Double] = []
    /// NACK messages sent (`nackCount`).
    public var nackCount: Int = 0
    /// Sequence numbers asked for in NACKs.
    public var packetsNACKed: Int = 0
    /// Retransmitted packets received (RTX or a repeated sequence number that filled a gap).
    public var retransmittedPacketsReceived: Int = 0
    /// FlexFEC packets received (`getStats()` `fecPacketsReceived`).
    public var fecPacketsReceived: Int = 0
    /// FlexFEC packets refused: unreadable, of another stream, or before the media stream was known
    /// (`fecPacketsDiscarded`).
    public var fecPacketsDiscarded: Int = 0
    /// The playout delay added for repairs now, seconds (`ReceiverConfiguration.repairDelay`; 0 on a clean path).
    public var repairPlayoutDelay: Double?
    /// Media packets recovered from FlexFEC (`packetsRecovered`); they are not counted in `packetsReceived`.
    public var packetsRecovered: Int = 0
    /// The round-trip time in seconds, once measured: the NACK -> retransmission time, smoothed (what NACK repeats
    /// are spaced by); before the first such sample, the RTT from RTCP XR (`extendedReportRoundTripTime`).
    public var roundTripTime: Double?
    /// The latest round-trip time from RTCP XR (RFC 3611: our Receiver Reference Time, the sender's DLRR), in
    /// seconds; nil while the sender answers none (it does not read XR).
    public var extendedReportRoundTripTime: Double?
    /// Packets given up after the jitter buffer's wait, or at once for a complete keyframe behind them.
    public var packetsGivenUp: Int = 0
    /// Times a complete keyframe was released at once, the hole in front of it given up without waiting for repair.
    public var keyframeJumps: Int = 0
    /// Packets that had arrived but were dropped by those jumps (they lay between the hole and the keyframe).
    public var packetsSkippedForKeyframe: Int = 0
    /// `freezeCount`: intervals between decoded frames longer than max(3 x the average, the average + 150 ms).
    public var freezeCount: Int = 0
    /// The jitter buffer's current wait for a missing packet, seconds (grows with the RTT).
    public var jitterBufferWait: Double?
    /// Transport-wide feedback messages sent (RTPFB FMT 15).
    public var transportFeedbackSent: Int = 0
    /// `totalFreezesDuration` in seconds.
    public var totalFreezesDuration: Double = 0
    /// The longest freeze in seconds.
    public var longestFreeze: Double = 0
    /// How long after capture frames were decoded (ms), from the sender's `abs-capture-time`; nil unless the
    /// extension is configured and has arrived.
    public var captureToDecoded: CaptureToDecoded?
    /// How long after capture each frame's first packet arrived (ms; the same summary): with the receiver beside the
    /// sender, the sender's own share (frame wait, encode, packetization, the pacer). Nil as `captureToDecoded`.
    public var captureToFirstPacket: CaptureToDecoded?
    /// How far apart each frame's first packet and its highest-numbered one arrived (ms; resent packets aside; the same summary): the
    /// sender's pacing of a frame, with the network's spread. Nil as `captureToDecoded`.
    public var firstToLastPacket: CaptureToDecoded?
    /// The playout delay bounds the sender asks for (`playout-delay`), as last received; nil when none arrived.
    public var playoutDelay: ReceivedPlayoutDelay?
    /// The scalability mode the sender's dependency descriptors describe (`L1T3`, ...); nil unless the extension is
    /// configured and a keyframe's structure has arrived.
    public var scalabilityMode: String?
    /// Frames started per temporal layer (index = layer), from the dependency descriptors; nil as `scalabilityMode`.
    public var temporalLayerFrames: [Int]?
    /// Dependency descriptors that did not parse or came before any structure.
    public var dependencyDescriptorErrors: Int = 0
    /// What the transport carried and refused.
    public var transport = TransportCounters()

    /// Creates empty statistics.
    public init() {}
}
