import Codec
import H264
import NIOCore
import RTP
import SRTP
import Video

/// The sender's mutable state, confined to its event loop. Each field belongs to one stage.
struct PipelineState {
    // Source stage.
    let source: FrameSource
    /// The buffer a copying source fills (a lending source leaves it alone); the encoder scales frames of another
    /// size itself.
    var sourceFrame: I420Frame
    var sourceFrameIndex = 0
    /// Stands in for `sourceFrame` while the source fills it, so that the buffer is moved out (not copied).
    static let placeholderFrame = I420Frame(width: 2, height: 2)

    // Encoder stage.
    let encoder: H264Encoder
    var frameRate: Double

    // Packetizer and SRTP stages, with their reusable buffers.
    let sendPath: SendPath
    let timestampMapper: RTPTimestampMapper

    // SRTCP for the peer's feedback.
    let srtcpIn: SRTPSession?
    var rtcpBuffer: [UInt8]

    // Feedback stages.
    var throttle: KeyframeRequestThrottle
    var bitrate: BitrateController
    var lastFIRSequenceNumber: [UInt32: UInt8] = [:]
    /// When the oldest unserved keyframe request arrived (monotonic ns), for the keyframe latency.
    var keyframeRequestUptime: Int64?

    // Timing.
    var startUptime: Int64 = 0
    var nextFrameUptime: Int64 = 0
    var frameInterval: Int64
    var mediaTime: Int64 = 0
    var lastRTPTimestamp: UInt32 = 0
    var lastSenderReportCompactNTP: UInt32 = 0
    var running = false
    var finished = false
    var tickTask: Scheduled<Void>?
    var reportTask: RepeatedTask?

    // Stats.
    var stats = SenderStats()
    var lastReportUptime: Int64 = 0
    var framesAtLastReport = 0
    var bytesAtLastReport = 0

    init(configuration: SenderConfiguration, source: FrameSource, ssrc: UInt32, generator: inout some RandomNumberGenerator) throws {
        let enc = configuration.encoder
        guard (0...1).contains(configuration.packetizationMode) else {
            throw SenderError.invalidConfiguration("packetization-mode must be 0 or 1, got \(configuration.packetizationMode)")
        }
        guard (96...127).contains(configuration.payloadType) else {
            throw SenderError.invalidConfiguration("payload type must be a dynamic type (96-127), got \(configuration.payloadType)")
        }
        guard (1...65535).contains(configuration.peerPort) else {
            throw SenderError.invalidConfiguration("peer port must be 1-65535, got \(configuration.peerPort)")
        }
        guard (0...65534).contains(configuration.localPort) else {
            throw SenderError.invalidConfiguration("local port must be 0-65534, got \(configuration.localPort)")
        }
        if let first = configuration.firstSequenceNumber, first >= 0x8000 {
            throw SenderError.invalidConfiguration("first sequence number must be below 32768, got \(first)")
        }
        self.source = source
        self.frameRate = enc.frameRate
        self.frameInterval = Int64((1e9 / enc.frameRate).rounded())

        // Packetizer limits (SRTP trailer room at the end of every packet) and mode 0's NAL size limit come from
        // `SenderConfiguration.payloadLimit`, shared with the SDP probe.
        let limit = configuration.payloadLimit
        let mode: H264PacketizationMode = configuration.packetizationMode == 0 ? .singleNALUnit : .nonInterleaved
        let packetizer = try H264Packetizer(
            ssrc: SSRC(ssrc), payloadType: PayloadType(configuration.payloadType),
            firstSequenceNumber: SequenceNumber(configuration.firstSequenceNumber ?? UInt16.random(in: 0..<0x8000, using: &generator)),
            mode: mode, mtu: limit.mtu, ipVersion: limit.ipVersion, srtpTrailerSize: limit.srtpTrailerSize)
        timestampMapper = RTPTimestampMapper(using: &generator)

        encoder = try H264Encoder(configuration: configuration.sendingEncoderConfiguration)

        if let security = configuration.security {
            sendPath = SendPath(
                packetizer: packetizer,
                srtp: try SRTPSession(direction: .outbound, suite: security.suite, key: security.key))
            srtcpIn = try SRTPSession(direction: .inbound, suite: security.suite, key: security.key)
        } else {
            sendPath = SendPath(packetizer: packetizer, srtp: nil)
            srtcpIn = nil
        }
        rtcpBuffer = [UInt8](repeating: 0, count: 1500 + SRTPSuite.maxRTCPTrailer)

        throttle = KeyframeRequestThrottle(minimumInterval: configuration.keyframeThrottle)
        let levelMax = enc.level.maxBitrate(for: enc.profile)
        bitrate = try BitrateController(
            operatorBitrate: enc.targetBitrate, minimumBitrate: min(configuration.minimumBitrate, enc.targetBitrate),
            maximumBitrate: Int(Double(levelMax) / EncoderConfiguration.defaultMaxBitrateRatio))

        sourceFrame = I420Frame(width: source.width, height: source.height)
        stats.ssrc = ssrc
        stats.frameWidth = enc.width
        stats.frameHeight = enc.height
        stats.targetBitrate = bitrate.effectiveTarget
        stats.maxBitrate = enc.effectiveMaxBitrate
        stats.operatorBitrate = bitrate.operatorBitrate
    }
}
