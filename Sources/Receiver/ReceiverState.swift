import Codec
import NIOCore
import RTP
import Video

/// The receiver's mutable state, confined to its event loop.
struct ReceiverState {
    var depacketizer: H264Depacketizer
    let decoder: H264Decoder
    var picture = I420Frame(width: 16, height: 16)
    /// Access units given to the decoder whose pictures have not come out yet: OpenH264 holds one picture back in
    /// High profile, so pictures are matched to access units in order.
    var awaitingPicture: [H264ReceivedFrame] = []
    /// The size of the last picture handed out, nil before the first (for `ReceiverStats.resolutionChanges`).
    var lastPictureSize: (width: Int, height: Int)?

    // The sender's stream (learned from its first packet: symmetric RTP).
    var senderSSRC: SSRC?
    var mediaPayloadType: PayloadType?

    // Reception statistics for Receiver Reports (RFC 3550 appendix A.3 and A.8), once the sender is known.
    var reception: ReceptionStatistics?
    var lastSenderReportMiddle: UInt32 = 0
    var lastSenderReportArrival = MonotonicTime.zero

    // Keyframe requests.
    var needKeyframe = false
    var lastPLI: MonotonicTime?
    var decodedKeyframe = false

    // Lifecycle.
    var start = MonotonicTime.zero
    var firstPacket: MonotonicTime?
    var lastPacket = MonotonicTime.zero
    var finished = false
    var stats = ReceiverStats()

    // Loss repair: NACKs, the jitter buffer that waits for their answers, freezes as browsers count them.
    var nack: NACKGenerator?
    var jitter: JitterBuffer<[UInt8]>?
    var nackList: [SequenceNumber] = []
    var freezes = FreezeDetector()
    /// When each sequence number was first NACKed, or nil once it was asked again (its answer is then ambiguous), for
    /// the round-trip time the NACK repeats are spaced by.
    var nackSentAt: [SequenceNumber: MonotonicTime?] = [:]
    /// The smoothed NACK -> retransmission time (RFC 6298's 1/8 gain), once measured.
    var roundTripTime: Duration?
    /// The jitter buffer's wait for a missing packet, from the RTT and jitter.
    let repairWait: RepairWait
    var repairTask: RepeatedTask?
    /// The one-shot timer for the earliest NACK repeat or jitter-buffer deadline, and when it fires.
    var repairTimer: Scheduled<Void>?
    var repairTimerDeadline: MonotonicTime?

    // Transport-wide congestion control feedback (created with the first packet, which names the media SSRC).
    var transportFeedback: TransportFeedbackGenerator?
    var transportFeedbackMessages: [TransportFeedback] = []
    var transportFeedbackTask: RepeatedTask?

    init(configuration: ReceiverConfiguration) throws {
        repairWait = RepairWait(minimum: configuration.jitterBufferWait, maximum: configuration.jitterBufferMaximumWait)
        if configuration.nack {
            // The jitter buffer hands packets over in order, so the depacketizer declares a gap lost at once.
            depacketizer = H264Depacketizer(reorderWindow: 1)
            nack = NACKGenerator()
            jitter = try JitterBuffer(maximumWait: repairWait.wait(roundTripTime: nil))
            nackList.reserveCapacity(256)
        } else {
            depacketizer = H264Depacketizer(reorderWindow: configuration.reorderWindow)
        }
        decoder = try H264Decoder()
    }
}
