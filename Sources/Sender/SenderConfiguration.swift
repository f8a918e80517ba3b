import Codec
import H264
import RTP
import SRTP

/// Everything the sender needs to know before it starts. `validate()` checks it up front (`H264Sender` calls it before
/// any socket is opened or any encoder created), so a bad value is a typed error, never a trap.
public struct SenderConfiguration: Sendable {
    /// SRTP settings; nil sends plain RTP.
    public struct Security: Sendable {
        /// The suite (default AES_CM_128_HMAC_SHA1_80).
        public var suite: SRTPSuite
        /// The master key and salt this sender protects its RTP and RTCP with. Never logged.
        public var key: SRTPMasterKey
        /// The key the peer protects its RTCP with (RFC 4568 section 6.1: each side sends with its own key); nil means
        /// the same as `key`, as a single `a=crypto` line implies (ffmpeg, GStreamer). Never logged.
        public var remoteKey: SRTPMasterKey?

        /// Creates SRTP settings.
        /// - Parameters:
        ///   - suite: the crypto suite.
        ///   - key: the key this end protects with.
        ///   - remoteKey: the key the peer protects with, or nil for the same key.
        public init(suite: SRTPSuite = .default, key: SRTPMasterKey, remoteKey: SRTPMasterKey? = nil) {
            self.suite = suite
            self.key = key
            self.remoteKey = remoteKey
        }
    }

    /// A retransmission stream (RFC 4588).
    public struct RTX: Sendable, Equatable {
        /// The RTX payload type (`a=rtpmap:<pt> rtx/90000`, `a=fmtp:<pt> apt=<media pt>`).
        public var payloadType: PayloadType
        /// The RTX SSRC (`a=ssrc-group:FID <media> <rtx>`); random when nil.
        public var ssrc: SSRC?

        /// Creates RTX settings.
        /// - Parameters:
        ///   - payloadType: the RTX payload type (97 by default).
        ///   - ssrc: the RTX SSRC, or nil for a random one.
        public init(payloadType: PayloadType = PayloadType(97), ssrc: SSRC? = nil) {
            self.payloadType = payloadType
            self.ssrc = ssrc
        }
    }

    /// A FlexFEC stream (`flexfec-03`, as libwebrtc sends and Chromium receives it): its own SSRC
    /// (`a=ssrc-group:FEC-FR <media> <fec>`) and payload type; how much it protects follows the receiver's reported
    /// loss and the round trip (`FECProtection`).
    public struct FEC: Sendable, Equatable {
        /// The payload type (`a=rtpmap:<pt> flexfec-03/90000`): 35-63 as libwebrtc picks, or 96-127.
        public var payloadType: PayloadType
        /// The FEC SSRC; random when nil.
        public var ssrc: SSRC?

        /// The payload type `send` and `sdp` use by default (libwebrtc's low range, where Chromium offers it).
        public static let defaultPayloadType = PayloadType(49)

        /// Creates FEC settings.
        /// - Parameters:
        ///   - payloadType: the `flexfec-03` payload type (49 by default).
        ///   - ssrc: the FEC SSRC, or nil for a random one.
        public init(payloadType: PayloadType = defaultPayloadType, ssrc: SSRC? = nil) {
            self.payloadType = payloadType
            self.ssrc = ssrc
        }
    }

    /// The peer's address (an IPv4 or IPv6 literal, or a host name).
    public var peerHost: String
    /// The peer's RTP port (RTCP too when muxed).
    public var peerPort: Int
    /// The peer's RTCP port when not muxed (nil: `peerPort + 1`).
    public var peerRTCPPort: Int?
    /// The local address to bind.
    public var localHost: String = "0.0.0.0"
    /// The local RTP port (0 picks one); RTCP on the next port when not muxed.
    public var localPort: Int = 0
    /// RTCP multiplexed on the RTP port (RFC 5761), as WebRTC does.
    public var rtcpMux: Bool = true
    /// The encoder's settings (size, frame rate, profile, bitrate, ceiling, keyframe interval, threads).
    public var encoder: EncoderConfiguration
    /// What to give up when the bitrate is short (WebRTC's degradation preference): the resolution steps down
    /// (maintain-framerate, the default), frames are skipped (maintain-resolution), or some of both (balanced).
    public var degradationPreference: DegradationPreference = .maintainFramerate
    /// The lowest target the peer's limits (REMB, TMMBR) may push the bitrate to, in bit/s.
    public var minimumBitrate: Int = 50_000
    /// Where the congestion estimate starts, in bit/s, when the delay-based half runs (`congestionControl` with
    /// `transportWideCCExtensionID`) and probes can be sent (`rtx`, `nack` and pacing on): the session sends at the
    /// lower of this and the encoder's target and probes up at once (3x, then 2x each result while it gets through;
    /// `ProbeController`), so that a sender entering a slow path does not fill its queue first. nil starts at the encoder's target. A peer that sends no transport-wide feedback
    /// within `transportFeedbackWait` of the first packet gets the encoder's target at once (loss-based only).
    /// libwebrtc starts at 300 kbit/s (`defaultStartBitrate`).
    public var startBitrate: Int? = SenderConfiguration.defaultStartBitrate
    /// The default `startBitrate`: 300 kbit/s (libwebrtc's default `BitrateConstraints::start_bitrate_bps`).
    public static let defaultStartBitrate = 300_000
    /// How long the session waits for a first transport-wide feedback message before it gives the delay-based half
    /// up and sends at the encoder's target: 2 s.
    public static let transportFeedbackWait: Duration = .seconds(2)
    /// The IP-level MTU the packets must fit.
    public var mtu: Int = 1200
    /// RFC 6184 packetization mode.
    public var packetizationMode: H264PacketizationMode = .nonInterleaved
    /// The RTP payload type (dynamic: 96-127).
    public var payloadType: PayloadType = .defaultH264
    /// The SSRC; random when nil.
    public var ssrc: SSRC?
    /// The first sequence number; random below 2^15 when nil.
    public var firstSequenceNumber: SequenceNumber?
    /// SRTP, or nil for plain RTP.
    public var security: Security?
    /// Accept plain (unauthenticated) RTCP feedback from the peer's address although the media is SRTP. Janus sends
    /// its PLI and REMB in the clear; never on by default, counted in `SenderStats.transport.plainRTCPAccepted`.
    public var acceptPlainRTCP: Bool = false
    /// Answer generic NACKs (RFC 4585 section 6.2.1) with retransmissions from a packet history (at least
    /// max(1 s, 3 RTT), 2,048 packets), each packet at most once per RTT, within a budget of the target rate over
    /// 500 ms.
    public var nack: Bool = true
    /// Resend on a retransmission stream (RFC 4588) instead of the media SSRC; nil for peers that do not take RTX.
    public var rtx: RTX?
    /// Protect with FlexFEC (`FEC`) on top of NACK, as much as the reported loss and the round trip ask
    /// (`FECProtection`; none on a loss-free path); nil for none. The FEC bits come out of the encoder's target, as
    /// retransmissions' do.
    public var fec: FEC?
    /// Pace packets at this factor over the target (libwebrtc: 2.5) so that an IDR does not overflow a shallow queue;
    /// nil sends each frame in one burst (benchmarks).
    public var pacingFactor: Double? = 2.5
    /// Adapt the target to the path: the loss-based part of GCC (draft-ietf-rmcat-gcc) from the peer's reception
    /// reports caps the target like a REMB does.
    public var congestionControl: Bool = true
    /// The RFC 8285 one-byte header extension ID of the transport-wide sequence number
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01), 1-14, or nil to leave it out. When set, every RTP and
    /// RTX packet carries the number (written as it goes on the wire), the SDP advertises `a=extmap` and
    /// `a=rtcp-fb:<pt> transport-cc`, and the peer's transport-wide feedback drives the delay-based half of the
    /// congestion control (with `congestionControl`). A WebRTC session sets it to the negotiated `a=extmap` ID.
    public var transportWideCCExtensionID: UInt8?
    /// The RFC 8285 one-byte header extension ID of the absolute capture time (`abs-capture-time`), 1-14, or nil to
    /// leave it out. When set, the first packet of a frame carries the frame's capture time on the wall clock, mapped
    /// as the Sender Reports map RTP time (the session's wall clock at its start plus the capture time's distance
    /// from then), whenever libwebrtc's `AbsoluteCaptureTimeSender` would send it: on keyframes, when none was sent
    /// for a second, and when the RTP timestamp would not give it to within 1 ms of the value last sent. The SDP
    /// advertises `a=extmap`. A WebRTC session sets it to the negotiated ID.
    public var absoluteCaptureTimeExtensionID: UInt8?
    /// The playout delay bounds to ask of the receiver (`playout-delay`), or nil to send none. Sent only with
    /// `playoutDelayExtensionID`: on every packet of the stream's first frame and of every keyframe (libwebrtc's
    /// `RTPSenderVideo` for a stream whose delay never changes).
    public var playoutDelay: PlayoutDelay?
    /// The RFC 8285 one-byte header extension ID of the playout delay, 1-14, or nil to leave it out (the delay is not
    /// sent without it). The SDP advertises `a=extmap` when both this and `playoutDelay` are set.
    public var playoutDelayExtensionID: UInt8?
    /// The RFC 8285 one-byte header extension ID of the dependency descriptor (`DependencyDescriptor.uri`, the AV1
    /// RTP specification's Appendix A, as libwebrtc sends it with H.264 temporal layers), 1-14, or nil to leave it
    /// out. When set, every packet says which frame it belongs to and which template of libwebrtc's structure for
    /// `encoder.temporalLayers` (L1T1-L1T3) describes the frame, with the structure on the first packet of every
    /// keyframe (`DependencyDescriptorSequence`), so that a forwarder can drop the upper temporal layers without
    /// parsing H.264. The SDP advertises `a=extmap`.
    public var dependencyDescriptorExtensionID: UInt8?
    /// Simulcast (RFC 8853): the encodings sent, lowest first, each with its own encoder (at its layer's size,
    /// keeping it: no resolution adaptation), SSRC, RTX SSRC and RTP stream id. The congestion estimate is split over
    /// them as libwebrtc splits it (`SimulcastRateAllocator`); a layer it cannot carry is paused (no frames encoded)
    /// and resumes with a keyframe; a PLI or FIR for one layer's SSRC asks that layer's encoder alone for a keyframe.
    /// Empty (the default) or one encoding: one stream of `encoder`'s size. The highest encoding's size is
    /// `encoder`'s.
    public var simulcast: [SimulcastEncoding] = []
    /// The m-section's mid, written in the `sdes:mid` header extension (`midExtensionID`) on every packet.
    public var mid: String?
    /// The RFC 8285 one-byte header extension ID of `urn:ietf:params:rtp-hdrext:sdes:mid` (RFC 8843), 1-14, or nil.
    /// With `mid` set, every packet carries it (libwebrtc stops once the receiver has reported on the SSRC; Janus
    /// needs it until it has mapped every SSRC).
    public var midExtensionID: UInt8?
    /// The RFC 8285 one-byte header extension ID of `urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id` (RFC 8852), 1-14,
    /// or nil: with simulcast, every media packet carries its encoding's RTP stream id.
    public var ridExtensionID: UInt8?
    /// The RFC 8285 one-byte header extension ID of `urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id`
    /// (RFC 8852), 1-14, or nil: with simulcast, every retransmission carries the RTP stream id it repairs (and not
    /// `rtp-stream-id`, so that a receiver does not take the RTX stream for the layer).
    public var repairedRIDExtensionID: UInt8?
    /// The RTCP CNAME (RFC 3550 section 6.5.1): 1 to 255 bytes of UTF-8.
    public var cname: String = "rtc-h264"
    /// The shortest time between keyframes produced on request (PLI, FIR, `requestKeyframe()`), in media time: between
    /// their capture times, which their RTP timestamps follow.
    public var keyframeThrottle: Duration = KeyframeRequestThrottle.defaultMinimumInterval
    /// How often statistics are taken and Sender Reports sent (WebRTC sends about once a second for video).
    public var reportInterval: Duration = .seconds(1)
    /// Called on the I/O loop with every access unit about to be sent and its RTP timestamp (a tee such as
    /// `--save-annexb`); it must return quickly.
    public var frameObserver: (@Sendable (EncodedFrame, RTPTimestamp) -> Void)?
    /// How many frames in a row may fail (encoder, packetizer, SRTP) before the stream ends with the error; a
    /// single bad frame is dropped, counted, and answered with an IDR.
    public var maximumConsecutiveFrameFailures: Int = 10

    /// Creates a configuration with defaults for everything but the peer and the encoder.
    /// - Parameters:
    ///   - peerHost: the peer's address.
    ///   - peerPort: the peer's RTP port.
    ///   - encoder: the encoder's settings.
    public init(peerHost: String, peerPort: Int, encoder: EncoderConfiguration) {
        self.peerHost = peerHost
        self.peerPort = peerPort
        self.encoder = encoder
    }
}

extension SenderConfiguration {
    /// The longest CNAME an SDES item can carry (RFC 3550 section 6.5: an 8-bit length).
    public static let maximumCNAMELength = SourceDescriptionItem.maxLength
    /// The MTU range accepted: at least the IPv6 minimum link MTU's worth of room below it is pointless; above
    /// 65,000 a UDP datagram cannot hold it.
    public static let mtuRange = 200...65_000
    /// The longest keyframe throttle or report interval accepted.
    public static let maximumInterval = Duration.seconds(3600)
    /// The header extension IDs of the RFC 8285 one-byte form (section 4.2: 0 is padding, 15 reserved).
    public static let oneByteExtensionIDRange: ClosedRange<UInt8> = 1...14
    /// The shortest report interval accepted.
    public static let minimumReportInterval = Duration.milliseconds(10)

    /// Checks every value, in the order a user would fix them.
    /// - Throws: `SenderError.invalidConfiguration` naming the value and its range.
    public func validate() throws(SenderError) {
        do {
            try encoder.validate()
        } catch {
            throw .invalidConfiguration("encoder: \(error)")
        }
        guard (1...65535).contains(peerPort) else {
            throw .invalidConfiguration("peer port must be 1-65535, got \(peerPort)")
        }
        if let peerRTCPPort, !(1...65535).contains(peerRTCPPort) {
            throw .invalidConfiguration("peer RTCP port must be 1-65535, got \(peerRTCPPort)")
        }
        guard (0...65534).contains(localPort) else {
            throw .invalidConfiguration("local port must be 0-65534, got \(localPort)")
        }
        guard !peerHost.isEmpty, peerHost.utf8.count <= 255 else {
            throw .invalidConfiguration("peer host must be 1-255 characters")
        }
        guard (96...127).contains(payloadType.rawValue) else {
            throw .invalidConfiguration("payload type must be a dynamic type (96-127), got \(payloadType)")
        }
        guard Self.mtuRange.contains(mtu) else {
            throw .invalidConfiguration("MTU must be \(Self.mtuRange.lowerBound)-\(Self.mtuRange.upperBound), got \(mtu)")
        }
        if packetizationMode == .singleNALUnit, payloadLimit.maxPayloadSize < EncoderConfiguration.minimumMaxNALUnitSize {
            throw .invalidConfiguration(
                "MTU \(mtu) leaves \(payloadLimit.maxPayloadSize) bytes of RTP payload; packetization mode 0 needs at least "
                    + "\(EncoderConfiguration.minimumMaxNALUnitSize) per NAL unit")
        }
        guard minimumBitrate >= EncoderConfiguration.minimumBitrate, minimumBitrate <= encoder.targetBitrate else {
            throw .invalidConfiguration(
                "minimum bitrate must be \(EncoderConfiguration.minimumBitrate) bit/s to the target (\(encoder.targetBitrate) bit/s), got \(minimumBitrate)")
        }
        if let startBitrate, startBitrate < minimumBitrate {
            throw .invalidConfiguration(
                "start bitrate must be at least the minimum bitrate (\(minimumBitrate) bit/s), got \(startBitrate)")
        }
        if let first = firstSequenceNumber, first.rawValue > SequenceNumber.maxInitialValue {
            throw .invalidConfiguration("first sequence number must be below 32768, got \(first)")
        }
        let cnameLength = cname.utf8.count
        guard (1...Self.maximumCNAMELength).contains(cnameLength) else {
            throw .invalidConfiguration("CNAME must be 1-\(Self.maximumCNAMELength) bytes of UTF-8, got \(cnameLength)")
        }
        guard keyframeThrottle >= .zero, keyframeThrottle <= Self.maximumInterval else {
            throw .invalidConfiguration("keyframe throttle must be 0-3600 s, got \(keyframeThrottle)")
        }
        guard reportInterval >= Self.minimumReportInterval, reportInterval <= Self.maximumInterval else {
            throw .invalidConfiguration("report interval must be 10 ms-3600 s, got \(reportInterval)")
        }
        guard (1...10_000).contains(maximumConsecutiveFrameFailures) else {
            throw .invalidConfiguration(
                "maximum consecutive frame failures must be 1-10000, got \(maximumConsecutiveFrameFailures)")
        }
        if let security, let remote = security.remoteKey, remote.count != security.key.count {
            throw .invalidConfiguration("the remote SRTP key must be of the same suite as the local key")
        }
        if let pacingFactor, !(pacingFactor.isFinite && (1...10).contains(pacingFactor)) {
            throw .invalidConfiguration("pacing factor must be 1-10, got \(pacingFactor)")
        }
        if let rtx {
            guard (96...127).contains(rtx.payloadType.rawValue), rtx.payloadType != payloadType else {
                throw .invalidConfiguration("RTX payload type must be a dynamic type (96-127) other than the media's, got \(rtx.payloadType)")
            }
            guard nack else { throw .invalidConfiguration("RTX needs NACK (retransmissions are answers to NACKs)") }
        }
        if let fec {
            guard PayloadType.isValidForFlexFEC(fec.payloadType.rawValue), fec.payloadType != payloadType,
                  fec.payloadType != rtx?.payloadType
            else {
                throw .invalidConfiguration(
                    "FEC payload type must be 35-63 or 96-127 and differ from the media's and RTX's, got \(fec.payloadType)")
            }
        }
        if let id = transportWideCCExtensionID, !Self.oneByteExtensionIDRange.contains(id) {
            throw .invalidConfiguration("transport-wide CC extension ID must be 1-14 (RFC 8285 one-byte form), got \(id)")
        }
        var used: [(name: String, id: UInt8)] = []
        for (name, id) in [("absolute capture time", absoluteCaptureTimeExtensionID),
                           ("playout delay", playoutDelayExtensionID),
                           ("dependency descriptor", dependencyDescriptorExtensionID),
                           ("mid", midExtensionID), ("rtp-stream-id", ridExtensionID),
                           ("repaired-rtp-stream-id", repairedRIDExtensionID)] {
            guard let id else { continue }
            guard Self.oneByteExtensionIDRange.contains(id) else {
                throw .invalidConfiguration("\(name) extension ID must be 1-14 (RFC 8285 one-byte form), got \(id)")
            }
            used.append((name, id))
        }
        if let id = transportWideCCExtensionID { used.insert(("transport-wide CC", id), at: 0) }
        for (index, entry) in used.enumerated() {
            if let other = used[..<index].first(where: { $0.id == entry.id }) {
                throw .invalidConfiguration("the \(other.name) and \(entry.name) extensions cannot share ID \(entry.id)")
            }
        }
        try validateSimulcast()
        if acceptPlainRTCP && security == nil {
            throw .invalidConfiguration("accepting plain RTCP only makes sense with SRTP (RTCP is plain already)")
        }
    }
}

extension SenderConfiguration {
    /// The most simulcast encodings (libwebrtc sends at most 3 for video; Janus takes 3).
    public static let maximumSimulcastEncodings = 3

    /// Checks the stream identification simulcast streams need on the wire (an `H264Sender` sending every layer:
    /// WHEP viewers get one layer each and need none).
    func validateSimulcastIdentification() throws(SenderError) {
        guard simulcast.count > 1 else { return }
        guard ridExtensionID != nil, midExtensionID != nil, mid != nil else {
            throw .invalidConfiguration("simulcast needs the mid and rtp-stream-id header extensions and a mid")
        }
        guard rtx == nil || repairedRIDExtensionID != nil else {
            throw .invalidConfiguration("simulcast with RTX needs the repaired-rtp-stream-id header extension")
        }
    }

    /// Checks `simulcast`.
    fileprivate func validateSimulcast() throws(SenderError) {
        if let mid {
            guard (1...16).contains(mid.utf8.count), mid.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw .invalidConfiguration("mid must be 1-16 visible ASCII characters, got \(mid.utf8.count) bytes")
            }
        }
        guard simulcast.count > 1 else { return }
        guard simulcast.count <= Self.maximumSimulcastEncodings else {
            throw .invalidConfiguration(
                "simulcast takes 1-\(Self.maximumSimulcastEncodings) encodings, got \(simulcast.count)")
        }
        for (index, encoding) in simulcast.enumerated() {
            guard SimulcastEncoding.isValidRID(encoding.rid) else {
                throw .invalidConfiguration("simulcast RTP stream id must be 1-16 letters, digits, '-' or '_'")
            }
            if simulcast[..<index].contains(where: { $0.rid == encoding.rid }) {
                throw .invalidConfiguration("simulcast RTP stream id \(encoding.rid) is used twice")
            }
            let layer = encoding.layer
            guard layer.width >= EncoderConfiguration.minimumDimension, layer.height >= EncoderConfiguration.minimumDimension,
                  layer.width <= encoder.width, layer.height <= encoder.height, layer.width % 2 == 0, layer.height % 2 == 0
            else {
                throw .invalidConfiguration(
                    "simulcast layer \(encoding.rid) must be even, at least 16x16 and at most \(encoder.width)x\(encoder.height), got \(layer.width)x\(layer.height)")
            }
            guard layer.minimumBitrate >= EncoderConfiguration.minimumBitrate,
                  layer.minimumBitrate <= layer.targetBitrate, layer.targetBitrate <= layer.maximumBitrate
            else {
                throw .invalidConfiguration(
                    "simulcast layer \(encoding.rid) needs \(EncoderConfiguration.minimumBitrate) <= minimum <= target <= maximum bit/s")
            }
        }
        guard fec == nil else { throw .invalidConfiguration("simulcast does not take FlexFEC yet") }
    }
}

extension SenderConfiguration {
    /// The configuration of each encoder: this one, or one per simulcast encoding (lowest first): the layer's size
    /// and target, its size kept (maintain-resolution), everything else as configured; the layers below the top one
    /// preprocess lightly (`EncoderConfiguration.lightPreprocessing`: the denoiser's chroma smoothing only, no
    /// background detection). Without any denoising they lost up to 2.4 dB PSNR-Y against a single-layer encode at
    /// their size and rate; lightly preprocessed they are within 0.15 dB of it or better, for about 0.8 ms less CPU per
    /// frame than OpenH264's whole denoiser (Docs/Benchmarks.md, `run-simulcast-quality.sh`, `run-simulcast.sh`).
    package var encoderConfigurations: [SenderConfiguration] {
        guard simulcast.count > 1 else { return [self] }
        return simulcast.enumerated().map { index, encoding in
            var layer = self
            layer.encoder.width = encoding.layer.width
            layer.encoder.height = encoding.layer.height
            layer.encoder.targetBitrate = encoding.layer.targetBitrate
            layer.encoder.maxBitrate = nil
            layer.degradationPreference = .maintainResolution
            layer.startBitrate = nil
            layer.encoder.lightPreprocessing = index < simulcast.count - 1
            return layer
        }
    }
}
