/// Makes our `sendonly` offer for one H.264 video stream and reads the answer (the WHIP client side, RFC 9725
/// section 4.2 and RFC 8829 section 5.2).
public enum VideoOfferer {
    /// The mid of our one m-section.
    public static let mid = "0"

    /// Our offer: `a=setup:actpass`, BUNDLE, rtcp-mux, rtcp-rsize, our H.264 format (and RTX and FlexFEC when
    /// configured, FlexFEC with its `ssrc-group:FEC-FR`), the feedback we handle, transport-cc when configured, and our candidates.
    /// - Parameters:
    ///   - video: What we send.
    ///   - transport: Our ICE and DTLS parameters (`iceLite` false for a WHIP client: RFC 9725 requires full ICE).
    ///   - origin: The `o=` value.
    /// - Returns: The offer.
    public static func offer(
        video: VideoSendConfiguration, transport: LocalTransportDescription, origin: String = "- 1 1 IN IP4 0.0.0.0"
    ) -> JSEPSessionDescription {
        var feedback = video.feedback
        if video.transportWideCC { feedback.append("transport-cc") }
        var format = H264PayloadFormat(
            payloadType: video.offerPayloadType, profileLevelID: video.profileLevelID,
            packetizationMode: video.packetizationMode, levelAsymmetryAllowed: true,
            rtxPayloadType: video.rtxSSRC == nil ? nil : video.offerRTXPayloadType, feedback: feedback)
        if video.fecSSRC != nil { format.fecPayloadType = video.offerFECPayloadType }
        var offer = JSEPSessionDescription(origin: origin)
        if transport.iceLite { offer.attributes.append(SDPAttribute("ice-lite")) }
        offer.attributes.append(SDPAttribute("group", "BUNDLE \(mid)"))
        offer.attributes.append(SDPAttribute("msid-semantic", " WMS \(video.streamID)"))
        let extensions = video.offeredExtensions
        func offeredID(_ uri: String) -> Int? { extensions.first { $0.uri == uri }?.id }
        offer.media = [.video(
            mid: mid, format: format, configuration: video, transport: transport, setup: .actpass,
            transportCCExtensionID: offeredID(VideoSendConfiguration.transportCCURI),
            rtcpReducedSize: true, direction: "sendonly",
            absoluteCaptureTimeExtensionID: offeredID(VideoSendConfiguration.absoluteCaptureTimeURI),
            playoutDelayExtensionID: offeredID(VideoSendConfiguration.playoutDelayURI),
            dependencyDescriptorExtensionID: offeredID(VideoSendConfiguration.dependencyDescriptorURI),
            simulcastExtensionIDs: extensions.filter {
                [VideoSendConfiguration.midURI, VideoSendConfiguration.ridURI, VideoSendConfiguration.repairedRIDURI]
                    .contains($0.uri)
            },
            simulcast: video.simulcast)]
        return offer
    }

    /// Reads the answer to our offer.
    /// - Parameters:
    ///   - answer: The parsed answer.
    ///   - video: The configuration the offer was made from.
    /// - Returns: What was negotiated.
    /// - Throws: `JSEPError.noVideoSection` when our section was rejected or is missing, `.noCompatibleH264` when the
    ///   answer's format is not ours, `.incompatibleSetup` for `actpass`/`holdconn`, `.unsupported` without
    ///   rtcp-mux or when the answer wants to send instead of receive, `.missing` for credentials or fingerprint.
    public static func accept(_ answer: JSEPSessionDescription, video: VideoSendConfiguration) throws(JSEPError)
        -> NegotiatedVideo
    {
        let (section, remote, role) = try answer.answeredVideoSection(
            mid: mid, directions: ["recvonly", "sendrecv"], purpose: "receiving our stream")
        let answered = H264PayloadFormat.formats(in: section)
        guard let chosen = answered.first(where: {
            $0.payloadType == video.offerPayloadType && $0.packetizationMode == video.packetizationMode
                && $0.carries(video.profileLevelID, mode: video.packetizationMode)
        }) else {
            throw .noCompatibleH264(offered: answered.map { "\($0.payloadType) \($0.profileLevelID) mode \($0.packetizationMode)" })
        }
        var ours = video.feedback
        // An extension the answer accepts under an ID no other of its extensions shares (an answer should echo our
        // IDs; one that does not is still read, never misread).
        let offered = video.offeredExtensions
        func answeredID(_ uri: String) -> Int? {
            offered.contains { $0.uri == uri } ? section.usableExtensionID(uri) : nil
        }
        let transportCCID = answeredID(VideoSendConfiguration.transportCCURI)
        if transportCCID != nil { ours.append("transport-cc") }
        var format = chosen
        format.profileLevelID = video.profileLevelID
        format.feedback = ours.filter(chosen.feedback.contains)
        if video.rtxSSRC == nil || chosen.rtxPayloadType != video.offerRTXPayloadType { format.rtxPayloadType = nil }
        // FlexFEC when the answer keeps our flexfec-03 type (an endpoint that does not take it leaves it out).
        let answeredFEC = H264PayloadFormat.flexFECPayloadType(in: section)
        format.fecPayloadType = video.fecSSRC != nil && answeredFEC == video.offerFECPayloadType ? answeredFEC : nil
        // Simulcast when the answer receives it with the RTP stream id: the streams it keeps, in our order.
        var simulcastRIDs: [String]?
        let ridID = answeredID(VideoSendConfiguration.ridURI)
        let midID = answeredID(VideoSendConfiguration.midURI)
        if let ours = video.simulcast, ridID != nil, midID != nil,
           let answered = try SimulcastDescription.read(from: section, direction: .recv)
        {
            let kept = Set(answered.streams.filter { !$0.paused }.map(\.rid))
            let rids = ours.streams.map(\.rid).filter(kept.contains)
            simulcastRIDs = rids.isEmpty ? nil : rids
        }
        var negotiated = NegotiatedVideo(
            mid: section.mid ?? mid, format: format, transportCCExtensionID: transportCCID,
            rtcpReducedSize: section.has("rtcp-rsize"), remoteCredentials: remote.credentials,
            remoteICELite: remote.iceLite, remoteCandidates: remote.candidates, remoteFingerprint: remote.fingerprint,
            dtlsRole: role, absoluteCaptureTimeExtensionID: answeredID(VideoSendConfiguration.absoluteCaptureTimeURI),
            playoutDelayExtensionID: answeredID(VideoSendConfiguration.playoutDelayURI),
            dependencyDescriptorExtensionID: answeredID(VideoSendConfiguration.dependencyDescriptorURI))
        if simulcastRIDs != nil {
            negotiated.simulcastRIDs = simulcastRIDs
            negotiated.midExtensionID = midID
            negotiated.ridExtensionID = ridID
            negotiated.repairedRIDExtensionID = format.rtxPayloadType != nil
                ? answeredID(VideoSendConfiguration.repairedRIDURI) : nil
        }
        return negotiated
    }
}
