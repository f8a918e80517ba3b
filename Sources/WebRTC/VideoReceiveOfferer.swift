/// Makes our `recvonly` offer for one H.264 video stream and reads the answer (the WHEP client side,
/// draft-ietf-wish-whep section 4, RFC 8829 section 5.2): what a browser's `addTransceiver("video", {direction:
/// "recvonly"})` offers, limited to what our receiver handles.
public enum VideoReceiveOfferer {
    /// The mid of our one m-section.
    public static let mid = "0"

    /// Our offer: `a=setup:actpass`, BUNDLE, rtcp-mux, rtcp-rsize, our H.264 formats with their RTX companions,
    /// FlexFEC, the feedback we send, the extensions we read, and our candidates. No `a=ssrc`: we send only RTCP,
    /// whose sender SSRC needs no signalling.
    /// - Parameters:
    ///   - video: What we receive.
    ///   - transport: Our ICE and DTLS parameters (full ICE).
    ///   - origin: The `o=` value.
    /// - Returns: The offer.
    public static func offer(
        video: VideoReceiveConfiguration, transport: LocalTransportDescription, origin: String = "- 1 1 IN IP4 0.0.0.0"
    ) -> JSEPSessionDescription {
        var payloadTypes: [String] = []
        var lines: [SDPAttribute] = [
            SDPAttribute("mid", mid),
            SDPAttribute("ice-ufrag", transport.credentials.ufrag),
            SDPAttribute("ice-pwd", transport.credentials.password),
            SDPAttribute("fingerprint", transport.fingerprint.sdpValue),
            SDPAttribute("setup", DTLSSetup.actpass.rawValue),
        ]
        for (id, uri) in video.offeredExtensions { lines.append(SDPAttribute("extmap", "\(id) \(uri)")) }
        lines.append(SDPAttribute("recvonly"))
        lines.append(SDPAttribute("rtcp-mux"))
        lines.append(SDPAttribute("rtcp-rsize"))
        var feedback = video.feedback
        if video.transportWideCC { feedback.append("transport-cc") }
        for format in video.formats {
            let h264 = H264PayloadFormat(
                payloadType: format.payloadType, profileLevelID: format.profileLevelID, packetizationMode: 1,
                levelAsymmetryAllowed: true)
            payloadTypes.append("\(format.payloadType)")
            lines.append(SDPAttribute("rtpmap", "\(format.payloadType) H264/\(H264PayloadFormat.clockRate)"))
            lines += feedback.map { SDPAttribute("rtcp-fb", "\(format.payloadType) \($0)") }
            lines.append(SDPAttribute("fmtp", "\(format.payloadType) \(h264.fmtpValue)"))
            if let rtx = format.rtxPayloadType {
                payloadTypes.append("\(rtx)")
                lines.append(SDPAttribute("rtpmap", "\(rtx) rtx/\(H264PayloadFormat.clockRate)"))
                lines.append(SDPAttribute("fmtp", "\(rtx) apt=\(format.payloadType)"))
            }
        }
        if let fec = video.fecPayloadType {
            payloadTypes.append("\(fec)")
            lines.append(SDPAttribute("rtpmap", "\(fec) \(H264PayloadFormat.flexFECName)/\(H264PayloadFormat.clockRate)"))
            if video.transportWideCC { lines.append(SDPAttribute("rtcp-fb", "\(fec) transport-cc")) }
            lines.append(SDPAttribute("fmtp", "\(fec) repair-window=10000000"))
        }
        lines += transport.candidates.map { SDPAttribute("candidate", $0.sdpValue) }
        lines.append(SDPAttribute("end-of-candidates"))

        let defaultCandidate = transport.candidates.first { $0.transportAddress != nil }
        let connection = defaultCandidate.flatMap(\.transportAddress).map {
            "IN \($0.ip.isIPv6 ? "IP6" : "IP4") \($0.ip)"
        } ?? JSEPMediaSection.unspecifiedConnection
        var section = JSEPMediaSection(
            kind: "video", port: defaultCandidate?.port ?? JSEPMediaSection.discardPort,
            proto: JSEPMediaSection.webRTCProtocol, formats: payloadTypes, connection: connection)
        section.attributes = lines
        var offer = JSEPSessionDescription(origin: origin)
        offer.attributes.append(SDPAttribute("group", "BUNDLE \(mid)"))
        offer.attributes.append(SDPAttribute("msid-semantic", " WMS"))
        offer.media = [section]
        return offer
    }

    /// Reads the answer to our offer.
    /// - Parameters:
    ///   - answer: The parsed answer.
    ///   - video: The configuration the offer was made from.
    /// - Returns: What was negotiated: the H.264 format the stream comes in (its payload type, RTX and FlexFEC types,
    ///   the feedback both sides use), the extension ids, and the peer's ICE and DTLS parameters.
    /// - Throws: `JSEPError.noVideoSection` when our section was rejected or is missing, `.noCompatibleH264` when the
    ///   answer keeps none of our formats, `.incompatibleSetup` for `actpass`/`holdconn`, `.unsupported` without
    ///   rtcp-mux or when the answer sends nothing, `.missing` for credentials or fingerprint.
    public static func accept(_ answer: JSEPSessionDescription, video: VideoReceiveConfiguration) throws(JSEPError)
        -> NegotiatedVideo
    {
        let (section, remote, role) = try answer.answeredVideoSection(
            mid: mid, directions: ["sendonly", "sendrecv"], purpose: "sending a stream to us")
        // The first answered format that is one of ours, under our payload type, in the profile we offered there.
        let answered = H264PayloadFormat.formats(in: section)
        var match: (format: H264PayloadFormat, ours: VideoReceiveConfiguration.Format)?
        for format in answered where format.packetizationMode == 1 {
            if let ours = video.formats.first(where: {
                $0.payloadType == format.payloadType && format.carries($0.profileLevelID, mode: 1)
            }) {
                match = (format, ours)
                break
            }
        }
        guard let (chosen, ours) = match else {
            throw .noCompatibleH264(offered: answered.map { "\($0.payloadType) \($0.profileLevelID) mode \($0.packetizationMode)" })
        }
        let offered = video.offeredExtensions
        func answeredID(_ uri: String) -> Int? {
            offered.contains { $0.uri == uri } ? section.usableExtensionID(uri) : nil
        }
        var ourFeedback = video.feedback
        let transportCCID = answeredID(VideoSendConfiguration.transportCCURI)
        if transportCCID != nil { ourFeedback.append("transport-cc") }
        var format = chosen
        format.feedback = ourFeedback.filter(chosen.feedback.contains)
        if ours.rtxPayloadType == nil || chosen.rtxPayloadType != ours.rtxPayloadType { format.rtxPayloadType = nil }
        let answeredFEC = H264PayloadFormat.flexFECPayloadType(in: section)
        format.fecPayloadType = video.fecPayloadType != nil && answeredFEC == video.fecPayloadType ? answeredFEC : nil
        return NegotiatedVideo(
            mid: section.mid ?? mid, format: format,
            transportCCExtensionID: format.feedback.contains("transport-cc") ? transportCCID : nil,
            rtcpReducedSize: section.has("rtcp-rsize"), remoteCredentials: remote.credentials,
            remoteICELite: remote.iceLite, remoteCandidates: remote.candidates, remoteFingerprint: remote.fingerprint,
            dtlsRole: role, absoluteCaptureTimeExtensionID: answeredID(VideoSendConfiguration.absoluteCaptureTimeURI),
            playoutDelayExtensionID: answeredID(VideoSendConfiguration.playoutDelayURI),
            dependencyDescriptorExtensionID: answeredID(VideoSendConfiguration.dependencyDescriptorURI))
    }
}
