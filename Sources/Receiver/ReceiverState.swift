import Codec
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

    // The sender's stream (learned from its first packet: symmetric RTP).
    var senderSSRC: SSRC?

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

    init(configuration: ReceiverConfiguration) throws {
        depacketizer = H264Depacketizer(reorderWindow: configuration.reorderWindow)
        decoder = try H264Decoder()
    }
}
