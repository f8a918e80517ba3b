import H264
import RTP
import SRTP
import Video

/// What `H264Receiver` listens for and what it does with the stream.
public struct ReceiverConfiguration: Sendable {
    /// SRTP settings of the receiving end.
    public struct Security: Sendable {
        /// The suite.
        public var suite: SRTPSuite
        /// The key the sender protects its RTP and RTCP with. Never logged.
        public var remoteKey: SRTPMasterKey
        /// The key this receiver protects its own RTCP with (RFC 4568 section 6.1); nil means the sender's key, as a
        /// single `a=crypto` line implies. Never logged.
        public var key: SRTPMasterKey?

        /// Creates SRTP settings.
        /// - Parameters:
        ///   - suite: the suite.
        ///   - remoteKey: the sender's key.
        ///   - key: this receiver's own key, or nil for the sender's.
        public init(suite: SRTPSuite = .default, remoteKey: SRTPMasterKey, key: SRTPMasterKey? = nil) {
            self.suite = suite
            self.remoteKey = remoteKey
            self.key = key
        }
    }

    /// The address to listen on.
    public var listenHost: String
    /// The RTP port (RTCP too when muxed, else `listenPort + 1`).
    public var listenPort: Int
    /// RTCP multiplexed on the RTP port (RFC 5761).
    public var rtcpMux: Bool = true
    /// SRTP settings, or nil for plain RTP.
    public var security: Security?
    /// Stop after this many frames decoded (nil: no limit).
    public var frameLimit: Int?
    /// Stop this long after the first packet (nil: no limit).
    public var duration: Duration?
    /// Stop when the sender says BYE.
    public var stopOnBye: Bool = true
    /// Stop if no packet arrives for this long after the first one (nil: wait for ever).
    public var idleTimeout: Duration?
    /// The RTCP CNAME (1-255 bytes of UTF-8).
    public var cname: String = "rtc-h264-receiver"
    /// How often Receiver Reports are sent, and how often an unanswered PLI is repeated.
    public var reportInterval: Duration = .seconds(1)
    /// Packets held while waiting for a missing one before it is declared lost (without NACK; with NACK the jitter
    /// buffer waits `jitterBufferWait` instead).
    public var reorderWindow: Int = 64
    /// Ask for lost packets with generic NACKs (RFC 4585 section 6.2.1), repeated about once per RTT.
    public var nack: Bool = true
    /// How many copies of each NACK message are sent (1-3). A NACK lost on the way back costs a whole repeat interval
    /// (about one RTT); at 5 % loss each way half of the failed repair tries are lost NACKs, and a packet whose
    /// repair fails twice freezes the picture for over 200 ms at a 50 ms RTT. A second copy (about 40 bytes) makes a
    /// lost NACK 20 times rarer; the sender answers the first copy that arrives and refuses the other as too soon
    /// (`NACKResponder`), so no packet is resent twice for it.
    public var nackCopies: Int = defaultNACKCopies
    /// The default copies of each NACK message.
    public static let defaultNACKCopies = 2
    /// The least time a missing packet is waited for (retransmission or reordering) before its frame is given up and
    /// a keyframe asked for; with NACK the wait grows with the measured RTT (4 RTT + 3 resend margins + 4 x jitter,
    /// `RepairWait`) up to `jitterBufferMaximumWait`, and before an RTT is known it is 1 s (within the two).
    public var jitterBufferWait: Duration = .milliseconds(300)
    /// The most time a missing packet is waited for, however long the RTT (the latency budget; at least
    /// `jitterBufferWait`).
    public var jitterBufferMaximumWait: Duration = .seconds(2)
    /// The RTX payload type (RFC 4588) the sender retransmits with, if it uses RTX.
    public var rtxPayloadType: UInt8?
    /// The FlexFEC payload type (`a=rtpmap:<pt> flexfec-03/90000`): its packets recover lost media packets
    /// (`FlexFECReceiver`); nil ignores FEC packets.
    public var fecPayloadType: UInt8?
    /// Play a round trip behind while losses need repair (`RepairPlayoutDelay`): frames are handed on at their
    /// expected time plus the longest recent repair time (at most `jitterBufferMaximumWait`), so a frame repaired
    /// late does not freeze the picture; 0 added on a path that needs no repair. With NACK only. False hands each
    /// frame on as it completes.
    public var repairDelay: Bool = true
    /// The header extension ID (RFC 8285, 1-255) of the sender's transport-wide sequence number: when set, the
    /// receiver records each packet's arrival and sends transport-wide feedback (RTPFB FMT 15) every
    /// `transportFeedbackInterval` (draft-holmer-rmcat-transport-wide-cc-extensions-01). nil sends none.
    public var transportWideCCExtensionID: UInt8?
    /// The header extension ID (RFC 8285, 1-255) of the sender's absolute capture time (`abs-capture-time`): when
    /// set, the receiver reads it and reports how long after its capture each frame was decoded
    /// (`ReceiverStats.captureToDecoded`; the sender's and the receiver's wall clocks must agree, as on one machine).
    public var absoluteCaptureTimeExtensionID: UInt8?
    /// The header extension ID (RFC 8285, 1-255) of the sender's playout delay (`playout-delay`): when set, the
    /// receiver reports the bounds the sender asks for (`ReceiverStats.playoutDelay`). It decodes and hands out every
    /// frame as soon as it is complete whatever they say (no render buffer), which any bounds allow.
    public var playoutDelayExtensionID: UInt8?
    /// The header extension ID (RFC 8285, 1-255) of the sender's dependency descriptor: when set, the receiver reads
    /// it and reports the scalability mode and the frames of each temporal layer (`ReceiverStats.scalabilityMode`,
    /// `temporalLayerFrames`). Decoding does not depend on it.
    public var dependencyDescriptorExtensionID: UInt8?
    /// How often transport-wide feedback is sent (10 ms-1 s; libwebrtc: 50-250 ms).
    public var transportFeedbackInterval: Duration = TransportFeedbackGenerator.defaultInterval
    /// Decode the stream (OpenH264). False hands each complete access unit on undecoded (load generation, or a
    /// recorder of the bitstream): `framesDecoded` then counts the frames that would have been decoded (each after
    /// the first keyframe, in order, with their freezes), `onFrameDecoded` is never called, and no decode error can
    /// ask for a keyframe.
    public var decode: Bool = true
    /// Called on the receiver's loop with every access unit received, before decoding; it must return quickly.
    public var onAccessUnit: (@Sendable (H264ReceivedFrame) -> Void)?
    /// Called on the receiver's loop with every decoded picture (valid during the call) and its access unit.
    public var onFrameDecoded: (@Sendable (I420Frame, H264ReceivedFrame) -> Void)?

    /// Creates a configuration.
    /// - Parameters:
    ///   - listenHost: the local address.
    ///   - listenPort: the local RTP port.
    public init(listenHost: String, listenPort: Int) {
        self.listenHost = listenHost
        self.listenPort = listenPort
    }

    /// Checks every value.
    /// - Throws: `ReceiverError.invalidConfiguration` naming the value.
    public func validate() throws(ReceiverError) {
        guard (0...65534).contains(listenPort) else {
            throw .invalidConfiguration("listen port must be 0-65534, got \(listenPort)")
        }
        guard (1...SourceDescriptionItem.maxLength).contains(cname.utf8.count) else {
            throw .invalidConfiguration(
                "CNAME must be 1-\(SourceDescriptionItem.maxLength) bytes of UTF-8, got \(cname.utf8.count)")
        }
        guard reportInterval >= .milliseconds(10), reportInterval <= .seconds(3600) else {
            throw .invalidConfiguration("report interval must be 10 ms-3600 s, got \(reportInterval)")
        }
        guard (1...4096).contains(reorderWindow) else {
            throw .invalidConfiguration("reorder window must be 1-4096 packets, got \(reorderWindow)")
        }
        guard (1...3).contains(nackCopies) else {
            throw .invalidConfiguration("NACK copies must be 1-3, got \(nackCopies)")
        }
        guard jitterBufferWait >= .milliseconds(10), jitterBufferWait <= .seconds(10) else {
            throw .invalidConfiguration("jitter buffer wait must be 10 ms-10 s, got \(jitterBufferWait)")
        }
        guard jitterBufferMaximumWait >= .milliseconds(10), jitterBufferMaximumWait <= .seconds(10) else {
            throw .invalidConfiguration("jitter buffer maximum wait must be 10 ms-10 s, got \(jitterBufferMaximumWait)")
        }
        if let rtxPayloadType, !(96...127).contains(rtxPayloadType) {
            throw .invalidConfiguration("RTX payload type must be 96-127, got \(rtxPayloadType)")
        }
        if let fecPayloadType {
            guard PayloadType.isValidForFlexFEC(fecPayloadType),
                  fecPayloadType != rtxPayloadType
            else { throw .invalidConfiguration("FEC payload type must be 35-63 or 96-127 and not RTX's, got \(fecPayloadType)") }
        }
        if transportWideCCExtensionID == 0 {
            throw .invalidConfiguration("transport-wide CC extension ID must be 1-255 (RFC 8285), got 0")
        }
        if absoluteCaptureTimeExtensionID == 0 {
            throw .invalidConfiguration("absolute capture time extension ID must be 1-255 (RFC 8285), got 0")
        }
        if playoutDelayExtensionID == 0 {
            throw .invalidConfiguration("playout delay extension ID must be 1-255 (RFC 8285), got 0")
        }
        if dependencyDescriptorExtensionID == 0 {
            throw .invalidConfiguration("dependency descriptor extension ID must be 1-255 (RFC 8285), got 0")
        }
        let ids = [transportWideCCExtensionID, absoluteCaptureTimeExtensionID, playoutDelayExtensionID,
                   dependencyDescriptorExtensionID].compactMap { $0 }
        if Set(ids).count != ids.count {
            throw .invalidConfiguration("two header extensions cannot share an ID (RFC 8285 section 5), got \(ids)")
        }
        guard transportFeedbackInterval >= .milliseconds(10), transportFeedbackInterval <= .seconds(1) else {
            throw .invalidConfiguration("transport feedback interval must be 10 ms-1 s, got \(transportFeedbackInterval)")
        }
        if let frameLimit, frameLimit <= 0 { throw .invalidConfiguration("frame limit must be positive, got \(frameLimit)") }
        if let duration, duration <= .zero { throw .invalidConfiguration("duration must be positive, got \(duration)") }
        if let idleTimeout, idleTimeout <= .zero {
            throw .invalidConfiguration("idle timeout must be positive, got \(idleTimeout)")
        }
        if let security, let key = security.key, key.count != security.remoteKey.count {
            throw .invalidConfiguration("the receiver's own SRTP key must be of the sender's suite")
        }
    }
}

/// Why the receiver could not start.
public enum ReceiverError: Error, Equatable, CustomStringConvertible {
    /// A configuration value out of range.
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let reason): return "invalid configuration: \(reason)"
        }
    }
}
