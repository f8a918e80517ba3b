import Codec
import H264
import MediaTime
import RTP
import SDP
import SRTP
import Video

extension SenderConfiguration {
    /// The RTP payload limit of this stream: the MTU less the IP (v4 or v6, from the peer's address), UDP and RTP
    /// headers and the SRTP tag. In packetization mode 0 it is also the encoder's slice-size limit.
    public var payloadLimit: RTPPayloadLimit {
        var limit = Self.payloadLimit(mtu: mtu, peerHost: peerHost, suite: security?.suite)
        limit.rtpHeaderSize = Self.rtpHeaderSize(fixed: headerExtension(rid: longestRID), extensionIDs: packetExtensionIDs)
        return limit
    }

    /// The IDs of the per-frame extensions the packetizer writes: the capture time's, the playout delay's when
    /// there is a delay to send, and the dependency descriptor's.
    var packetExtensionIDs: RTPPacketExtensionIDs {
        RTPPacketExtensionIDs(
            absoluteCaptureTime: absoluteCaptureTimeExtensionID,
            playoutDelay: playoutDelay != nil ? playoutDelayExtensionID : nil,
            dependencyDescriptor: dependencyDescriptorExtensionID)
    }

    /// The largest RTP header the packetizer writes with this fixed block and these per-frame IDs (as
    /// `H264Packetizer.limit` computes it; a configuration it refuses counts the fixed block alone, and fails later).
    static func rtpHeaderSize(fixed: RTPHeaderExtension?, extensionIDs: RTPPacketExtensionIDs) -> Int {
        (try? H264Packetizer.maximumHeaderSize(headerExtension: fixed, extensionIDs: extensionIDs))
            ?? RTPHeader.fixedSize + (fixed?.serializedSize ?? 0)
    }

    /// The header extension block every packet of a single stream carries (`headerExtension(rid:repaired:)` without
    /// an RTP stream id).
    var headerExtension: RTPHeaderExtension? { headerExtension(rid: nil) }

    /// The header extension block every packet of a stream carries: the transport-wide sequence number's element
    /// (its value is rewritten as each packet goes on the wire) when `transportWideCCExtensionID` is set, the mid when
    /// `mid` and `midExtensionID` are, and a simulcast encoding's RTP stream id (`rtp-stream-id`, or on
    /// retransmissions `repaired-rtp-stream-id`); nil when there is none of them.
    /// - Parameters:
    ///   - rid: the encoding's RTP stream id, or nil.
    ///   - repaired: the block of the stream's retransmissions.
    func headerExtension(rid: String?, repaired: Bool = false) -> RTPHeaderExtension? {
        var elements: [RTPHeaderExtensionElement] = []
        if let id = transportWideCCExtensionID, Self.oneByteExtensionIDRange.contains(id) {
            elements.append(TransportSequenceNumber.element(id: id, value: SequenceNumber(0)))
        }
        if let id = midExtensionID, let mid, Self.oneByteExtensionIDRange.contains(id) {
            elements.append(RTPHeaderExtensionElement(id: id, data: Array(mid.utf8)))
        }
        if let rid, let id = repaired ? repairedRIDExtensionID : ridExtensionID, Self.oneByteExtensionIDRange.contains(id) {
            elements.append(RTPHeaderExtensionElement(id: id, data: Array(rid.utf8)))
        }
        guard !elements.isEmpty else { return nil }
        return try? RTPHeaderExtension.oneByte(elements)
    }

    /// The longest RTP stream id of the simulcast encodings (nil without simulcast): the payload limit leaves room
    /// for it.
    var longestRID: String? {
        simulcast.count > 1 ? simulcast.map(\.rid).max { $0.utf8.count < $1.utf8.count } : nil
    }

    /// The RTP payload limit of a stream with these settings, for checking them before a configuration exists.
    /// - Parameters:
    ///   - mtu: the IP-level MTU.
    ///   - peerHost: the peer's IP literal (a colon means IPv6).
    ///   - suite: the SRTP suite, or nil for plain RTP.
    /// - Returns: the limit.
    public static func payloadLimit(mtu: Int, peerHost: String, suite: SRTPSuite?) -> RTPPayloadLimit {
        RTPPayloadLimit(mtu: mtu, ipVersion: peerHost.contains(":") ? .v6 : .v4,
                        srtpTrailerSize: suite?.rtpTrailerLength ?? 0)
    }

    /// The encoder configuration actually used: in packetization mode 0 every NAL unit must fit one RTP payload, so
    /// the encoder's slice-size limit is capped at the payload limit.
    var sendingEncoderConfiguration: EncoderConfiguration {
        var configuration = encoder
        if packetizationMode == .singleNALUnit {
            configuration.maxNALUnitSize = min(configuration.maxNALUnitSize ?? .max, payloadLimit.maxPayloadSize)
        }
        return configuration
    }

    /// Learns the SPS and PPS the stream starts with, so that an SDP can be written before the first packet leaves:
    /// one frame encoded by a throwaway `H264Encoder` of the sending configuration at the size the adaptive encoder
    /// starts at (`AdaptiveH264Encoder.startingSize`: the rung the start bitrate and the degradation preference allow).
    /// OpenH264's parameter sets depend only on the configuration and the size, not on the picture.
    ///
    /// The probe frame does not go through `AdaptiveH264Encoder`: it measures the detail of its first frame, and a
    /// flat picture loses nothing when scaled down and up (infinite PSNR), so it counted as a soft source with 4x the
    /// floors and named a smaller size than a sharp source starts at (640x360 for 1280x720 at 1.5 Mbit/s). A source
    /// that really is soft can still start at a smaller rung after its first frame's measurement; its in-band SPS then
    /// names that size, as after any later switch.
    /// - Returns: the SPS and PPS NAL units.
    /// - Throws: encoder errors.
    public func probeParameterSets() throws -> [[UInt8]] {
        let sending = sendingEncoderConfiguration
        let start = try AdaptiveH264Encoder.startingSize(configuration: sending, preference: degradationPreference)
        let encoder = try H264Encoder(configuration: AdaptiveH264Encoder.configuration(sending, at: start))
        let frame = I420Frame(width: start.width, height: start.height)
        guard case .frame(let encoded, _) = try encoder.encode(.i420(frame), timestamp: 0, forceKeyframe: true) else {
            throw SenderError.invalidConfiguration("the encoder produced no keyframe to take SPS/PPS from")
        }
        return encoded.parameterSets.map { Array($0) }
    }

    /// The RTCP feedback this sender answers (`SenderSession` handles each), as `a=rtcp-fb` values (RFC 4585,
    /// RFC 5104, REMB, and `rrtr`: RFC 3611's receiver reference times, answered with DLRR so that a receive-only
    /// peer knows the round-trip time), `transport-cc` aside: the one list every SDP writer uses (the SDES SDP here,
    /// the WHEP answer, the WHIP offer).
    public var answeredFeedback: [String] {
        (nack ? ["nack"] : []) + ["nack pli", "ccm fir", "ccm tmmbr", "goog-remb", "rrtr"]
    }

    /// `answeredFeedback`, with `transport-cc` when the transport-wide sequence number is written.
    public var feedbackCapabilities: [String] {
        answeredFeedback + (transportWideCCExtensionID != nil ? ["transport-cc"] : [])
    }

    /// The SDP a receiver needs to play this stream.
    /// - Parameters:
    ///   - parameterSets: SPS and PPS (see `probeParameterSets()`).
    ///   - ssrc: the SSRC, or nil to leave `a=ssrc` out.
    ///   - rtxSSRC: the retransmission stream's SSRC (`H264Sender.rtxSSRC`), when RTX is on.
    ///   - fecSSRC: the FlexFEC stream's SSRC (`H264Sender.fecSSRC`), when FEC is on.
    /// - Returns: the description; its `crypto` holds the key when SRTP is on (write it only to a private file).
    public func sessionDescription(
        parameterSets: [[UInt8]], ssrc: SSRC?, rtxSSRC: SSRC? = nil, fecSSRC: SSRC? = nil
    ) -> SessionDescription {
        // From the SPS the stream carries; the configuration's value (the same bytes) only if none was given.
        let sps = parameterSets.first { $0.first.map { NALUnitHeader(byte: $0).type == .sps } ?? false }
        let profileLevelID =
            sps.flatMap { try? SequenceParameterSet(nalUnit: $0).profileLevelID } ?? encoder.profileLevelID
        let crypto = security.map {
            SessionDescription.Crypto(suite: $0.suite.sdpName, keyParameters: SDESInlineKey(masterKey: $0.key).keyParams)
        }
        var description = SessionDescription(
            connectionAddress: peerHost, port: peerPort, rtcpMux: rtcpMux, payloadType: payloadType.rawValue,
            profileLevelID: profileLevelID.description, packetizationMode: packetizationMode.rawValue,
            parameterSets: parameterSets, crypto: crypto, ssrc: ssrc?.rawValue, cname: cname, frameRate: encoder.frameRate)
        description.feedback = feedbackCapabilities
        description.transportWideCCExtensionID = transportWideCCExtensionID
        description.absoluteCaptureTimeExtensionID = absoluteCaptureTimeExtensionID
        description.playoutDelayExtensionID = packetExtensionIDs.playoutDelay
        description.dependencyDescriptorExtensionID = dependencyDescriptorExtensionID
        if let rtx {
            description.rtx = SessionDescription.RTX(
                payloadType: rtx.payloadType.rawValue, ssrc: (rtxSSRC ?? rtx.ssrc)?.rawValue,
                rtxTime: Int(PacketHistory.minimumRetention.saturatingNanoseconds / 1_000_000))
        }
        if let fec {
            description.fec = SessionDescription.FEC(payloadType: fec.payloadType.rawValue, ssrc: (fecSSRC ?? fec.ssrc)?.rawValue)
        }
        return description
    }
}
