import Codec
import NIOCore
import RTP
import SRTP
import Video

/// The receiver's mutable state, confined to its event loop.
struct ReceiverState {
    let srtpIn: SRTPSession?
    let srtcpOut: SRTPSession?
    var depacketizer: H264Depacketizer
    let decoder: H264Decoder
    var picture = I420Frame(width: 16, height: 16)
    /// Access units given to the decoder whose pictures have not come out yet: OpenH264 holds one picture back in
    /// High profile, so pictures are matched to access units in order.
    var awaitingPicture: [H264ReceivedFrame] = []

    // Where the sender is (learned from its first packet: symmetric RTP).
    var senderAddress: SocketAddress?
    var senderSSRC: UInt32?

    // Reception statistics for Receiver Reports (RFC 3550 appendix A.3 and A.8), once the sender is known.
    var reception: ReceptionStatistics?
    var lastSenderReportMiddle: UInt32 = 0
    var lastSenderReportArrival: Int64 = 0

    // Keyframe requests.
    var needKeyframe = false
    var lastPLIUptime: Int64 = 0
    var decodedKeyframe = false

    // Lifecycle.
    var startUptime: Int64 = 0
    var firstPacketUptime: Int64?
    var lastPacketUptime: Int64 = 0
    var running = false
    var finished = false
    var reportTask: RepeatedTask?
    var stats = ReceiverStats()

    init(configuration: ReceiverConfiguration) throws {
        if let security = configuration.security {
            srtpIn = try SRTPSession(direction: .inbound, suite: security.suite, key: security.key)
            srtcpOut = try SRTPSession(direction: .outbound, suite: security.suite, key: security.key)
        } else {
            srtpIn = nil
            srtcpOut = nil
        }
        depacketizer = H264Depacketizer(reorderWindow: configuration.reorderWindow)
        decoder = try H264Decoder()
    }
}
